"""Presence on a fake clock: how long the other board has been known gone."""

from __future__ import annotations

from kiothi_board.clock import FakeClock
from kiothi_board.remote.presence import Presence


def test_absence_counts_from_the_last_will_not_from_the_last_sign_of_life() -> None:
    clock = FakeClock(100.0)
    p = Presence(clock, beat_s=30.0)
    p.status("b2", "online")
    clock.advance(20)  # quiet, as a board thinking between heartbeats
    assert p.gone_for("b2") is None
    p.status("b2", "offline")  # its last will: gone from now, not from 20 s ago
    assert p.gone_for("b2") == 0.0
    clock.advance(4)
    assert p.gone_for("b2") == 4.0
    p.status("b2", "offline")  # retained again (a reconnect of ours): the same absence
    assert p.gone_for("b2") == 4.0
    p.status("b2", "online")
    assert p.gone_for("b2") is None


def test_a_missing_heartbeat_is_absence_from_when_it_was_due() -> None:
    clock = FakeClock(0.0)
    p = Presence(clock, beat_s=2.0)
    p.status("b2", "online")
    p.seen("b2")
    clock.advance(2.9)
    assert p.gone_for("b2") is None  # within 1.5 beats
    clock.advance(0.2)
    assert p.gone_for("b2") is not None and abs(p.gone_for("b2") - 0.1) < 1e-9  # type: ignore[operator]
    clock.advance(10)
    assert abs((p.gone_for("b2") or 0) - 10.1) < 1e-9
