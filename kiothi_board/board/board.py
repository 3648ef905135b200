"""`Board`: the board as the rest of the house talks to it, through the one loop.

It is the API's board service (`api/service.BoardService`), the daemon's handle on the
game and what tests and tools drive: every command and query goes to the loop
(`BoardLoop.call`), every press enters the loop's queue as the board's own would, and the
frame of the moment is the loop's published `shown`. Safe from any thread.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.board.loop import BoardLoop
from kiothi_board.clock import Clock
from kiothi_board.controller import Controller, Glance
from kiothi_board.controller.commands import NewGame
from kiothi_board.controller.gestures import Command
from kiothi_board.controller.notices import Notice
from kiothi_board.controller.opponent import OpponentFactory
from kiothi_board.controller.settings import DEFAULT_LONG_MOVE_LAPS, Mode, Pace
from kiothi_board.exhibit.director import Director
from kiothi_board.frame import Frame
from kiothi_board.guide import DEFAULT, Palette, View
from kiothi_board.hardware.protocols import InputEvent, PixelSink
from kiothi_board.listeners import Listener
from kiothi_board.rules import OpeningAction, Side, Variant, parse_pit
from kiothi_board.store.base import GameStore
from kiothi_board.store.journal import Journal

__all__ = ["Board"]


class Board:
    """The controller and its loop, with the board service's methods (see the module)."""

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
        defaults: dict[str, Any] | None = None,
        director: Director | None = None,
        journal: Journal | None = None,
        tick_hz: float = 50.0,
        ticking: bool = True,
        languages: tuple[str, ...] = ("en",),
    ) -> None:
        """Build the controller on `store` and its loop drawing into `sink`; with
        `resume`, continue the store's current game. `director`: the exhibition."""
        self.store = store
        self.controller = Controller(
            clock=clock,
            store=store,
            journal=journal,
            opponent_factory=opponent_factory,
            rng=rng,
            palette=palette,
            leds_per_ring=sink.leds_per_ring,
            hold_seconds=hold_seconds,
            flow_seconds=flow_seconds,
            over_seconds=over_seconds,
            resume=resume,
            defaults=defaults,
            languages=languages,
        )
        if director is not None:
            director.start(self.controller.glance())
        self.loop = BoardLoop(
            self.controller,
            sink=sink,
            clock=clock,
            director=director,
            tick_hz=tick_hz,
            ticking=ticking,
        )
        self.clock = clock

    @classmethod
    def resume(cls, store: GameStore, **kwargs: Any) -> Board:
        """A board continuing `store`'s current game (same position, same guide step)."""
        kwargs.pop("resume", None)
        return cls(store=store, resume=True, **kwargs)

    # ------------------------------------------------------------------ parts
    @property
    def gestures(self) -> Any:
        """The controller's gesture recogniser."""
        return self.controller.gestures

    @property
    def session(self) -> Any:
        """The controller's session."""
        return self.controller.session

    @property
    def presenter(self) -> Any:
        """The controller's presenter."""
        return self.controller.presenter

    @property
    def leds_per_ring(self) -> int:
        """LEDs in each pit's ring."""
        return self.controller.leds_per_ring

    # ------------------------------------------------------------------ listeners
    def add_listener(self, listener: Listener) -> None:
        """Receive every API event dict (`position`, `guide`, `move`, `frame`, …)."""
        self.loop.listeners.add(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop sending events to `listener`."""
        self.loop.listeners.remove(listener)

    def add_notice_listener(self, listener: Callable[[Notice], None]) -> None:
        """Receive every step's typed notices, after the step."""
        self.loop.notice_listeners.add(listener)

    # ------------------------------------------------------------------ inputs and time
    def handle_event(self, event: InputEvent) -> None:
        """An input event (the handler to give `PitInput.start`)."""
        self.loop.feed(event)

    def press(self, pit: int | str, *, hold: bool = False) -> None:
        """A tap on a pit, as if pressed and released on the board (`hold`: a long press);
        it walks the loop as a board press does, and is done when this returns."""
        index = parse_pit(pit) if isinstance(pit, str) else pit
        now = self.clock.now()
        self.loop.feed(InputEvent("pressed", index, now))
        if hold:
            seconds = self.controller.gestures.hold_seconds
            self.loop.feed(InputEvent("held", index, now + seconds, seconds))
        self.loop.feed(InputEvent("released", index, now))
        self.loop.ask(lambda: None)  # after the loop took them

    def tick(self) -> None:
        """One tick at the clock's now (what the running loop does `tick_hz` times a second)."""
        self.loop.tick()

    # ------------------------------------------------------------------ commands
    def run(self, command: Command | str, arg: Any = None) -> Any:
        """Run one command of the session's table; its result."""
        return self.loop.call(lambda: self.controller.run(command, arg))

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
        """Start a game; its store id (see `Controller.new_game`)."""
        args = NewGame(mode, sides, level, pace, variant, long_move_laps)
        return int(self.run("new_game", args))

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
        self.loop.call(lambda: self.controller.set_palette(palette))

    # ------------------------------------------------------------------ reads
    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot for the API (see docs/api.md, `state`)."""
        return self.loop.ask(self.controller.state)

    def glance(self) -> Glance:
        """Where the game stands, as typed values."""
        return self.loop.ask(self.controller.glance)

    def instruction(self) -> str:
        """The one line that says what to do now."""
        return self.loop.ask(self.controller.instruction)

    def view(self) -> View:
        """The guide view the board shows now (without transient overlays)."""
        return self.loop.ask(self.controller.view)

    def expected_pit(self) -> int | None:
        """The pit the guide is pointing the hand at now (None when it is not pointing)."""
        return self.loop.ask(self.controller.expected_pit)

    def frame(self) -> Frame:
        """What the rings show now (the exhibition's pictures included)."""
        return self.loop.shown

    # ------------------------------------------------------------------ operator and store
    def get_settings(self) -> dict[str, Any]:
        """Defaults overlaid with the stored operator settings."""
        return self.loop.ask(self.controller.get_settings)

    def set_settings(self, values: dict[str, Any]) -> dict[str, Any]:
        """Store the merged settings, apply them, emit `settings`; the merged settings."""
        merged: dict[str, Any] = self.loop.call(lambda: self.controller.set_settings(values))
        return merged

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Stored games, newest first (read from the store, off the loop)."""
        return self.controller.list_games(limit, offset)

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """One stored game, or None when the store has none of that id."""
        return self.controller.get_game(game_id)

    # ------------------------------------------------------------------ life
    def start(self) -> Board:
        """Run the loop on a thread of its own (it ticks by itself)."""
        self.loop.start()
        return self

    def close(self) -> None:
        """Stop the loop, cancel any search; the sink and store belong to the caller."""
        self.loop.close()

    def __enter__(self) -> Board:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
