"""Issues 21 item 6 and 30 item 5: a PIN that lasts a season, the staff always get in.

The schedule runs on the fake clock: an attacker with any number of addresses (a fresh one
for every guess, plus 20 that keep guessing) gets at most `auth_daily` + the slow turns'
0.2/s checked a day, so an 8-digit PIN takes years. The flood test runs the real daemon:
100 loopback addresses guess the PIN over TCP as fast as they are answered while the
staff's right PIN is sent 30 times from 127.0.0.1. A right PIN is compared first and never
refused; a PIN over the limits waits its turn (about a second, then one turn per guessing
connection ahead of it). On the old code 0 of 30 got in (`rate_limited`: the fresh
addresses' first guesses drained the clean peers' reserve, and 127.0.0.1 was refused).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kiothi_board.api.authlimit import AuthLimiter
from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from tests.api.daemon_proc import DaemonProc
from tests.api.flood import FloodResult, run_flood

PIN = "40718263"
DAY = 86400.0


def _attack_days(limiter: AuthLimiter, clock: FakeClock, days: int) -> list[int]:
    """Checked guesses per day from an attacker with unlimited addresses and MQTT names.

    At every turn of the `TurnGate` every address (20 known, 20 MQTT names, then fresh
    ones until one is over the limits) guesses as long as it is within the limits, and one
    guess that waited is compared: the turns' pace is the limiter's `turn_interval()`.
    """
    per_day: list[int] = []
    fresh = 0
    dirty = [f"127.0.{i}.9:1" for i in range(20)] + [f"mqtt:{i}" for i in range(20)]
    for _ in range(days):
        before = limiter.failures
        end = clock.now() + DAY
        while clock.now() < end:
            for peer in dirty:
                while limiter.allow(peer):
                    limiter.failed(peer, "PIN")
            while True:  # every guess from an address never seen before
                fresh += 1
                peer = f"127.{fresh >> 16 & 255}.{fresh >> 8 & 255}.{fresh & 255}:1"
                if not limiter.allow(peer):
                    break
                limiter.failed(peer, "PIN")
            interval = limiter.turn_interval()
            limiter.failed(dirty[0], "PIN")  # the turn's waiting guess, compared
            clock.advance(interval)
        per_day.append(limiter.failures - before)
    return per_day


def test_the_shipped_pin_takes_more_than_a_year_to_guess(caplog: pytest.LogCaptureFixture) -> None:
    cfg = validate({"api": {"staff_pin": PIN}})["api"]
    clock = FakeClock()
    limiter = AuthLimiter(
        rate=cfg["auth_rate"],
        burst=cfg["auth_burst"],
        global_rate=cfg["auth_global_rate"],
        global_burst=cfg["auth_global_rate"] * 2,
        daily=cfg["auth_daily"],
        clock=clock,
    )
    with caplog.at_level(logging.WARNING):
        per_day = _attack_days(limiter, clock, 2)
    # day 1 holds the full buckets; then the steady rate: auth_daily + the slow turns
    # (0.2/s) = 5,000 + 17,280 a day at most.
    assert max(per_day) <= 5000 + 17280 + 40 + 30, per_day
    steady = per_day[-1]
    pins = 10**8  # the shipped minimum: 8 ASCII digits (weak ones refused: fewer still)
    years = pins / 2 / steady / 365
    assert years >= 5.0, (per_day, years)  # measured: 17,280 a day, 7.9 years on average
    # one summary line per minute, not a line per guess (the old code: 30,828 lines)
    lines = [r for r in caplog.records if "authentication" in r.getMessage()]
    assert len(lines) <= 2 * DAY / 60 + 1 and sum(per_day) > 5 * len(lines)


async def _guess(port: int, host: str, count: Callable[[], None]) -> None:
    """One address's connection: a wrong PIN, its answer, the next (until cancelled)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(host, 0))
    try:
        for i in itertools.count():
            pin = f"{10000000 + i % 89999999:08d}"
            writer.write(_auth_line(i, pin))
            await writer.drain()
            line = await reader.readline()
            if not line:
                raise ConnectionResetError("closed")
            count()
    finally:
        writer.close()


async def _sign_in(port: int) -> str:
    """The staff's right PIN from 127.0.0.1 on a fresh connection: "ok" or the code."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(_auth_line(1, PIN))
        await writer.drain()
        reply = json.loads(await reader.readline())
    finally:
        writer.close()
    return "ok" if reply["ok"] else str(reply["error"]["code"])


def _auth_line(rid: int, pin: str) -> bytes:
    return json.dumps({"id": rid, "cmd": "auth", "args": {"pin": pin}}).encode() + b"\n"


def staff_during_a_pin_flood(tmp_path: Path, duration: float) -> FloodResult:
    """The real daemon, 100 addresses guessing PINs over TCP for `duration` s, 30 sign-ins."""
    with DaemonProc(tmp_path, {"staff_pin": PIN}) as d:
        port = d.tcp_port
        assert port is not None
        result = run_flood(
            lambda host, count: _guess(port, host, count),
            lambda: _sign_in(port),
            duration=duration,
        )
        log = d.log()
    print(f"PIN flood, {duration:.0f} s: {result.summary()}")
    # failures are summed: far fewer log lines than checked guesses
    assert log.count("authentication") < 60, log[-3000:]
    return result


def test_the_staffs_pin_gets_in_during_a_flood_from_100_addresses(tmp_path: Path) -> None:
    """On the old code 0 of 30 got in (the clean reserve drained by fresh addresses):
    `rate_limited` every time."""
    result = staff_during_a_pin_flood(tmp_path, 12.0)
    assert result.staff.count("ok") == 30, result.summary()
    assert result.guesses >= 100, result.summary()  # every address guessed


@pytest.mark.soak
def test_the_staffs_pin_gets_in_during_a_60_s_flood(tmp_path: Path) -> None:
    result = staff_during_a_pin_flood(tmp_path, 60.0)
    assert result.staff.count("ok") == 30, result.summary()


def test_a_pin_over_the_limits_waits_its_turn_without_holding_up_others(tmp_path: Path) -> None:
    """Issue 30 item 9: over the limits a PIN waits (a second at least, as the dashboard's
    refusals do) on its own connection while others are served, then is compared. The old
    code answered at once, unchecked, `rate_limited`, and refused the right PIN too."""
    from tests.api.helpers import socket_client

    with DaemonProc(tmp_path, {"staff_pin": PIN}) as d:
        assert d.tcp_port is not None
        guesser = socket_client(socket.create_connection(("127.0.0.1", d.tcp_port)))
        other = socket_client(socket.create_connection(("127.0.0.1", d.tcp_port)))
        for i in range(5):  # the address's burst: checked at once
            reply = guesser.request("auth", {"pin": f"{20000000 + i}"})
            assert reply["error"]["code"] == "unauthorized", reply
        started = time.monotonic()
        guesser.send_line(_auth_line(50, "20000099"))
        pinged = other.request("ping")  # served while the guess waits
        assert pinged["ok"] and time.monotonic() - started < 0.8
        late = guesser.wait_reply(50, timeout=30)
        assert time.monotonic() - started >= 1.0 and late["error"]["code"] == "unauthorized"
        started = time.monotonic()
        right = guesser.request("auth", {"pin": PIN})
        assert right["ok"] and right["result"]["role"] == "control", right
        assert time.monotonic() - started >= 1.0
        health = other.request("health")["result"]["auth"]
        assert health["failures"] == 6 and health["limited"] == 2 and health["waiting"] == 0
