"""The controller: the board service, wiring gestures, session and presenter together.

Input events and ticks come in; frames go to the sink, game events to the store, API
events to the listeners. A press walks gestures → session (command table → game → store)
→ presenter (frame → API event), once each, in that order (docs/architecture.md).

Threading: the pit input may call `handle_event` from its own thread while the daemon's
loop calls `tick()` and the API calls commands; one re-entrant lock serialises them. The
controller starts no thread; an opponent's handle may search on one, and it is polled.
"""

from __future__ import annotations

import copy
import random
import threading
from collections.abc import Callable
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.clock import Clock
from kiothi_board.controller.coach import Coach
from kiothi_board.controller.commands import NewGame
from kiothi_board.controller.gestures import CHORDS, CONTROLS, Command, Gestures
from kiothi_board.controller.notices import Inputted, Notice, Started
from kiothi_board.controller.opponent import OpponentFactory
from kiothi_board.controller.presenter import Presenter
from kiothi_board.controller.session import Session
from kiothi_board.controller.settings import DEFAULT_LONG_MOVE_LAPS, Mode, Pace
from kiothi_board.guide import DEFAULT, Palette, Ring, View
from kiothi_board.hardware.protocols import Frame, InputEvent, PixelSink
from kiothi_board.listeners import Listener
from kiothi_board.rules import OpeningAction, Side, Variant, parse_pit
from kiothi_board.store.base import GameStore

__all__ = [
    "CHORDS",
    "CONTROLS",
    "Controller",
    "Listener",
    "default_settings",
]


def default_settings() -> dict[str, Any]:
    """The operator settings a fresh board starts with (stored under "operator")."""
    return {
        "palette": "default",
        "brightness": 0.5,
        "mode": "ai",
        "sides": "S",
        "level": 3,
        "pace": "step",
        "variant": {},
    }


