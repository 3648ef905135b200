"""Fake time for whole-day tests of a real daemon process (`run --sim --fake-clock EPOCH`).

Design: the daemon runs on a `FakeClock` whose wall time starts at EPOCH, and its board
loop does not tick by itself; time moves only when a client sends `sim.advance {seconds,
step}`, which, on the board loop, advances the clock by `step` and ticks once per step,
exactly as the running loop would. An AI search runs on real threads in real time, so
after each step the loop is ticked without moving the clock until the opponent has
answered: fake time never outruns the AI. Drivers of real devices (the co-processor link)
keep the system clock, because their heartbeats are real bytes on a real wire. A
visitor's presses arrive through `sim.press`/`sim.hold` into a fake pit input, the same
path as a board's buttons.

The commands exist only in this mode (see kiothi_board.api.exhibit_doors), so a board in
a museum cannot be sent through time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kiothi_board.clock import Clock, FakeClock
from kiothi_board.hardware.fakes import FakePitInput

if TYPE_CHECKING:
    from kiothi_board.board import Board

__all__ = ["FakeTime"]


class FakeTime:
    """The `sim.*` commands on a board whose loop runs on a fake clock."""

    def __init__(
        self,
        board: Board,
        fake: FakeClock,
        hands: FakePitInput,
        *,
        real: Clock,
        exhibit: Callable[[], dict[str, Any]],
    ) -> None:
        """Drive `board` on `fake` time with `hands`; `real` is the system clock (the AI
        searches in real time); `exhibit()` is the exhibition's status."""
        self._board = board
        self._fake = fake
        self._hands = hands
        self._real = real
        self._exhibit = exhibit

    def advance(self, seconds: float, step: float) -> dict[str, Any]:
        """Move the fake clock by `seconds` in steps of `step`, ticking after each."""
        return self._board.loop.ask(lambda: self._advance(seconds, step))

    def _advance(self, seconds: float, step: float) -> dict[str, Any]:
        left = seconds
        while left > 1e-9:
            dt = min(step, left)
            self._fake.advance(dt)
            left -= dt
            self._board.tick()
            self._settle()
        return self._state()

    def _settle(self, limit: float = 10.0) -> None:
        """Tick (without moving fake time) until the AI has answered (a move or a hint)."""
        deadline = self._real.now() + limit
        pause = threading.Event()
        controller = self._board.controller
        while controller.glance().thinking and self._real.now() < deadline:
            pause.wait(0.0005)  # the AI's worker thread is searching; give it the CPU
            self._board.tick()

    def state(self) -> dict[str, Any]:
        """What a simulated visitor sees: the exhibit's phase and the game's guide."""
        return self._board.loop.ask(self._state)

    def _state(self) -> dict[str, Any]:
        glance = self._board.controller.glance()
        position = glance.position
        settings = glance.settings
        return {
            "now": self._fake.now(),
            "wall": self._fake.wall(),
            "exhibit": self._exhibit(),
            "game_id": glance.game_id,
            "stage": glance.stage,
            "expect": None if glance.expect is None else _name(glance.expect),
            "legal": [] if position is None else [_name(p) for p in position.legal_moves()],
            "to_move": None if position is None else position.to_move.letter,
            "ai_to_move": glance.ai_to_move,
            "mode": settings.mode,
            "humans": [s.letter for s in settings.humans],
            "ply": None if position is None else position.ply,
            "lang": self._board.controller.language.current,
        }

    def press(self, pit: int) -> None:
        """A visitor's tap, through the input layer."""
        self._board.loop.ask(lambda: self._on_hands(lambda: self._hands.tap(pit)))

    def hold(self, pit: int, seconds: float) -> None:
        """A visitor's hold of `seconds`."""
        self._board.loop.ask(lambda: self._on_hands(lambda: self._hands.hold(pit, seconds)))

    def chord(self, first: int, second: int, seconds: float) -> None:
        """A visitor holding two pits together for `seconds` (S9+S10: the next language)."""

        self._board.loop.ask(
            lambda: self._on_hands(lambda: self._hands.chord(first, second, seconds))
        )

    def _on_hands(self, act: Callable[[], None]) -> None:
        act()
        # The fake input keeps every event for tests; a simulated day must not grow by it.
        self._hands.events.clear()


def _name(pit: int) -> str:
    from kiothi_board.rules import pit_name

    return pit_name(pit)
