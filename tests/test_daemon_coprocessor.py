"""The daemon on the RP2040 co-processor: presses over a real pseudo-terminal (the LEDs are
the Pi's own, simulated here)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.hardware.link_devices import LinkPitInput
from kiothi_board.hardware.link_sim import FdPort, SimulatedCoprocessor
from tests.conftest import PtyPair, wait_until

WAIT = 30.0


def tick_until(daemon: Daemon, predicate: Callable[[], bool]) -> bool:
    """Run the daemon's loop (as `run()` does) until `predicate` holds or WAIT passes."""

    def ticked() -> bool:
        daemon.tick()
        return predicate()

    return wait_until(ticked, WAIT)  # polled at about the loop's tick period, as in Daemon.run


def test_daemon_plays_through_the_coprocessor(tmp_path: Path, pty_pair: PtyPair) -> None:
    master, slave = pty_pair
    device = SimulatedCoprocessor(FdPort(master))
    config = validate(
        {
            "board": {"input": "coprocessor", "port": os.ttyname(slave)},
            "leds": {"output": "sim"},
            "game": {"mode": "two", "pace": "instant", "variant": "V2"},
        }
    )
    daemon = Daemon(config, state_dir=str(tmp_path), api=False)
    try:
        assert isinstance(daemon.inputs, LinkPitInput)
        assert isinstance(daemon.sink, FakePixelSink)
        assert daemon.link.wait_up(WAIT), daemon.link.error
        # South presses S6 on the wooden board; instant pace plays it at once.
        seen: list[str] = []
        daemon.board.add_listener(
            lambda e: seen.append(e["kind"]) if e["type"] == "input" else None
        )
        device.press(5)
        assert tick_until(daemon, lambda: "pressed" in seen), "the press is debounced and seen"
        device.release(5)
        assert tick_until(daemon, lambda: daemon.board.state()["actions"] == ["S6"])
    finally:
        daemon.close()
        device.close()
        pty_pair.close()


def test_health_is_degraded_while_the_input_link_is_down(tmp_path: Path, pty_pair: PtyPair) -> None:
    """Issue 30 item 15: with the co-processor silent no press reaches the board; the old
    code still said `health.status` "ok" (only `exhibit.link.state` said "down")."""
    master, slave = pty_pair
    device = SimulatedCoprocessor(FdPort(master))
    config = validate(
        {
            "board": {"input": "coprocessor", "port": os.ttyname(slave)},
            "leds": {"output": "sim"},
            "game": {"mode": "two"},
            "api": {"tcp_port": -1, "web_port": -1},
        }
    )
    daemon = Daemon(config, state_dir=str(tmp_path))
    try:
        assert daemon.api is not None
        health = daemon.api.dispatcher.health
        assert daemon.link.wait_up(WAIT), daemon.link.error
        assert tick_until(daemon, lambda: health()["status"] == "ok"), health()
        device.go_silent()  # the heartbeat stops: the link goes down
        assert tick_until(daemon, lambda: health()["status"] == "degraded"), health()
        assert "exhibit" in health()["degraded"] and health()["exhibit"]["link"]["state"] == "down"
        device.resume()  # it talks again: the host re-handshakes
        assert tick_until(daemon, lambda: health()["status"] == "ok"), health()
    finally:
        daemon.close()
        device.close()
        pty_pair.close()