class Controller:
    """The board service: what the daemon, the simulator and the API talk to.

    Construct with the injected sink, clock and store (and optionally an opponent factory
    or a random source for the default random opponents, and a palette); feed every
    `InputEvent` to `handle_event`; call `tick()` 20–60 times a second.
    """

    def __init__(
        self,
        *,
        sink: PixelSink,
        clock: Clock,
        store: GameStore,
        opponent_factory: OpponentFactory | None = None,
        rng: random.Random | None = None,
        palette: Palette = DEFAULT,
        hold_seconds: float = 1.0,
        flow_seconds: float = 0.5,
        over_seconds: float = 10.0,
        resume: bool = True,
        on_settings: Callable[[dict[str, Any]], None] | None = None,
        defaults: dict[str, Any] | None = None,
    ) -> None:
        """Wire the parts; with `resume`, continue the store's current game if any.

        `defaults` overrides `default_settings()` (the daemon passes the config's game
        settings), so `settings.get` and a bare `new_game` match the game the board runs.
        """
        self._lock = threading.RLock()
        self._store = store
        self._on_settings = on_settings
        self._defaults = {**default_settings(), **(defaults or {})}
        self.gestures = Gestures(hold_seconds)
        self.session = Session(
            clock=clock,
            store=store,
            opponent_factory=opponent_factory,
            rng=rng,
            flow_seconds=flow_seconds,
            over_seconds=over_seconds,
        )
        # The coach hears each notice before the presenter, so a lesson is never a step late.
        self.coach = Coach(self.session, level=LevelChoice.parse(self._defaults["level"]))
        self.presenter = Presenter(self.session, sink, palette)
        self.presenter.tutorial = lambda: self.coach.active
        self.session.notices.add(self._on_notice)
        self._closed = False
        self._presses: Callable[[InputEvent], None] = self.handle_event
        self._pictured: list[Ring] | None = None  # a picture not of the game (exhibition)
        if resume:
            self.session.resume()
        self.presenter.show()

    @classmethod
    def resume(cls, store: GameStore, **kwargs: Any) -> Controller:
        """A controller continuing `store`'s current game (same position, same guide step)."""
        kwargs.pop("resume", None)
        return cls(store=store, resume=True, **kwargs)

    def _on_notice(self, notice: Notice) -> None:
        if isinstance(notice, Started):
            self.gestures.reset()

    # ------------------------------------------------------------------ events
    @property
    def leds_per_ring(self) -> int:
        """LEDs in each pit's ring."""
        return self.presenter.sink.leds_per_ring

    def add_listener(self, listener: Listener) -> None:
        """Receive every API event dict (`position`, `guide`, `move`, `frame`, …)."""
        self.presenter.listeners.add(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop sending events to `listener`."""
        self.presenter.listeners.remove(listener)

    def add_notice_listener(self, listener: Callable[[Notice], None]) -> None:
        """Receive the session's typed notices (game events applied, games started, …)."""
        self.session.notices.add(listener)

    # ------------------------------------------------------------------ commands
    def run(self, command: Command | str, arg: Any = None) -> Any:
        """Run one command of the session's table (under the lock), then show the frame."""
        with self._lock:
            result = self.session.run(command, arg)
            self.presenter.show()
            return result

    def new_game(
        self,
        mode: Mode | str = "two",
        sides: str = "S",
        level: LevelChoice | int | str = 3,
        pace: Pace | str = "step",
        variant: Variant | dict[str, Any] | str | None = None,
        *,
        long_move_laps: int = DEFAULT_LONG_MOVE_LAPS,
    ) -> int:
        """Start a game; its store id.

        `mode`: `two` (two players), `ai` (a human plays `sides`, "S" or "N", against the
        AI at `level`), `demo` (AI against AI). `pace`: `step`, `flow` or `instant`.
        """
        return int(self.run("new_game", NewGame(mode, sides, level, pace, variant, long_move_laps)))

    def press(self, pit: int | str, *, hold: bool = False) -> None:
        """A tap on a pit, as if pressed and released on the board (`hold`: a long press)."""
        index = parse_pit(pit) if isinstance(pit, str) else pit
        now = self.session.clock.now()
        feed = self._presses
        feed(InputEvent("pressed", index, now))
        if hold:
            seconds = self.gestures.hold_seconds
            feed(InputEvent("held", index, now + seconds, seconds))
        feed(InputEvent("released", index, now))

    def route_presses(self, handler: Callable[[InputEvent], None]) -> None:
        """Send `press` (the API's and the page's) where the board's own inputs go: the
        daemon's input handler, so an exhibition's attendant sees a web press as a press."""
        self._presses = handler

    def tutorial(self) -> int:
        """Start the first-game tutorial (an opening and a relay move, guided); its id."""
        return int(self.run("tutorial"))

    def move(self, pit: int | str) -> None:
        """Choose a sowing move for the human to move (as the API does); guided like a press."""
        self.run("move", parse_pit(pit) if isinstance(pit, str) else pit)

    def opening(self, action: OpeningAction | str) -> None:
        """Submit a whole opening action for the human to move; its seeds are then guided."""
        self.run("opening", action)

    def undo(self) -> None:
        """Take back the last move (or the move in progress), guided back to the old counts."""
        self.run("undo")

    def hint(self) -> None:
        """Ask the AI (at the game's level) for a move and show it on its pit."""
        self.run("hint")

    def resign(self, side: Side | str | None = None) -> None:
        """The given side (by default the side to move) resigns (R13)."""
        self.run("resign", side)

    def end(self) -> None:
        """End the game by agreement: each player takes the seeds in their own row (R13)."""
        self.run("end")

    def abandon(self) -> None:
        """Leave the game unfinished (R13): no seeds move, no winner."""
        self.run("abandon")

    def check_board(self, on: bool | None = None) -> bool:
        """Enter (or leave, or toggle with None) board check; returns whether it is on."""
        return bool(self.run("check", on))

    def walk(self) -> None:
        """Walk a long move drop by drop instead of setting the resulting counts."""
        self.run("walk")

    def pause(self, paused: bool | None = None) -> bool:
        """Pause or resume (None: toggle) a flow animation; returns whether it is paused."""
        return bool(self.run("pause", paused))

    def set_palette(self, palette: Palette) -> None:
        """Switch the LED palette (default, colour-blind, night) from the next frame on."""
        with self._lock:
            self.presenter.set_palette(palette)
            self.presenter.show()

    # ------------------------------------------------------------------ inputs and time
    def handle_event(self, event: InputEvent) -> None:
        """Feed one input event (the handler to give `PitInput.start`)."""
        with self._lock:
            if self._closed:
                return
            self.session.tell(Inputted(event))
            for command in self.gestures.feed(event):
                self.session.run_reported(command)
            self.presenter.show()

    def tick(self) -> None:
        """Advance timers, animations and the AI at the clock's now; show the frame."""
        with self._lock:
            if self._closed:
                return
            self.session.tick()
            self.coach.tick()
            self.presenter.show()

    # ------------------------------------------------------------------ views
    def expected_pit(self) -> int | None:
        """The pit the guide is pointing the hand at now (None when it is not pointing)."""
        with self._lock:
            return self.session.expected_pit()

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot for the API (see docs/api.md, `state`)."""
        with self._lock:
            return self.presenter.state()

    def instruction(self) -> str:
        """The one line that says what to do now (the terminal, the page and the API show it)."""
        with self._lock:
            return self.presenter.instruction()

    def view(self) -> View:
        """The guide view the board shows now (without transient overlays)."""
        with self._lock:
            return self.presenter.view()

    def frame(self) -> list[Ring]:
        """The frame last shown on the rings (rendered now before the first)."""
        pictured = self._pictured
        if pictured is not None:
            return pictured
        with self._lock:
            last = self.presenter.last_frame
            return last if last is not None else self.presenter.render()

    def publish_frame(self, frame: Frame, pictured: bool) -> None:
        """A frame the rings show that this controller did not draw (`pictured`: the
        exhibition's attract loop, countdown or reset; False: the game's frame is back),
        as a `frame` event. Takes no lock: the exhibition calls it under its own."""
        self._pictured = [tuple(r) for r in frame] if pictured else None
        self.presenter.emit(
            {"type": "frame", "leds_per_ring": self.leds_per_ring, "frame": list(frame)}
        )

    # ------------------------------------------------------------------ operator and store
    def get_settings(self) -> dict[str, Any]:
        """Defaults overlaid with the stored operator settings."""
        stored = self._store.load_settings().get("operator", {})
        return copy.deepcopy({**self._defaults, **(stored if isinstance(stored, dict) else {})})

    def set_settings(self, values: dict[str, Any]) -> dict[str, Any]:
        """Store the merged settings, apply them (daemon hook), emit `settings`."""
        with self._lock:
            merged = {**self.get_settings(), **values}
            all_settings = self._store.load_settings()
            all_settings["operator"] = merged
            self._store.save_settings(all_settings)
            if self._on_settings is not None:
                self._on_settings(copy.deepcopy(merged))
            self.presenter.emit({"type": "settings", "settings": merged})
            return merged

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Stored games, newest first."""
        return self._store.list_games(limit, offset)

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """One stored game, or None when the store has none of that id."""
        try:
            return self._store.get_game(game_id)
        except KeyError:
            return None

    def close(self) -> None:
        """Cancel any search; the sink and store belong to the caller. Idempotent."""
        with self._lock:
            self.session.cancel_thinking()
            self._closed = True

    def __enter__(self) -> Controller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
