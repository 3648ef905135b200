"""Fake time for whole-day tests of a real daemon process (`run --sim --fake-clock EPOCH`).

Design: the daemon runs on a `FakeClock` whose wall time starts at EPOCH. Its own loop
stops ticking (it only waits for a stop and pings the watchdog); time moves only when a
client sends `sim.advance {seconds, step}`, which advances the clock by `step` and ticks
the daemon once per step, exactly as the loop would, under the loop's lock. An AI search
runs on real threads in real time, so after each step the daemon is ticked without
moving the clock until the opponent has answered: fake time never outruns the AI.
Drivers of real devices (the co-processor link) keep the system clock, because their
heartbeats are real bytes on a real wire. A visitor's presses arrive through
`sim.press`/`sim.hold` into a fake pit input, the same path as a board's buttons.

The commands exist only in this mode (see kiothi_board.api.exhibit_doors), so a board in
a museum cannot be sent through time.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from kiothi_board.errors import KiothiError

if TYPE_CHECKING:
    from kiothi_board.daemon import Daemon

__all__ = ["FakeTime"]


class FakeTime:
    """The `sim.*` commands on a daemon started with a fake clock."""

    def __init__(self, daemon: Daemon) -> None:
        """Drive `daemon` (which must have `fake` and `hands`)."""
        if daemon.fake is None or daemon.hands is None:
            raise KiothiError("fake time needs the daemon started with --fake-clock")
        self._daemon = daemon
        self._fake = daemon.fake
        self._hands = daemon.hands

    def advance(self, seconds: float, step: float) -> dict[str, Any]:
        """Move the fake clock by `seconds` in steps of `step`, ticking after each."""
        d = self._daemon
        left = seconds
        with d.tick_lock:
            while left > 1e-9:
                dt = min(step, left)
                self._fake.advance(dt)
                left -= dt
                d.tick()
                self._settle()
        return self.state()

    def _settle(self, limit: float = 10.0) -> None:
        """Tick (without moving fake time) until the AI has answered (a move or a hint)."""
        d = self._daemon
        real = d.device_clock  # the system clock: the AI searches in real time
        deadline = real.now() + limit
        pause = threading.Event()
        session = d.controller.session
        while (session.thinking or session.hinting) and real.now() < deadline:
            pause.wait(0.0005)  # the AI's worker thread is searching; give it the CPU
            d.tick()

    def state(self) -> dict[str, Any]:
        """What a simulated visitor sees: the exhibit's phase and the game's guide."""
        d = self._daemon
        state = d.controller.state()
        position = state.get("position") or {}
        settings = state.get("settings") or {}
        return {
            "now": self._fake.now(),
            "wall": self._fake.wall(),
            "exhibit": d.exhibition.director.status(),
            "game_id": state.get("game_id"),
            "stage": state.get("stage"),
            "expect": state.get("expect"),
            "legal": position.get("legal", []),
            "to_move": position.get("to_move"),
            "ai_to_move": state.get("ai_to_move"),
            "mode": settings.get("mode"),
            "humans": settings.get("humans"),
            "ply": position.get("ply"),
        }

    def press(self, pit: int) -> None:
        """A visitor's tap, through the input layer."""
        with self._daemon.tick_lock:
            self._hands.tap(pit)
            self._forget()

    def hold(self, pit: int, seconds: float) -> None:
        """A visitor's hold of `seconds`."""
        with self._daemon.tick_lock:
            self._hands.hold(pit, seconds)
            self._forget()

    def _forget(self) -> None:
        # The fake input keeps every event for tests; a simulated day must not grow by it.
        self._hands.events.clear()
