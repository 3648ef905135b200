"""The attract loop and the other exhibit pictures, as pure frame generators (L3).

Each show is a value with a `duration` and `frame(t)` for `0 <= t < duration`, drawn with
the guide's renderer and palette so it looks like the game it invites to. `AttractLoop`
plays shows one after another; nothing here reads a clock (the caller passes `t`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kiothi_board.errors import KiothiError
from kiothi_board.frame import RGB, Frame
from kiothi_board.guide import (
    LEVELS,
    BlankView,
    Cell,
    Cue,
    IdleView,
    Renderer,
    Ring,
    Style,
    breathe,
    render,
    sow_steps,
    sow_view,
)
from kiothi_board.rules import GameRecord, Position, SowTrace, parse_record

__all__ = [
    "AttractLoop",
    "ClosedGlow",
    "Countdown",
    "Invitation",
    "ReplayShow",
    "Show",
    "SowingShow",
    "dim",
    "relay_move",
]

PITS = 20


class Show(Protocol):
    """One animation of the attract loop."""

    @property
    def duration(self) -> float:
        """Seconds it lasts."""
        ...

    def frame(self, t: float) -> Frame:
        """The frame `t` seconds after it began."""
        ...


def dim(rings: Sequence[Ring], k: float) -> list[Ring]:
    """Every LED of any rings scaled by `k` (0…1), rounded down, as `Frame.dim` does."""
    k = min(max(0.0, k), 1.0)
    return [tuple((int(r * k), int(g * k), int(b * k)) for r, g, b in ring) for ring in rings]


class _Games(Protocol):
    def list_games(self, limit: int = ..., offset: int = ...) -> list[dict[str, Any]]: ...

    def get_game(self, game_id: int) -> dict[str, Any] | None: ...


def recent_replays(store: _Games, n: int) -> list[GameRecord]:
    """Up to `n` of the last finished games, for the attract loop to replay."""
    records: list[GameRecord] = []
    for summary in store.list_games(20):
        if summary.get("status") != "finished" or len(records) >= n:
            continue
        try:
            records.append(parse_record(store.get_game(int(summary["id"])) or {}))
        except (KiothiError, ValueError):
            continue  # a record this build cannot replay is simply not shown
    return records


def relay_move(rng: random.Random, tries: int = 400) -> tuple[Position, SowTrace]:
    """A position and a move from it that relays and captures: the game's signature."""
    best: tuple[Position, SowTrace] | None = None
    for _ in range(tries):
        pos = Position.initial().open("pass").open("pass")
        while not pos.over:
            nxt, trace = pos.play_traced(rng.choice(pos.legal_moves()))
            if trace.relays and trace.captures:
                return pos, trace
            if best is None and trace.relays:
                best = pos, trace
            pos = nxt
    if best is None:
        raise RuntimeError("no relay sowing found")  # cannot happen with the standard rules
    return best


@dataclass(frozen=True)
class SowingShow:
    """A relay sowing played out step by step, as the guide would lead a hand through it."""

    position: Position
    trace: SowTrace
    renderer: Renderer
    step_seconds: float = 0.45
    hold_seconds: float = 2.0

    @property
    def duration(self) -> float:
        """All steps, then the result held for a moment."""
        return len(sow_steps(self.trace)) * self.step_seconds + self.hold_seconds

    def frame(self, t: float) -> Frame:
        """The step the animation has reached at `t`."""
        steps = len(sow_steps(self.trace))
        index = min(int(t / self.step_seconds), steps - 1)
        return render(sow_view(self.position, self.trace, index), t, self.renderer)


@dataclass(frozen=True)
class ReplayShow:
    """A stored game replayed move by move: the counts after each move, the mover's row lit."""

    positions: tuple[Position, ...]
    renderer: Renderer
    move_seconds: float = 1.2

    @classmethod
    def of(
        cls, record: GameRecord, renderer: Renderer, *, limit: int = 30, move_seconds: float = 1.2
    ) -> ReplayShow:
        """The first `limit` positions of a game record (the opening skipped)."""
        positions = [p for _, _, p in record.replay() if p.phase != "opening"]
        return cls(tuple(positions[:limit]) or (Position.initial(),), renderer, move_seconds)

    @property
    def duration(self) -> float:
        """One interval per position."""
        return len(self.positions) * self.move_seconds

    def frame(self, t: float) -> Frame:
        """The position reached at `t`."""
        i = min(int(t / self.move_seconds), len(self.positions) - 1)
        return render(IdleView(self.positions[i]), t, self.renderer)


