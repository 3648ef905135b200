"""What the guide shows, as immutable views, and the pure function from a view and a time
to an LED frame.

The controller decides *which* view is current (the game's stage and guide step); this
module decides how it looks at time `t`. Nothing here reads a clock or touches hardware.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kiothi_board.frame import Frame
from kiothi_board.guide.palette import Cue, Style
from kiothi_board.guide.raster import LEVELS, Cell, Renderer
from kiothi_board.guide.restore import RestoreView, restore_cells
from kiothi_board.guide.steps import GuideStep, sow_steps
from kiothi_board.rules import Position, Result, Side, SowTrace

__all__ = [
    "ERROR_SECONDS",
    "HINT_SECONDS",
    "BlankView",
    "CheckView",
    "IdleView",
    "OpeningView",
    "OverView",
    "Overlay",
    "StepsView",
    "View",
    "blink",
    "breathe",
    "cells",
    "render",
    "sow_view",
]

PITS = 20
ROW = 10
ERROR_SECONDS = 1.2
"""How long a wrong press flashes."""
HINT_SECONDS = 6.0
"""How long a hint shows at most (the next press clears it sooner)."""


# ----------------------------------------------------------------------------- timing
def blink(t: float, hz: float, phase: float = 0.0) -> bool:
    """True in the first half of each period (`phase` in periods shifts it)."""
    return (t * hz + phase) % 1.0 < 0.5


def breathe(t: float, period: float = 2.0) -> int:
    """A triangle wave 0…LEVELS with the given period, quantised for the ring cache."""
    x = (t / period) % 1.0
    return round(LEVELS * (1.0 - abs(2.0 * x - 1.0)))


# ----------------------------------------------------------------------------- views
@dataclass(frozen=True, slots=True)
class Overlay:
    """A transient cue on one pit: a wrong press (ERROR, ENDLESS) or a hint (HINT)."""

    pit: int
    cue: Cue
    since: float
    until: float = float("inf")


@dataclass(frozen=True, slots=True)
class IdleView:
    """Waiting for a move: counts, the mover's row in its colour, legal pits breathing."""

    position: Position
    legal: tuple[int, ...] = ()

    @classmethod
    def of(cls, position: Position) -> IdleView:
        """The idle view of a position (its legal pits computed once)."""
        return cls(position, tuple(position.legal_moves()))


@dataclass(frozen=True, slots=True)
class StepsView:
    """A step of a guided sequence: a sowing move, a guided opening action or a correction."""

    steps: tuple[GuideStep, ...]
    index: int
    mover: Side
    trace: SowTrace | None = None
    paused: bool = False

    @property
    def step(self) -> GuideStep:
        """The step the hand is on."""
        return self.steps[min(self.index, len(self.steps) - 1)]


@dataclass(frozen=True, slots=True)
class OpeningView:
    """A human's opening action in progress (R3): lift a pit, then place seed by seed."""

    board: tuple[int, ...]
    mover: Side
    lifted: int | None = None
    hand: int = 0
    placed: tuple[int, ...] = (0,) * PITS
    legal: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckView:
    """Every ring shows its expected count; pits marked wrong blink until confirmed."""

    board: tuple[int, ...]
    mover: Side
    wrong: frozenset[int] = field(default_factory=frozenset)


@dataclass(frozen=True, slots=True)
class OverView:
    """Game over: each side's captured seeds as a bar along its row, the winner's breathing."""

    result: Result
    stuck: Side | None = None  # R10: the side that had no move left


@dataclass(frozen=True, slots=True)
class BlankView:
    """No game: the starting layout glowing faintly, as an invitation to hold a pit."""


View = IdleView | StepsView | OpeningView | CheckView | OverView | BlankView | RestoreView


def sow_view(position: Position, trace: SowTrace, step: int) -> StepsView:
    """The view of guide step `step` of a sowing move played from `position`."""
    return StepsView(sow_steps(trace), step, position.to_move, trace)


# ----------------------------------------------------------------------------- cells
_SIDE_STYLE = (Style.SOUTH, Style.NORTH)


def _base(board: Sequence[int], mover: Side | None) -> list[Cell]:
    out: list[Cell] = []
    for p in range(PITS):
        own = Side.S if p < ROW else Side.N
        style = _SIDE_STYLE[own] if own is mover else Style.NEUTRAL
        out.append(Cell(style, board[p]))
    return out


def _cue(cells: list[Cell], pit: int, cue: Cue, level: int = LEVELS) -> None:
    c = cells[pit]
    cells[pit] = Cell(c.style, c.count, cue, level)


def _idle(view: IdleView, t: float) -> list[Cell]:
    pos = view.position
    out = _base(pos.board, pos.to_move)
    level = breathe(t)
    for p in view.legal:
        _cue(out, p, Cue.LEGAL, level)
    return out


