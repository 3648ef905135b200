"""`Board`: the board as the rest of the house talks to it, through the one loop.

It is the API's board service (`api/service.BoardService`), the daemon's handle on the
game and what tests and tools drive: `call(name, **args)` runs a command of the table
(kiothi_board/controller/table.py) on the loop, `ask(query)` reads the controller there,
`press` enters the loop's queue as the board's own press would, `state` and `frame` are
what the API shows. Safe from any thread.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

from kiothi_board.board.loop import BoardLoop
from kiothi_board.board.speech import Voice
from kiothi_board.clock import Clock
from kiothi_board.controller import TABLE, CommandTable, Controller, Presenter, Session
from kiothi_board.controller.gestures import Command, Gestures
from kiothi_board.controller.notices import Notice
from kiothi_board.controller.opponent import OpponentFactory
from kiothi_board.errors import BadArgumentError
from kiothi_board.exhibit.director import Director
from kiothi_board.frame import Frame
from kiothi_board.guide import DEFAULT, Palette
from kiothi_board.hardware.protocols import InputEvent, PixelSink
from kiothi_board.listeners import Listener
from kiothi_board.rules import parse_pit
from kiothi_board.store.base import GameStore
from kiothi_board.store.journal import Journal

__all__ = ["Board"]

T = TypeVar("T")


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
        table: CommandTable = TABLE,
        voice: Voice | None = None,
    ) -> None:
        """Build the controller on `store` and its loop drawing into `sink`; with
        `resume`, continue the store's current game. `director`: the exhibition; `voice`:
        the board's voice (kiothi_board/board/speech.py)."""
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
            table=table,
        )
        self.table = table
        if director is not None:
            director.start(self.controller.glance())
        self.loop = BoardLoop(
            self.controller,
            sink=sink,
            clock=clock,
            director=director,
            tick_hz=tick_hz,
            ticking=ticking,
            voice=voice,
        )
        self.clock = clock

    @classmethod
    def resume(cls, store: GameStore, **kwargs: Any) -> Board:
        """A board continuing `store`'s current game (same position, same guide step)."""
        kwargs.pop("resume", None)
        return cls(store=store, resume=True, **kwargs)

    # ------------------------------------------------------------------ parts
    @property
    def gestures(self) -> Gestures:
        """The controller's gesture recogniser."""
        return self.controller.gestures

    @property
    def session(self) -> Session:
        """The controller's session."""
        return self.controller.session

    @property
    def presenter(self) -> Presenter:
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

    # ------------------------------------------------------------------ commands and reads
    def call(self, name: str, /, **args: Any) -> Any:
        """Run command `name` of the table with `args` (checked and typed by its spec, as a
        door does: an `ArgError` names a bad one); the handler's result. It runs on the
        loop, as one step, unless it only reads the store."""
        spec = self.table.get(name)
        if spec is None or spec.handler is None:
            raise BadArgumentError(f"no command {name!r} runs on the board")
        value = spec.value(spec.read(args))
        if not spec.on_loop:
            return spec.handler(self.controller, value)
        return self.loop.call(lambda: self.controller.run(Command(name, value)))

    def ask(self, query: Callable[[Controller], T]) -> T:
        """Run `query(controller)` on the loop (a read: `Controller.glance`, `.view`,
        `.instruction`, `.expected_pit`, …) and return what it returns."""
        return self.loop.ask(lambda: query(self.controller))

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot for the API (see docs/api.md, `state`)."""
        return self.loop.ask(self.controller.state)

    def frame(self) -> Frame:
        """What the rings show now (the exhibition's pictures included)."""
        return self.loop.shown

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
