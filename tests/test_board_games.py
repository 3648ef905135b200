"""Complete games on the board as built: gpiozero pins (MockFactory), the LED sink, the real AI.

A player presses exactly where the LEDs point (the rig checks the lit cue before each drop),
through real gpiozero devices and our debouncer, in every mode and pace; the records the
SQLite store keeps replay to the same result with the rules engine.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from kiothi_board.config import SCHEMA
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.hardware.gpio import GpioPitInput
from kiothi_board.players import AIFactory
from kiothi_board.rules import parse_record
from kiothi_board.store.sqlite import SqliteStore
from tests.controller.conftest import Rig

PINS = SCHEMA["board"]["pins"].default
DEBOUNCE = 0.02


class PinPresser:
    """Presses pits as a finger does: the pin goes low, stays, goes high; the input is polled."""

    def __init__(self, factory: Any, inputs: GpioPitInput, clock: FakeClock) -> None:
        self.pins = [factory.pin(p) for p in PINS]
        self.inputs = inputs
        self.clock = clock

    def _settle(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.inputs.poll()

    def tap(self, pit: int) -> None:
        self.pins[pit].drive_low()
        self._settle(DEBOUNCE * 2)
        self.pins[pit].drive_high()
        self._settle(DEBOUNCE * 2)

    def hold(self, pit: int, seconds: float) -> None:
        self.pins[pit].drive_low()
        self._settle(DEBOUNCE * 2)
        for _ in range(int(seconds / 0.05) + 1):
            self._settle(0.05)
        self.pins[pit].drive_high()
        self._settle(DEBOUNCE * 2)


@pytest.mark.parametrize(
    ("mode", "sides", "pace", "limit"),
    [
        ("two", "S", "step", None),
        ("two", "S", "flow", 30),
        ("two", "S", "instant", None),
        ("ai", "S", "step", 30),
        ("ai", "N", "flow", 30),
        ("ai", "S", "instant", 60),
        ("demo", "", "step", 20),
        ("demo", "", "instant", 40),
    ],
)
def test_complete_game_through_gpio_pins(
    mock_factory: Any,
    tmp_path: Path,
    pixel_sink: FakePixelSink,
    mode: str,
    sides: str,
    pace: str,
    limit: int | None,
) -> None:
    clock = FakeClock(100.0)
    inputs = GpioPitInput(
        PINS, clock=clock, pin_factory=mock_factory, debounce=DEBOUNCE, hold_time=1.0
    )
    sink = pixel_sink
    store = SqliteStore(tmp_path / "games.sqlite3")
    opponents = AIFactory(seed=5)
    ctl = Board(sink=sink, clock=clock, store=store, opponent_factory=opponents)
    rig = Rig(clock, sink, PinPresser(mock_factory, inputs, clock), store, ctl)  # type: ignore[arg-type]
    ctl.add_listener(rig.events.append)
    inputs.start(ctl.handle_event)
    variant = {} if limit is None else {"ply_limit": limit}
    gid = ctl.call("new_game", mode=mode, sides=sides, level=1, pace=pace, variant=variant)  # type: ignore[arg-type]
    presses = rig.follow(random.Random(f"{mode}{sides}{pace}"))
    record = parse_record(store.get_game(gid))
    final = record.final()
    assert final.over and record.result == final.result
    over = [e for e in rig.events if e["type"] == "game_over"]
    assert over[-1]["result"] == final.result.to_json()  # type: ignore[union-attr]
    assert presses > 0 or mode == "demo"
    inputs_seen = [e for e in rig.events if e["type"] == "input"]
    assert len(inputs_seen) >= presses, "every press came through the gpiozero pins"
    ctl.close()
    opponents.close()
    inputs.close()
    store.close()
