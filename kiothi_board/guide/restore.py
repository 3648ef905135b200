"""Setting the whole board to a target: an undo, a long move, a restore, a reset.

A `RestoreView` is a pure value: the counts the board holds now (as far as the guide
knows), the counts it must hold, and the pits the player has ticked off as set. Every ring
shows its *target* count as its arc; a pit whose count must change also carries the
CHANGE cue (four blinking dots) until the player ticks it with a tap. The player (or a
count sensor) confirms the whole board with one gesture — a hold on any pit — not pit by
pit. The controller (or an exhibition reset) owns the gesture; this module owns the look.

Use::

    task = RestoreView.of(before=board_now, target=start_board, mover=Side.S, purpose="reset")
    task = task.tap(pit)          # a tap on a changing pit ticks it (again: unticks)
    cells(task, t)                # the rings (through guide.views.cells / render)
    restore_instruction(task)     # the one-line text
    # a hold on any pit: accept task.target as the board (the caller's job)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from kiothi_board.guide.address import to_player
from kiothi_board.guide.palette import Cue, Style
from kiothi_board.guide.raster import LEVELS, Cell
from kiothi_board.i18n import Msg, joined, tr, trn
from kiothi_board.rules import Side, pit_name

__all__ = ["RESTORE_PURPOSES", "Purpose", "RestoreView", "restore_cells", "restore_instruction"]

Purpose = Literal["undo", "long-move", "restore", "reset"]
RESTORE_PURPOSES: tuple[Purpose, ...] = ("undo", "long-move", "restore", "reset")
_PITS = 20
_ROW = 10
_LISTED = 4  # up to this many changes are named in the instruction
_TITLES = {
    "undo": tr("Undo"),
    "long-move": tr("A long move"),
    "restore": tr("Restore the saved game"),
    "reset": tr("Reset to the start"),
}


@dataclass(frozen=True, slots=True)
class RestoreView:
    """The board must be set to `target`: arcs show targets, changing pits blink until ticked."""

    before: tuple[int, ...]
    target: tuple[int, ...]
    mover: Side | None = None
    purpose: Purpose = "undo"
    ticked: frozenset[int] = field(default_factory=frozenset)

    @classmethod
    def of(
        cls,
        before: Sequence[int],
        target: Sequence[int],
        mover: Side | None = None,
        purpose: Purpose = "undo",
    ) -> RestoreView:
        """A fresh task (nothing ticked); names what is wrong when the boards do not fit."""
        if len(before) != _PITS or len(target) != _PITS:
            raise ValueError(
                f"a restore needs 20 counts before and after, got {len(before)} and {len(target)}"
            )
        if any(c < 0 for c in (*before, *target)):
            raise ValueError("a restore's counts must not be negative")
        if purpose not in RESTORE_PURPOSES:
            raise ValueError(f"unknown restore purpose {purpose!r}")
        return cls(tuple(before), tuple(target), mover, purpose)

    @property
    def changes(self) -> tuple[int, ...]:
        """Pits whose count must change, in index order."""
        return tuple(p for p in range(_PITS) if self.before[p] != self.target[p])

    @property
    def pending(self) -> tuple[int, ...]:
        """Changing pits the player has not ticked off yet."""
        return tuple(p for p in self.changes if p not in self.ticked)

    def holds(self, pit: int) -> bool:
        """Whether the pit (as far as the guide knows) already holds its target count."""
        return self.before[pit] == self.target[pit] or pit in self.ticked

    def tap(self, pit: int) -> RestoreView:
        """A tap ticks a changing pit off (a second tap unticks it); other pits: no change."""
        if pit not in self.changes:
            return self
        return replace(self, ticked=self.ticked ^ {pit})

    def to_json(self) -> dict[str, object]:
        """The task as the API reports it: targets, the changes, what is still pending."""
        return {
            "purpose": self.purpose,
            "target": list(self.target),
            "changes": {pit_name(p): [self.before[p], self.target[p]] for p in self.changes},
            "pending": [pit_name(p) for p in self.pending],
        }


def restore_cells(view: RestoreView, t: float) -> list[Cell]:
    """Every ring's arc is its target; pending pits add CHANGE, blinking at 1 Hz."""
    on = LEVELS if (t % 1.0) < 0.6 else 0
    out: list[Cell] = []
    for p in range(_PITS):
        own = Side.S if p < _ROW else Side.N
        if p in view.changes and p not in view.ticked:
            out.append(Cell(Style.PLACED, view.target[p], Cue.CHANGE, on))
        elif p in view.ticked:
            out.append(Cell(Style.PLACED, view.target[p]))
        else:
            style = (Style.SOUTH if own is Side.S else Style.NORTH) if own is view.mover else None
            out.append(Cell(style if style is not None else Style.NEUTRAL, view.target[p]))
    return out


def restore_instruction(view: RestoreView) -> Msg:
    """One line: what to set, then the one confirming gesture."""
    title = _TITLES[view.purpose]
    pending = view.pending
    if not view.changes:
        return to_player(
            tr(
                "{title}: the board already holds these counts — hold any pit to confirm.",
                title=title,
            )
        )
    if not pending:
        return to_player(
            tr("{title}: every pit is set — hold any pit to confirm the board.", title=title)
        )
    if len(pending) <= _LISTED:
        listed = [tr("{pit} to {n}", pit=pit_name(p), n=view.target[p]) for p in pending]
        return to_player(
            tr(
                "{title}: set {pits}, then hold any pit to confirm the board.",
                title=title,
                pits=joined(listed),
            )
        )
    return to_player(
        trn(
            "{title}: set the {n} blinking pit to the count its ring shows, then hold any pit "
            "to confirm the board.",
            "{title}: set the {n} blinking pits to the counts their rings show, then hold any "
            "pit to confirm the board.",
            len(pending),
            title=title,
        )
    )
