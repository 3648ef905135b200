"""The reset-to-start picture (L3): every ring shows the count it must hold at the start.

A minimal stand-in for the guide's restore view (issue 10): each ring's arc is its
target count (RULES.md R2); a pit whose last known count differs from its target blinks
the TARGET cue ("does not hold it yet"), a pit that holds it stays steady. One gesture
— a hold on any pit — confirms the whole board (or the seed sensors do).
"""

from __future__ import annotations

from collections.abc import Sequence

from kiothi_board.guide import LEVELS, Cell, Cue, Renderer, Ring, Style, blink
from kiothi_board.rules import INITIAL_BOARD

__all__ = ["ResetPicture"]


class ResetPicture:
    """Draws the reset request; `before` is the board as last known (None: unknown)."""

    def __init__(self, renderer: Renderer, target: Sequence[int] = INITIAL_BOARD) -> None:
        """Ask for `target` (the start position by default)."""
        self._renderer = renderer
        self.target = tuple(target)
        self.before: tuple[int, ...] | None = None

    def differs(self) -> list[int]:
        """Pits whose last known count is not their target (all, when unknown)."""
        if self.before is None:
            return list(range(20))
        return [p for p in range(20) if self.before[p] != self.target[p]]

    def frame(self, t: float) -> list[Ring]:
        """Target arcs; the pits to change blink, the others hold steady."""
        on = LEVELS if blink(t, 1.0) else LEVELS // 3
        wrong = set(self.differs())
        cells = [
            Cell(Style.PLACED, self.target[p], Cue.TARGET if p in wrong else Cue.NONE, on)
            for p in range(20)
        ]
        return self._renderer.frame(cells)
