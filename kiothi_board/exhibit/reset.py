"""The reset-to-start request (L3): the guide's restore view (issue 10) with purpose "reset".

Every ring's arc is the count its pit must hold at the start (RULES.md R2); a pit whose
last known count differs blinks the CHANGE cue until it is set. A tap on a changing pit
ticks it off (a second tap unticks it), as in every other restore; one gesture — a hold on
any pit — confirms the whole board.

With seed sensors the board confirms itself: every pit that was short of seeds reports
its `dropped` events, and once each has received exactly what it lacked (and no pit more
than it lacked) the seeds can only have come from the pits that had too many, so the
board holds the start position. Removals are not sensed, hence this rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from kiothi_board.errors import KiothiError
from kiothi_board.frame import Frame
from kiothi_board.guide import LEVELS, Cell, Cue, Renderer, Style
from kiothi_board.guide.restore import RestoreView, restore_cells, restore_instruction
from kiothi_board.i18n import Msg, tr
from kiothi_board.rules import INITIAL_BOARD, parse_record
from kiothi_board.store.base import GameStore

__all__ = ["ResetPicture", "left_by_last_game"]


def left_by_last_game(store: GameStore) -> tuple[int, ...] | None:
    """The counts the store's last finished game left on the board (None: unknown).

    After a restart with no game to resume, the seeds lie where that game left them (its
    record replays to its ending, R10-R13); a move cut short by its ending is not in the
    record, so mid-move the counts are the position before that move."""
    try:
        games = store.list_games(1)
        if not games or games[0].get("status") == "current":
            return None
        data = store.get_game(int(games[0]["id"]))
        if data is None or "format" not in data:
            return None
        return tuple(parse_record(data).final().board)
    except (KiothiError, KeyError, TypeError, ValueError):
        return None  # an unreadable record: the reset asks for every pit


class ResetPicture:
    """The reset request; `before` is the board as last known (None: unknown)."""

    def __init__(self, renderer: Renderer, target: Sequence[int] = INITIAL_BOARD) -> None:
        """Ask for `target` (the start position by default)."""
        self._renderer = renderer
        self.target = tuple(target)
        self._before: tuple[int, ...] | None = None
        self._view: RestoreView | None = None
        self.drops = [0] * 20

    @property
    def before(self) -> tuple[int, ...] | None:
        """The board when the reset was asked for; setting a new one starts afresh."""
        return self._before

    @before.setter
    def before(self, board: Sequence[int] | None) -> None:
        new = None if board is None else tuple(board)
        if new == self._before:
            return
        self._before = new
        self.clear()

    def clear(self) -> None:
        """Forget ticks and sensed seeds (a new reset begins)."""
        self.drops = [0] * 20
        self._view = None
        if self._before is not None:
            self._view = RestoreView.of(self._before, self.target, purpose="reset")

    def differs(self) -> list[int]:
        """Pits still to set: changing and not ticked (all, when the board is unknown)."""
        if self._view is None:
            return list(range(20))
        return list(self._view.pending)

    def tap(self, pit: int) -> None:
        """A tap on a pit: ticks a changing pit off, or back on."""
        if self._view is not None:
            self._view = self._view.tap(pit)

    def drop(self, pit: int) -> bool:
        """A seed sensed falling into `pit`; True when the board now holds the start."""
        if self._view is None or not 0 <= pit < 20:
            return False
        self.drops[pit] += 1
        short = self.target[pit] - self._view.before[pit]
        if self.drops[pit] == short and pit in self._view.pending:
            self._view = self._view.tap(pit)
        return self.sensed_complete()

    def sensed_complete(self) -> bool:
        """Every short pit got exactly what it lacked, and some seed was sensed at all."""
        view = self._view
        if view is None or not any(self.drops):
            return False
        lacks = [max(0, self.target[p] - view.before[p]) for p in range(20)]
        return self.drops == lacks

    def instruction(self) -> Msg:
        """The one line the page shows while the board waits for its reset."""
        if self._view is None:
            return tr(
                "Reset to the start: set every pit to the count its ring shows, then hold "
                "any pit to confirm the board."
            )
        return restore_instruction(self._view)

    def frame(self, t: float) -> Frame:
        """Target arcs; the pits to set blink, the others hold steady."""
        if self._view is not None:
            return self._renderer.frame(restore_cells(self._view, t))
        on = LEVELS if (t % 1.0) < 0.6 else 0  # unknown board: every pit asks to be checked
        return self._renderer.frame(
            [Cell(Style.PLACED, self.target[p], Cue.CHANGE, on) for p in range(20)]
        )
