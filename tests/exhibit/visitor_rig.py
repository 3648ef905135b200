"""A real board in exhibition mode on fake time, in this process: the controller, the AI
(real searches on their worker threads), the director and the loop, driven as a visitor's
hands and the clock would (the in-process twin of `run --fake-clock`, kiothi_board.fake_time).
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.board import Board
from kiothi_board.board.speech import Voice
from kiothi_board.clock import FakeClock
from kiothi_board.controller.notices import HintReady, Notice
from kiothi_board.exhibit.attendant import Timing
from kiothi_board.exhibit.director import Director, ExhibitSettings
from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.guide import Renderer
from kiothi_board.hardware.fakes import FakePitInput, FakePixelSink
from kiothi_board.players import AIFactory
from kiothi_board.sim import exhibit_state, render_board
from kiothi_board.store.memory import MemoryStore

_SGR = re.compile(r"\x1b\[[0-9;]*m")
TIMING = Timing(idle_after=60, countdown=10, hint_after=20, two_player_window=3, over_seconds=8)


class Visit:
    """The board, its director and a visitor's hands (`hold`, `tap`), on a fake clock."""

    def __init__(
        self,
        level: str = "adaptive",
        languages: tuple[str, ...] = ("en",),
        *,
        voice: Voice | None = None,
        schedule: Schedule | None = None,
    ) -> None:
        self.clock = FakeClock()
        self.store = MemoryStore()
        self.sink = FakePixelSink(16, keep=4)
        self.director = Director(
            ExhibitSettings(TIMING, level=LevelChoice.parse(level)), clock=self.clock,
            store=self.store, renderer=Renderer(leds=16),
            schedule=schedule or Schedule(timezone="UTC"),
        )  # fmt: skip
        self.opponents = AIFactory(seed=3)
        self.board = Board(
            sink=self.sink, clock=self.clock, store=self.store, opponent_factory=self.opponents,
            director=self.director, ticking=False, over_seconds=TIMING.over_seconds,
            languages=languages, voice=voice,
        )  # fmt: skip
        self.hands = FakePitInput(self.clock)
        self.hands.start(self.board.handle_event)
        self.hints: list[HintReady] = []
        self.board.add_notice_listener(self._notice)

    def _notice(self, notice: Notice) -> None:
        if isinstance(notice, HintReady):
            self.hints.append(notice)

    def settle(self, limit: float = 30.0) -> None:
        """Tick without moving fake time until the AI has answered (as `sim.advance` does)."""
        deadline = time.monotonic() + limit
        pause = threading.Event()
        while self.board.controller.glance().thinking:
            assert time.monotonic() < deadline, "the AI did not answer"
            pause.wait(0.0005)  # its worker thread is searching: give it the CPU
            self.board.tick()

    def advance(self, seconds: float, step: float = 0.5) -> None:
        """Fake time passes in steps, the board ticking (and the AI answering) after each."""
        end = self.clock.now() + seconds
        while self.clock.now() < end - 1e-9:
            self.clock.advance(min(step, end - self.clock.now()))
            self.board.tick()
            self.settle()

    def hold(self, pit: int) -> None:
        """A hold past the board's hold time."""
        self.hands.hold(pit, self.board.controller.gestures.hold_seconds + 0.2)
        self.settle()

    def tap(self, pit: int) -> None:
        """A press and release."""
        self.hands.tap(pit)
        self.settle()

    def phase(self) -> str:
        return str(self.exhibit()["phase"])

    def exhibit(self) -> dict[str, Any]:
        return self.board.loop.ask(self.director.status)

    def screen(self, lang: str | None = None) -> str:
        """The terminal's words now (the game's state as the exhibition shows it), without
        colours and with the wrapped lines joined."""
        state = exhibit_state(self.board.state(), self.exhibit())
        text = render_board(self.board.loop.shown, state, lang=lang)
        return " ".join(_SGR.sub("", text).split())

    def wake(self, *pits: int) -> None:
        """From the reset: confirm it, then wake the board with `pits` and let the window pass."""
        assert self.phase() == "reset", self.exhibit()
        self.hold(4)
        self.advance(1)
        assert self.phase() == "attract", self.exhibit()
        for pit in pits:
            self.tap(pit)
        self.advance(TIMING.two_player_window + 0.5)
        assert self.phase() == "playing", self.exhibit()

    def close(self) -> None:
        self.board.close()
        self.opponents.close()
