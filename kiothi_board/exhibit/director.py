"""The exhibit director: the attendant, the attract loop and the counters (L3, no library).

The board loop (kiothi_board.board) calls it three times a step and it calls nobody:

- `decide(event)` / `tick(human_to_move)`: a filter in front of the game. It counts the
  press for the curators and, with exhibition mode on, its attendant decides what the
  press means (in a game: pass it on; in the attract loop: wake the board; in the reset:
  tick a pit off) and when a game starts, a hint is offered or an idle game is abandoned.
  It returns actions; the loop carries them out on the controller.
- `observe(notices)`: it follows the game through the step's typed notices (games started
  and finished, wrong presses, hints, the board the game leaves).
- `compose(game_frame)`: what the rings show, the game's frame (dimmed by the schedule) or
  one of its own pictures: the attract loop, the countdown, the reset, the closed glow.

Its counters wait in `take_counts()` for the loop to commit with the step's other writes.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from typing import Any

from kiothi_board.clock import Clock
from kiothi_board.controller.game import expected_board
from kiothi_board.controller.glance import Glance
from kiothi_board.controller.notices import (
    Applied,
    Failure,
    Finished,
    HintReady,
    Notice,
    Started,
    Wrong,
)
from kiothi_board.exhibit.attendant import (
    FIRST_LEVEL,
    AbandonGame,
    Action,
    Attendant,
    Forward,
    OfferHint,
    ResetDone,
    StartGame,
)
from kiothi_board.exhibit.attract import (
    AttractLoop,
    ClosedGlow,
    Countdown,
    Invitation,
    recent_replays,
)
from kiothi_board.exhibit.ports import ExhibitSettings
from kiothi_board.exhibit.reset import ResetPicture, left_by_last_game
from kiothi_board.exhibit.schedule import Moment, Schedule
from kiothi_board.exhibit.words import THEN_RESET, THEN_RESET_CLOSED, phase_line
from kiothi_board.frame import Frame
from kiothi_board.guide import OverView, Renderer
from kiothi_board.guide.instructions import over_line
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.rules import pit_name
from kiothi_board.store.base import GameStore

__all__ = ["Director", "ExhibitSettings"]

_AT_START = ("reset", "attract", "waking", "closed")

log = logging.getLogger(__name__)


class Director:
    """Runs the exhibition (see the module docstring)."""

    def __init__(
        self,
        settings: ExhibitSettings,
        *,
        clock: Clock,
        store: GameStore,
        schedule: Schedule,
        renderer: Renderer,
        seed: int = 0,
    ) -> None:
        """`store` is read for the totals so far and the games the attract loop replays."""
        self.settings = settings
        self.schedule = schedule
        self._clock = clock
        self._store = store
        self._renderer = renderer
        self.attendant = Attendant(settings.timing, clock.now(), playing=False)
        self.attract = AttractLoop(renderer, random.Random(seed))
        self._countdown = Countdown(renderer.leds)
        self._reset = ResetPicture(renderer)
        self._moment: Moment = schedule.at(clock.wall())
        self._game_frame: Frame | None = None
        self._board: tuple[int, ...] | None = None  # the counts the last game left
        self._result: OverView | None = None  # the last game's result, while it shows
        self.presses = [0] * 20
        self.totals = {"started": 0, "finished": 0, "abandoned": 0}
        self.faults = {"input_faults": 0, "wrong": 0, "hints": 0, "errors": 0}
        self._counts: dict[str, int] = {}
        self._game_open = False
        self.enabled = settings.enabled

    # ------------------------------------------------------------------ start
    def start(self, glance: Glance) -> None:
        """Begin where the board is: playing if it resumed a game, else asking for a reset."""
        self._game_open = glance.stage in ("open", "turn", "sow", "guided_open", "set")
        self._board = glance.board if glance.board is not None else left_by_last_game(self._store)
        self._new_attendant()
        self._load_totals()
        self._count("restarts")
        self.attract.replays = recent_replays(self._store, self.settings.replays)

    def _new_attendant(self) -> None:
        self.attendant = Attendant(
            self.settings.timing,
            self._clock.now(),
            playing=self._game_open,
            is_open=self._moment.open,
        )

    def _load_totals(self) -> None:
        from kiothi_board.exhibit.stats import stored_totals

        games, counts = stored_totals(self._store)
        for key in self.totals:
            self.totals[key] += games[key]
        for p in range(20):
            self.presses[p] += counts.get(f"press.{pit_name(p)}", 0)
        for key in self.faults:
            self.faults[key] += counts.get(key, 0)

    def set_enabled(self, on: bool) -> None:
        """Switch exhibition mode on or off while the board runs (staff only, via the API).

        Off, the director steps aside: presses go straight to the game, the game's frames
        straight to the rings; it still counts what curators count. On, it takes over
        where the board is: a game in progress plays on, otherwise it asks for the reset.
        """
        if on == self.enabled:
            return
        self.enabled = on
        if on:
            self._new_attendant()
        log.warning("exhibit: exhibition mode switched %s", "on" if on else "off")

    # ------------------------------------------------------------------ counters
    def _count(self, key: str, n: int = 1) -> None:
        self._counts[key] = self._counts.get(key, 0) + n

    def take_counts(self) -> dict[str, dict[str, int]]:
        """Today's counters since the last call, by day, for the step's one write."""
        counts, self._counts = self._counts, {}
        return {self._moment.day: counts} if counts else {}

    def input_fault(self) -> None:
        """A stuck button or a lost co-processor link."""
        self.faults["input_faults"] += 1
        self._count("input_faults")

    def link_down(self) -> None:
        """The co-processor link went down (counted as an input fault too)."""
        self.input_fault()
        self._count("link_down")

    # ------------------------------------------------------------------ before the game
    def decide(self, event: InputEvent) -> list[Action]:
        """One input event: count it, then what it means (off: it goes to the game)."""
        if event.kind == "pressed" and 0 <= event.pit < 20 and event.control is None:
            self.presses[event.pit] += 1
            self._count(f"press.{pit_name(event.pit)}")
        elif event.kind == "stuck":
            self.input_fault()
        if not self.enabled:
            return [Forward(event)]
        now = self._clock.now()
        actions = self._reset_input(event, now)
        actions += self.attendant.on_input(event, now)
        return self._started(actions)

    def _reset_input(self, event: InputEvent, now: float) -> list[Action]:
        """While the board waits for its reset: taps tick pits off, sensed seeds count."""
        if self.attendant.phase != "reset" or not 0 <= event.pit < 20:
            return []
        if event.kind == "pressed" and event.control is None:
            self._reset.tap(event.pit)
        elif event.kind == "dropped" and self._reset.drop(event.pit):
            return self.attendant.on_sensors_confirm(now)
        return []

    def sensors_confirm(self) -> list[Action]:
        """Seed sensors report the start position."""
        return self._started(self.attendant.on_sensors_confirm(self._clock.now()))

    def tick(self, human_to_move: bool) -> list[Action]:
        """Schedules and the attendant's timers; the actions they call for."""
        self._moment = self.schedule.at(self._clock.wall())
        if not self.enabled:
            return []
        actions = self.attendant.tick(
            self._clock.now(), is_open=self._moment.open, human_to_move=human_to_move
        )
        return self._started(actions)

    def _started(self, actions: list[Action]) -> list[Action]:
        """Fill in the games the attendant starts; note the hints it offers."""
        out: list[Action] = []
        s = self.settings
        for action in actions:
            if isinstance(action, ResetDone):
                self._reset.clear()
            elif isinstance(action, StartGame):
                level = s.level if action.mode == "ai" else FIRST_LEVEL
                action = StartGame(action.mode, action.side, level, s.pace, s.variant,
                                   s.long_move_laps)  # fmt: skip
            elif isinstance(action, OfferHint):
                self._count("hints_offered")
            elif isinstance(action, AbandonGame) and not self._game_open:
                continue
            out.append(action)
        return out

    # ------------------------------------------------------------------ after the game
    def observe(self, notices: Sequence[Notice]) -> None:
        """Follow the game through one step's notices."""
        now = self._clock.now()
        for notice in notices:
            match notice:
                case Started(_, _, game):
                    self._game_open = True
                    self._board = expected_board(game)
                    self.totals["started"] += 1
                    if self.attendant.phase not in ("playing", "countdown"):
                        self.attendant.on_game_started(now)
                case Applied(_, _, new):
                    self._board = expected_board(new)
                    self.attendant.on_game_activity(now)
                    if new.stage == "over" and new.result is not None:
                        stuck = new.position.to_move if new.result.end == "no-moves" else None
                        self._result = OverView(new.result, stuck)
                case Finished(_, outcome, _, _):
                    self._game_over(None if outcome is None else outcome.end, now)
                case Wrong():
                    self._fault("wrong")
                case HintReady(offered=False):
                    self._fault("hints")  # asked for: offered ones are counted when offered
                case Failure():
                    self._fault("errors")

    def _game_over(self, end: str | None, now: float) -> None:
        if not self._game_open:
            return
        self._game_open = False
        self.totals["abandoned" if end == "abandoned" else "finished"] += 1
        self.attendant.on_game_over(now)

    def _fault(self, key: str) -> None:
        self.faults[key] += 1
        self._count(key)

    # ------------------------------------------------------------------ the rings
    def compose(self, game: Frame) -> tuple[Frame, float]:
        """What the rings show now and at what brightness: the game's frame while a game is
        played (or with exhibition mode off), else the director's own picture."""
        self._game_frame = game
        if not self.enabled:
            return game, 1.0
        phase = self.attendant.phase
        now = self._clock.now()
        m = self._moment
        if phase == "playing":
            return game, m.brightness
        if phase == "countdown":
            left = self.attendant.countdown_left(now) or 0.0
            return self._countdown.over(game, left, self.settings.timing.countdown), m.brightness
        if phase == "closed":
            glow = ClosedGlow(self._renderer, dark=self.settings.closed == "dark")
            return glow.frame(now), m.brightness
        if phase == "reset":
            if self._board is not None:  # the same board again keeps the pits ticked off
                self._reset.before = self._board
            return self._reset.frame(now), m.brightness
        if m.quiet:  # quiet hours: no animation, a dim invitation only
            return Invitation(self._renderer).frame(
                0.0
            ), m.brightness * self.settings.quiet_brightness
        if phase == "waking":
            return Invitation(self._renderer, wave_period=0.8).frame(now), m.brightness
        return self.attract.frame(now), m.brightness * self.settings.attract_brightness

    def _result_line(self) -> str | None:
        """While a result shows, the game-over line saying what follows: the reset (the
        game's own line would invite a new game, which the attendant does not start)."""
        if not self.enabled or not self.attendant.showing_result or self._result is None:
            return None
        return over_line(self._result, THEN_RESET if self._moment.open else THEN_RESET_CLOSED)

    def _holds(self) -> list[int] | None:
        """During the reset, what the pits hold (as the last game left them, when known)."""
        before = self._board if self._board is not None else self._reset.before
        return None if before is None else list(before)

    def pictured(self) -> bool:
        """Whether the rings show one of the director's pictures rather than the game."""
        return self.enabled and self.attendant.phase != "playing"

    # ------------------------------------------------------------------ reports
    def status(self) -> dict[str, Any]:
        """The exhibit's state for the API: phase, countdown, schedule, the attract show, the
        line to show instead of the game's (`instruction`), the counts the pits hold or must
        hold while no game is on (`board`), and during the reset the pits still to set
        (`pending`) and what they hold (`holds`)."""
        now = self._clock.now()
        left = self.attendant.countdown_left(now)
        m = self._moment
        phase = self.attendant.phase if self.enabled else "off"
        reset = phase == "reset"
        return {
            "enabled": self.enabled,
            "phase": phase,
            "countdown": None if left is None else round(left, 1),
            "open": m.open,
            "quiet": m.quiet,
            "brightness": m.brightness,
            "day": m.day,
            "showing": self.attract.showing if self.attendant.phase == "attract" else None,
            "instruction": self._result_line()
            or phase_line(phase, left, self._reset.instruction() if reset else None),
            # The reset's targets; after it (attract, waking, closed) the board holds them.
            "board": list(self._reset.target) if phase in _AT_START else None,
            "pending": [pit_name(p) for p in self._reset.differs()] if reset else None,
            "holds": self._holds() if reset else None,
        }
