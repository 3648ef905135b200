"""The exhibit director: the attendant, the attract loop and the statistics, wired to the
game controller, the LED sink and the store (L3: protocols only, no library).

Placement: the pit input's handler is `director.handle_event` (it decides whether a press
goes to the game); the controller draws into `director.sink` (a pass-through while a game
is on, replaced by the attract loop, the countdown or the reset picture otherwise); the
director listens to the controller's API events to follow games and count what
curators want counted; the daemon calls `tick()` from its loop.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from collections.abc import Callable, Sequence
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.clock import Clock
from kiothi_board.errors import KiothiError
from kiothi_board.exhibit.attendant import (
    Abandon,
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
    dim_cached,
    recent_replays,
)
from kiothi_board.exhibit.health import RateMeter
from kiothi_board.exhibit.ports import ExhibitSettings, GameControl
from kiothi_board.exhibit.reset import ResetPicture
from kiothi_board.exhibit.schedule import Moment, Schedule
from kiothi_board.guide import Renderer, Ring
from kiothi_board.hardware.protocols import Frame, InputEvent, PixelSink
from kiothi_board.rules import pit_name
from kiothi_board.store.base import CountStore, GameStore

__all__ = ["Director", "ExhibitSettings", "GameControl"]

log = logging.getLogger(__name__)


class _Sink:
    """The sink the controller draws into: remembers the game's frame, passes it on while
    the director lets it."""

    def __init__(self, director: Director, inner: PixelSink) -> None:
        self._director = director
        self.inner = inner

    @property
    def leds_per_ring(self) -> int:
        return self.inner.leds_per_ring

    def show(self, frame: Frame) -> None:
        self._director._game_frame(frame)

    def close(self) -> None:
        self.inner.close()


class Director:
    """Runs the exhibition (see the module docstring)."""

    def __init__(
        self,
        settings: ExhibitSettings,
        *,
        sink: PixelSink,
        clock: Clock,
        store: GameStore,
        schedule: Schedule,
        renderer: Renderer,
        seed: int = 0,
    ) -> None:
        """Wire to the real sink; call `attach(controller)` once the controller exists."""
        self.settings = settings
        self.schedule = schedule
        self._clock = clock
        self._store = store
        self._counts: CountStore | None = store if isinstance(store, CountStore) else None
        self._out = sink
        self.sink = _Sink(self, sink)
        self._renderer = renderer
        self._lock = threading.RLock()
        self._controller: GameControl | None = None
        self.attendant = Attendant(settings.timing, clock.now(), playing=False)
        self.attract = AttractLoop(renderer, random.Random(seed))
        self._countdown = Countdown(sink.leds_per_ring)
        self._reset = ResetPicture(renderer)
        self._last_game_frame: list[Ring] | None = None
        self._showing_game = False
        self._moment = schedule.at(clock.wall())
        self.frames = RateMeter()
        self.presses = [0] * 20
        self.totals = {"started": 0, "finished": 0, "abandoned": 0}
        self.faults = {"input_faults": 0, "wrong": 0, "hints": 0, "errors": 0}
        self._offering_hint = False
        self._game_open = False
        self._last_guide: tuple[object, str] | None = None
        self._last_out: list[Ring] | None = None
        self._dimmed: dict[tuple[Ring, float], Ring] = {}
        self.enabled = settings.enabled
        # Where the director's own pictures go besides the rings (the daemon wires the API's
        # frame events: the web twin shows what the rings show). Called under `_lock`.
        self.publish: Callable[[Frame, bool], None] | None = None

    # ------------------------------------------------------------------ wiring
    def attach(self, controller: GameControl) -> None:
        """Follow `controller`'s games; resume into `playing` if it has one on."""
        self._controller = controller
        stage = controller.state().get("stage")
        now = self._clock.now()
        self._game_open = stage in ("open", "turn")
        self.attendant = Attendant(
            self.settings.timing, now, playing=self._game_open, is_open=self._moment.open
        )
        self._load_totals()
        self._count({"restarts": 1})
        controller.add_listener(self._on_event)
        self._load_replays()

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
        with self._lock:
            if on == self.enabled:
                return
            self.enabled = on
            now = self._clock.now()
            if on:
                self.attendant = Attendant(
                    self.settings.timing, now, playing=self._game_open, is_open=self._moment.open
                )
                self._showing_game = False
                self._draw()
            elif self._last_game_frame is not None:
                self._show(self._last_game_frame, 1.0)
            log.warning("exhibit: exhibition mode switched %s", "on" if on else "off")

    def _load_replays(self) -> None:
        """A few recent finished games for the attract loop to replay."""
        self.attract.replays = recent_replays(self._store, self.settings.replays)

    def _count(self, counts: dict[str, int]) -> None:
        """Add to today's counters in the store (committed before it returns)."""
        if self._counts is None:
            return
        try:
            self._counts.add_counts(self._moment.day, counts)
        except KiothiError:
            log.exception("exhibit: could not store counters %r", counts)

    # ------------------------------------------------------------------ inputs
    def handle_event(self, event: InputEvent) -> None:
        """The pit input's handler (the board's and the API's presses): count, then let the
        attendant decide."""
        with self._lock:
            if event.kind == "pressed" and 0 <= event.pit < 20 and event.control is None:
                self.presses[event.pit] += 1
                self._count({f"press.{pit_name(event.pit)}": 1})
            elif event.kind == "stuck":
                self.input_fault()
            enabled = self.enabled
            if enabled:
                actions = self._reset_input(event)
                actions += self.attendant.on_input(event, self._clock.now())
                if any(isinstance(a, ResetDone) for a in actions):
                    self._reset.clear()
            else:
                actions = [Forward(event)]  # off: straight to the game
        self._act(actions)
        if enabled:
            with self._lock:
                self._draw()

    def _reset_input(self, event: InputEvent) -> list[Action]:
        """While the board waits for its reset: taps tick pits off, sensed seeds count."""
        if self.attendant.phase != "reset" or not 0 <= event.pit < 20:
            return []
        if event.kind == "pressed" and event.control is None:
            self._reset.tap(event.pit)
        elif event.kind == "dropped" and self._reset.drop(event.pit):
            return self.attendant.on_sensors_confirm(self._clock.now())
        return []

    def input_fault(self) -> None:
        """A stuck button or a lost co-processor link."""
        with self._lock:
            self.faults["input_faults"] += 1
            self._count({"input_faults": 1})

    def link_down(self) -> None:
        """The co-processor link went down (counted as an input fault too)."""
        with self._lock:
            self.faults["input_faults"] += 1
            self._count({"input_faults": 1, "link_down": 1})

    def sensors_confirm(self) -> None:
        """Seed sensors report the start position."""
        with self._lock:
            actions = self.attendant.on_sensors_confirm(self._clock.now())
            if actions:
                self._reset.clear()
        self._act(actions)

    # ------------------------------------------------------------------ controller events
    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        now = self._clock.now()
        with self._lock:
            if kind == "new_game":
                if self._game_open:
                    self.totals["abandoned"] += 1  # replaced before it ended
                self._game_open = True
                self.totals["started"] += 1
                if self.attendant.phase not in ("playing", "countdown"):
                    self.attendant.on_game_started(now)
            elif kind == "game_over":
                self._game_over(event, now)
            elif kind == "wrong":
                self._fault("wrong")
            elif kind == "hint":
                if not self._offering_hint:
                    self._fault("hints")
            elif kind == "error":
                self._fault("errors")
            elif kind in ("move", "capture", "position"):
                self.attendant.on_game_activity(now)
            elif kind == "guide":
                # The game moved on only if the guide did: a hint or a redraw is no move.
                key = (event.get("stage"), json.dumps(event.get("step"), sort_keys=True))
                if key != self._last_guide:
                    self._last_guide = key
                    self.attendant.on_game_activity(now)

    def _game_over(self, event: dict[str, Any], now: float) -> None:
        if not self._game_open:
            return
        self._game_open = False
        result = event.get("result") or {}
        ended = result.get("end") if isinstance(result, dict) else None
        self.totals["abandoned" if ended == "abandoned" else "finished"] += 1
        self.attendant.on_game_over(now)

    def _fault(self, key: str) -> None:
        self.faults[key] += 1
        self._count({key: 1})

    # ------------------------------------------------------------------ actions
    def _act(self, actions: Sequence[Action]) -> None:
        """Carry out the attendant's actions on the controller (never under `_lock`)."""
        control = self._controller
        if control is None:
            return
        for action in actions:
            try:
                if isinstance(action, Forward):
                    control.handle_event(action.event)
                elif isinstance(action, StartGame):
                    self._start(control, action)
                elif isinstance(action, Abandon):
                    if self._game_open:
                        control.abandon()
                elif isinstance(action, OfferHint):
                    self._offer_hint(control)
            except KiothiError as exc:
                log.info("exhibit: %s failed: %s", type(action).__name__, exc)

    def _start(self, control: GameControl, action: StartGame) -> None:
        s = self.settings
        level = s.level if action.mode == "ai" else LevelChoice(1)
        control.new_game(
            action.mode, action.side, level, s.pace, s.variant, long_move_laps=s.long_move_laps
        )

    def _offer_hint(self, control: GameControl) -> None:
        self._offering_hint = True
        try:
            control.hint()
            self._count({"hints_offered": 1})
        finally:
            self._offering_hint = False

    # ------------------------------------------------------------------ time and frames
    def tick(self) -> None:
        """Schedules, the attendant's timers, and the frame of the moment."""
        # The controller draws into this director under its own lock, so the director never
        # calls the controller while holding its lock (that order would deadlock).
        with self._lock:
            self._moment = self.schedule.at(self._clock.wall())
            if not self.enabled:
                return
        state = self._controller.state() if self._controller is not None else {}
        human = bool(state.get("expect")) or (
            state.get("stage") in ("open", "turn") and not state.get("ai_to_move")
        )
        with self._lock:
            now = self._clock.now()
            if not self.enabled:
                return  # switched off while the controller was asked
            actions = self.attendant.tick(now, is_open=self._moment.open, human_to_move=human)
        self._act(actions)
        with self._lock:
            self._draw()

    def _game_frame(self, frame: Frame) -> None:
        with self._lock:
            self._last_game_frame = [tuple(r) for r in frame]
            if not self.enabled:
                self._show(frame, 1.0)
            elif self.attendant.phase == "playing":
                self._show(frame, self._moment.brightness)
            elif self.attendant.phase == "reset":
                board = (self._controller.state() if self._controller else {}).get("board")
                if board and len(board) == 20:
                    self._reset.before = tuple(int(n) for n in board)

    def _show(self, frame: Frame, level: float, *, game: bool = True) -> None:
        back = game and not self._showing_game  # the game returns after a picture of ours
        self._showing_game = game
        if self.publish is not None and (back or not game):
            self.publish(frame, not game)
        out = self._dim(frame, level)
        if out == self._last_out:
            return  # the rings already show it
        self._last_out = out
        self.frames.mark(self._clock.now())
        self._out.show(out)

    def _dim(self, frame: Frame, level: float) -> list[Ring]:
        return dim_cached(self._dimmed, frame, level)

    def _draw(self) -> None:
        """The director's own pictures, for every phase but a game in play."""
        phase = self.attendant.phase
        now = self._clock.now()
        m: Moment = self._moment
        level = m.brightness
        frame: list[Ring] | None = None
        if phase == "playing":
            if not self._showing_game and self._last_game_frame is not None:
                self._show(self._last_game_frame, level)  # back from the countdown
            return
        if phase == "countdown" and self._last_game_frame is not None:
            left = self.attendant.countdown_left(now) or 0.0
            total = self.settings.timing.countdown
            frame = self._countdown.over(self._last_game_frame, left, total)
        elif phase == "closed":
            frame = ClosedGlow(self._renderer, dark=self.settings.closed == "dark").frame(now)
        elif phase == "reset":
            frame = self._reset.frame(now)
        elif phase in ("attract", "waking"):
            if m.quiet:  # quiet hours: no animation, a dim invitation only
                frame = Invitation(self._renderer).frame(0.0)
                level *= self.settings.quiet_brightness
            elif phase == "waking":
                frame = Invitation(self._renderer, wave_period=0.8).frame(now)
            else:
                frame = self.attract.frame(now)
                level *= self.settings.attract_brightness
        if frame is not None:
            self._show(frame, level, game=False)

    # ------------------------------------------------------------------ reports
    def status(self) -> dict[str, Any]:
        """The exhibit's state for the API: phase, countdown, schedule, the attract show."""
        with self._lock:
            now = self._clock.now()
            left = self.attendant.countdown_left(now)
            m = self._moment
            phase = self.attendant.phase if self.enabled else "off"
            return {
                "enabled": self.enabled,
                "phase": phase,
                "countdown": None if left is None else round(left, 1),
                "open": m.open,
                "quiet": m.quiet,
                "brightness": m.brightness,
                "day": m.day,
                "showing": self.attract.showing if self.attendant.phase == "attract" else None,
                "instruction": self._reset.instruction() if phase == "reset" else None,
            }
