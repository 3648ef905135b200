"""The daemon on the RP2040 co-processor: presses and LED frames over a real pseudo-terminal."""

from __future__ import annotations

import os
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.hardware.link import LinkPitInput, LinkPixelSink
from kiothi_board.hardware.link_sim import FdPort, SimulatedCoprocessor

WAIT = 5.0


def tick_until(daemon: Daemon, predicate: Callable[[], bool]) -> bool:
    """Run the daemon's loop (as `run()` does) until `predicate` holds or WAIT passes."""
    deadline = time.monotonic() + WAIT
    pause = threading.Event()
    while time.monotonic() < deadline:
        daemon.tick()
        if predicate():
            return True
        pause.wait(0.01)  # the loop's tick period, as in Daemon.run
    return False


def test_daemon_plays_through_the_coprocessor(tmp_path: Path) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    device = SimulatedCoprocessor(FdPort(master), leds_per_ring=16)
    config = validate(
        {
            "board": {"input": "coprocessor", "port": os.ttyname(slave)},
            "leds": {"output": "coprocessor"},
            "game": {"mode": "two", "pace": "instant", "variant": "V2"},
        }
    )
    daemon = Daemon(config, state_dir=str(tmp_path), api=False)
    try:
        assert isinstance(daemon.inputs, LinkPitInput)
        assert isinstance(daemon.sink, LinkPixelSink)
        assert daemon.link.wait_up(WAIT), daemon.link.error
        # The board's LEDs reach the device: a full chain of 20 × 16 colours.
        assert device.wait_for(lambda: len(device.frames) > 0, WAIT)
        assert len(device.frames[-1]) == 320
        # South presses S6 on the wooden board; instant pace plays it at once.
        seen: list[str] = []
        daemon.controller.add_listener(
            lambda e: seen.append(e["kind"]) if e["type"] == "input" else None
        )
        device.press(5)
        assert tick_until(daemon, lambda: "pressed" in seen), "the press is debounced and seen"
        device.release(5)
        assert tick_until(daemon, lambda: daemon.controller.state()["actions"] == ["S6"])
    finally:
        daemon.close()
        assert device.wait_for(
            lambda: bool(device.frames) and not any(any(c) for c in device.frames[-1]), WAIT
        ), "the LEDs go dark on shutdown"
        device.close()
        os.close(master)
        os.close(slave)