@dataclass(frozen=True)
class Invitation:
    """ "Press any pit": the start layout with a slow wave running along both rows."""

    renderer: Renderer
    seconds: float = 8.0
    wave_period: float = 4.0

    @property
    def duration(self) -> float:
        """As configured."""
        return self.seconds

    def frame(self, t: float) -> Frame:
        """Each pit breathes a little after its neighbour, counter-clockwise as seeds go."""
        cells = []
        for p in range(PITS):
            phase = p / PITS * self.wave_period
            level = breathe(t + phase, self.wave_period)
            cells.append(Cell(Style.SOUTH if p < 10 else Style.NORTH, 4, Cue.LEGAL, level))
        return self.renderer.frame(cells)


@dataclass(frozen=True)
class ClosedGlow:
    """Outside opening hours: every ring a faint, very slow glow (or dark)."""

    renderer: Renderer
    dark: bool = False
    period: float = 12.0

    @property
    def duration(self) -> float:
        """Endless: one period, repeated."""
        return self.period

    def frame(self, t: float) -> Frame:
        """A dim neutral arc that swells and fades once a period."""
        if self.dark:
            return Frame.black(self.renderer.leds)
        level = max(1, breathe(t, self.period) // 3)
        return render(BlankView(), 0.0, self.renderer).dim(level / LEVELS)


@dataclass(frozen=True)
class Countdown:
    """An abandoned game's countdown drawn over the game: an amber arc shrinking on every
    ring, the game itself dimmed beneath it."""

    leds: int
    colour: RGB = (255, 120, 0)

    def over(self, frame: Frame, remaining: float, total: float) -> Frame:
        """`frame` with the countdown `remaining` of `total` seconds drawn on it."""
        lit = max(0, min(self.leds, math.ceil(self.leds * remaining / total))) if total else 0
        base = frame.dim(0.3)
        pulse = 0.55 + 0.45 * (remaining % 1.0)  # a beat each second
        amber = (int(self.colour[0] * pulse), int(self.colour[1] * pulse), 0)
        return Frame(
            tuple(amber if i < lit else ring[i] for i in range(self.leds)) for ring in base
        )


@dataclass
class AttractLoop:
    """Shows one after another: invitation, a relay sowing, invitation, a replay, …

    `replays` are stored games to show (the daemon gives a few recent ones); without
    any, random relay sowings take their place.
    """

    renderer: Renderer
    rng: random.Random
    replays: list[GameRecord] = field(default_factory=list)
    invitation_seconds: float = 8.0
    _show: Show | None = None
    _since: float = 0.0
    _count: int = 0

    def restart(self, t: float) -> None:
        """Begin again with an invitation at `t`."""
        self._show, self._since, self._count = None, t, 0

    @property
    def showing(self) -> str:
        """The current show in a plain word (for the API and tests): "invitation" (the
        breathing start layout), "sowing" (a relay move sown seed by seed) or "replay" (a
        recent game replayed)."""
        if isinstance(self._show, SowingShow):
            return "sowing"
        return "replay" if isinstance(self._show, ReplayShow) else "invitation"

    def _next(self) -> Show:
        self._count += 1
        if self._count % 2 == 1:
            return Invitation(self.renderer, self.invitation_seconds)
        if self.replays and self._count % 4 == 0:
            record = self.replays[(self._count // 4) % len(self.replays)]
            return ReplayShow.of(record, self.renderer)
        pos, trace = relay_move(self.rng)
        return SowingShow(pos, trace, self.renderer)

    def frame(self, t: float) -> Frame:
        """The loop's frame at `t` (shows advance as their durations pass)."""
        if self._show is None:
            self._show = self._next()
            self._since = t
        if t - self._since > 60 * self._show.duration:
            self._since = t - self._show.duration  # a long gap (a jump of the clock): move on
        while t - self._since >= self._show.duration:
            self._since += self._show.duration
            self._show = self._next()
        return self._show.frame(t - self._since)