def _upcoming(steps: Sequence[GuideStep], index: int, limit: int = 2) -> list[int]:
    found: list[int] = []
    for s in steps[index + 1 :]:
        if s.kind == "drop":
            found.append(s.pit)
            if len(found) == limit:
                break
        elif s.kind in ("capture", "done", "set"):
            break
    return found


def _steps(view: StepsView, t: float) -> list[Cell]:
    step = view.step
    out = _base(step.board, view.mover)
    trace = view.trace
    if step.kind in ("capture", "done") and trace is not None:
        for saved in trace.saved:
            _cue(out, saved.pit, Cue.SAVED)
        _cue(out, trace.landing, Cue.LANDING)
    if step.kind == "done":
        return out
    if step.kind == "set":
        target = view.steps[view.index + 1].board[step.pit]
        shown = view.paused or blink(t, 1.0, 0.0) or blink(t, 1.0, 0.25)
        out[step.pit] = Cell(Style.PLACED if shown else Style.DARK, target)
        return out
    if step.kind == "capture":
        on = LEVELS if blink(t, 4.0) else 0
        for s in view.steps[view.index :]:
            if s.kind == "capture":
                _cue(out, s.pit, Cue.CAPTURE, on)
        return out
    for p in _upcoming(view.steps, view.index):
        if p != step.pit:
            _cue(out, p, Cue.SOON)
    drop_on = view.paused or blink(t, 2.0)
    if step.kind == "drop":
        # The next drop never goes dark, so the hand always sees it; it pulses with the beat.
        _cue(out, step.pit, Cue.DROP, LEVELS if drop_on else LEVELS // 2)
    elif step.kind == "relay":
        # Opposite phase to drops, so a relay lift never reads as another drop (R5).
        _cue(out, step.pit, Cue.RELAY, 0 if drop_on and not view.paused else LEVELS)
    else:
        _cue(out, step.pit, Cue.LIFT)
    return out


def _opening(view: OpeningView, t: float) -> list[Cell]:
    out = _base(view.board, view.mover)
    if view.lifted is None:
        level = breathe(t)
        for p in view.legal:
            _cue(out, p, Cue.LEGAL, level)
        return out
    for p in range(PITS):
        if view.placed[p]:
            # Placed seeds count up in their own colour on top of what the pit held.
            out[p] = Cell(Style.PLACED, view.board[p])
    out[view.lifted] = Cell(Style.HAND, view.hand, Cue.LIFT, LEVELS if blink(t, 1.0) else 0)
    return out


def _check(view: CheckView, t: float) -> list[Cell]:
    out = _base(view.board, view.mover)
    on = LEVELS if blink(t, 2.0) else 0
    for p in view.wrong:
        _cue(out, p, Cue.WRONG, on)
    return out


def _over(view: OverView, t: float) -> list[Cell]:
    res = view.result
    out: list[Cell] = []
    level = breathe(t, 1.5)
    for side in (Side.S, Side.N):
        left = res.captured[side]
        for _ in range(ROW):
            # A bar along the row: each ring holds up to two laps of the side's captures.
            out.append(
                Cell(
                    _SIDE_STYLE[side],
                    min(left, 32),
                    Cue.LEGAL if res.winner is side else Cue.NONE,
                    level,
                )
            )
            left = max(0, left - 32)
    return out


_BLANK = (0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6)


def _blank(t: float) -> list[Cell]:
    level = breathe(t, 4.0)
    return [Cell(Style.NEUTRAL, _BLANK[p], Cue.LEGAL, level) for p in range(PITS)]


def cells(view: View, t: float, overlays: Sequence[Overlay] = ()) -> list[Cell]:
    """The 20 cells of a view at time `t`, with transient overlays on top."""
    if isinstance(view, IdleView):
        out = _idle(view, t)
    elif isinstance(view, StepsView):
        out = _steps(view, t)
    elif isinstance(view, OpeningView):
        out = _opening(view, t)
    elif isinstance(view, CheckView):
        out = _check(view, t)
    elif isinstance(view, OverView):
        out = _over(view, t)
    elif isinstance(view, RestoreView):
        out = restore_cells(view, t)
    else:
        out = _blank(t)
    for ov in overlays:
        if ov.since <= t < ov.until:
            if ov.cue in (Cue.ERROR, Cue.ENDLESS):
                if blink(t - ov.since, 4.0):  # flashes; in between the pit's own cue shows
                    _cue(out, ov.pit, ov.cue)
            else:
                _cue(out, ov.pit, ov.cue)
    return out


def render(view: View, t: float, renderer: Renderer, overlays: Sequence[Overlay] = ()) -> Frame:
    """The LED frame of a view at time `t`: 20 rings in pit index order."""
    return renderer.frame(cells(view, t, overlays))
