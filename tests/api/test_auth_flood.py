"""Issue 21 item 6: a PIN that lasts a season, staff who get in during a flood, summed logs.

The schedule runs on the fake clock: an attacker with any number of addresses (a fresh one
for every guess, plus 20 that keep guessing) gets at most `auth_daily` + the clean peers'
bucket checked a day, so an 8-digit PIN takes years. The flood test runs the real daemon:
20 loopback addresses guess the PIN over TCP as fast as the doors allow while the staff's
right PIN is sent 30 times from 127.0.0.1 (on the old code: 1 of 30 got in).
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from pathlib import Path

import pytest

from kiothi_board.api.authlimit import AuthLimiter
from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from tests.api.daemon_proc import DaemonProc
from tests.conftest import poll_until

PIN = "40718263"
DAY = 86400.0


def _attack_days(limiter: AuthLimiter, clock: FakeClock, days: int) -> list[int]:
    """Checked guesses per day from an attacker with unlimited addresses and MQTT names."""
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
            clock.advance(10.0)
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
    # day 1 holds the full buckets; then the steady rate: auth_daily + the clean bucket
    # (0.2/s) = 5,000 + 17,280 a day at most.
    assert max(per_day) <= 5000 + 17280 + 40 + 30, per_day
    steady = per_day[-1]
    pins = 10**8  # the shipped minimum: 8 ASCII digits (weak ones refused: fewer still)
    years = pins / 2 / steady / 365
    assert years >= 5.0, (per_day, years)  # measured: 17,280 a day, 7.9 years on average
    # one summary line per minute, not a line per guess (the old code: 30,828 lines)
    lines = [r for r in caplog.records if "authentication" in r.getMessage()]
    assert len(lines) <= 2 * DAY / 60 + 1 and sum(per_day) > 5 * len(lines)


def _flood(port: int, host: str, stop: threading.Event, sent: list[int]) -> None:
    lines = b"".join(
        json.dumps({"id": i, "cmd": "auth", "args": {"pin": f"{10000000 + i:08d}"}}).encode()
        + b"\n"
        for i in range(20)
    )
    while not stop.is_set():
        try:
            with socket.create_connection(
                ("127.0.0.1", port), timeout=5, source_address=(host, 0)
            ) as s:
                while not stop.is_set():
                    s.sendall(lines)
                    got = 0
                    while got < 20:
                        chunk = s.recv(65536)
                        if not chunk:
                            raise OSError("closed")
                        got += chunk.count(b"\n")
                    sent[0] += 20
        except OSError:
            continue


def _staff(port: int) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(json.dumps({"id": 1, "cmd": "auth", "args": {"pin": PIN}}).encode() + b"\n")
        buf = b""
        while b"\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                return "closed"
            buf += chunk
    reply = json.loads(buf.split(b"\n")[0])
    return "ok" if reply["ok"] else str(reply["error"]["code"])


def test_staff_get_in_during_a_flood_of_wrong_pins(tmp_path: Path) -> None:
    with DaemonProc(tmp_path, {"staff_pin": PIN}) as d:
        assert d.tcp_port is not None
        stop = threading.Event()
        sent = [0]
        threads = [
            threading.Thread(target=_flood, args=(d.tcp_port, f"127.0.0.{i}", stop, sent))
            for i in range(2, 22)
        ]
        for t in threads:
            t.start()
        try:
            poll_until(lambda: sent[0] >= 2000, "2000 wrong PINs sent", 60)
            assert sent[0] >= 2000
            results = []
            for _ in range(30):  # each staff sign-in amid 20 more of the flood's guesses
                results.append(_staff(d.tcp_port))
                poll_until(lambda n=sent[0] + 20: sent[0] >= n, "the flood to go on", 60)
        finally:
            stop.set()
            for t in threads:
                t.join(30)
        log = d.log()
    assert results.count("ok") >= 29, results
    assert sent[0] > 2000
    # failures are summed: far fewer log lines than checked guesses
    assert log.count("authentication") < 60, log[-3000:]
