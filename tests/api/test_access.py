"""Access policy, auth limiter, budgets and connection guard on their own (fake clocks)."""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.api.access import AccessPolicy, token_main
from kiothi_board.api.authlimit import AuthLimiter, peer_host
from kiothi_board.api.budget import Outbox
from kiothi_board.api.limits import ConnectionGuard
from kiothi_board.api.protocol import ApiError
from kiothi_board.api.unix_path import prepare_unix_path, remove_our_socket, socket_identity
from kiothi_board.clock import FakeClock
from kiothi_board.errors import ConfigError

TOKEN = "unit-test-token-0123456789"


def policy(clock: FakeClock, **kw: Any) -> AccessPolicy:
    return AccessPolicy(token=TOKEN, clock=clock, addresses=["192.0.2.2"], **kw)


def _time_to_check(limiter: AuthLimiter, clock: FakeClock, peers: list[str], n: int) -> float:
    """Fake seconds until `n` wrong guesses were checked, guessing as fast as allowed."""
    checked = 0
    start = clock.now()
    while checked < n:
        for peer in peers:
            if limiter.allow(peer):
                limiter.failed(peer, "token")
                checked += 1
        clock.advance(0.2)  # round trips or a pause (the time overshoots by < 0.2 s)
    return clock.now() - start


@pytest.mark.parametrize("hosts", [1, 20])
def test_1000_wrong_tokens_take_at_least_10_seconds(hosts: int) -> None:
    """20 connections from one host (ports differ) or from 20 hosts: the default schedule."""
    clock = FakeClock()
    limiter = AuthLimiter(clock=clock)  # the defaults of [api] auth_*
    peers = [f"10.0.0.{i % hosts + 1}:{5000 + i}" for i in range(20)]
    taken = _time_to_check(limiter, clock, peers, 1000)
    assert taken >= 10.0, taken
    # One host alone: its own bucket (1/s after 5) is the bound; many hosts: the global one.
    assert taken >= (994 if hosts == 1 else (1000 - 20) / 10)


def test_a_failure_storm_is_logged_in_summaries(caplog: pytest.LogCaptureFixture) -> None:
    """One line per interval with the counts (the old code wrote a line per failure)."""
    caplog.set_level(logging.WARNING)
    clock = FakeClock()
    limiter = AuthLimiter(clock=clock, log_interval=10)
    for _ in range(500):
        if limiter.allow("127.0.0.1:1"):
            limiter.failed("127.0.0.1:1", "token")
    assert limiter.failures == 5 and limiter.limited == 495
    assert caplog.text.count("api: authentication:") == 1  # the first, at once
    clock.advance(10.0)
    limiter.failed("127.0.0.1:1", "token")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "495 over the limits, 5 wrong token from 1 address(es)" in lines[1]
    assert peer_host("[::1]:80") == "::1" and peer_host("::1") == "::1"


def test_roles_per_door_and_non_loopback_peers() -> None:
    """The policy with the peer address injected (the netns test does it over a wire)."""
    clock = FakeClock()
    p = policy(clock)
    for door in ("serial", "unix", "redis"):
        assert p.initial_role(door, None) == "control"
    for host in ("127.0.0.1", "192.0.2.7", "::1"):
        assert p.initial_role("tcp", host) == "spectator"
        assert p.initial_role("websocket", host) == "spectator"
    trusting = policy(clock, trust_loopback_tcp=True)
    assert trusting.initial_role("tcp", "127.0.0.5") == "control"
    assert trusting.initial_role("tcp", "192.0.2.7") == "spectator"  # not loopback
    assert trusting.initial_role("websocket", "127.0.0.1") == "spectator"  # TCP only


def test_host_and_origin_are_checked_against_the_served_names() -> None:
    p = policy(FakeClock(), host_names=["kiothi.local"])
    for host in ("localhost:8420", "127.0.0.1", "[::1]:8420", "KIOTHI.local.", "192.0.2.2:80"):
        assert p.host_allowed(host), host
    for host in ("evil.example:8420", "", None, "127.0.0.2", "localhost.evil.example"):
        assert not p.host_allowed(host), host
    assert p.origin_allowed(None)  # not a browser
    assert p.origin_allowed("http://127.0.0.1:8420") and p.origin_allowed("https://kiothi.local")
    for origin in ("null", "http://evil.example", "file://", "chrome-extension://x"):
        assert not p.origin_allowed(origin), origin


def test_addresses_the_machine_gets_later_are_served(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Pi whose DHCP lease comes after the daemon started still serves its new address."""
    import kiothi_board.api.access as access

    now = ["192.0.2.2"]
    monkeypatch.setattr(access, "machine_addresses", lambda: set(now))
    clock = FakeClock()
    p = AccessPolicy(token=TOKEN, clock=clock)
    assert p.host_allowed("192.0.2.2") and not p.host_allowed("198.51.100.7")
    now.append("198.51.100.7")
    assert not p.host_allowed("198.51.100.7")  # not re-read before the interval
    clock.advance(6)
    assert p.host_allowed("198.51.100.7") and not p.host_allowed("evil.example")


def test_token_pin_and_tickets() -> None:
    clock = FakeClock()
    p = policy(clock, staff_pin="246810", session_ttl=60)
    ticket = p.authenticate("1.2.3.4:1", token=TOKEN)
    assert p.check_ticket(ticket) and p.authenticate("1.2.3.4:2", ticket=ticket) == ticket
    assert p.check_ticket(p.authenticate("1.2.3.4:3", pin="246810"))
    with pytest.raises(ApiError, match="wrong PIN"):
        p.authenticate("1.2.3.4:4", pin="000000")
    with pytest.raises(ApiError, match="another origin"):
        p.authenticate("1.2.3.4:5", token=TOKEN, locked=True)
    with pytest.raises(ApiError, match="exactly one"):
        p.authenticate("1.2.3.4:6", token=TOKEN, pin="246810")
    clock.advance(61)
    assert not p.check_ticket(ticket)  # expired
    assert p.health()["failures"] == 1


def test_kiothi_board_token_prints_a_long_random_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert token_main([]) == 0
    first = capsys.readouterr().out.strip()
    token_main([])
    assert len(first) >= 32 and first != capsys.readouterr().out.strip()


def test_outbox_over_its_byte_budget_cuts_the_client_off_and_frees_it() -> None:
    reasons: list[str] = []
    woken: list[int] = []
    box = Outbox(1000, lambda: woken.append(1), byte_limit=10_000, on_over=reasons.append)
    for _ in range(9):
        box.put(b"x" * 1000)
    assert box.nbytes == 9000 and not reasons
    box.put(b"y" * 2000)
    assert reasons and "budget of 10000 bytes" in reasons[0]
    assert box.nbytes == 0 and len(box) == 0  # released at once
    box.put(b"z")  # ignored: the transport is closing it
    assert len(box) == 0 and len(reasons) == 1
    pending = Outbox(1000, lambda: None, byte_limit=10_000, on_over=reasons.append,
                     pending=lambda: 9_990)  # fmt: skip
    pending.put(b"w" * 20)  # the transport's unsent bytes count too
    assert len(reasons) == 2


class _Closable:
    def __init__(self) -> None:
        self.reasons: list[str] = []

    def __call__(self, reason: str) -> None:
        self.reasons.append(reason)


def test_guard_caps_evict_the_idlest_without_control_or_refuse() -> None:
    clock = FakeClock()
    guard = ConnectionGuard(
        max_total=8, max_per_door=6, max_per_peer=4, idle_timeout=5, header_timeout=2,
        clock=clock,
    )  # fmt: skip
    closers = [_Closable() for _ in range(10)]
    conns = []
    for i in range(4):
        clock.advance(1)
        conns.append(guard.admit("tcp", f"10.0.0.1:{i}", closers[i]))
    conns[0].control = lambda: True  # type: ignore[union-attr]
    clock.advance(1)
    fifth = guard.admit("tcp", "10.0.0.1:9", closers[4])  # over the per-peer cap
    assert fifth is not None and closers[1].reasons == ["over the connection cap"]
    assert not closers[0].reasons  # the control connection is kept
    for i in range(5, 8):
        guard.admit("tcp", f"10.0.0.{i}:1", closers[i])  # the door's cap (6) evicts
    assert len(guard) == 6 and guard.health()["shed"] == 2
    assert closers[2].reasons == ["over the connection cap"]  # the idlest went
    for c in [*conns, fifth]:
        if c is not None:
            c.control = lambda: True
    for i in range(5, 8):
        new = guard.admit("tcp", f"10.0.0.{i}:2", _Closable())  # evicts the spectators
        assert new is not None
        new.control = lambda: True
    assert guard.admit("tcp", "10.9.9.9:1", _Closable()) is None  # every slot has control
    assert guard.health()["refused"] == 1


def test_guard_times_out_idle_and_slow_http_and_sheds_on_fd_exhaustion(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import asyncio

    caplog.set_level(logging.WARNING)
    clock = FakeClock()
    guard = ConnectionGuard(idle_timeout=5, header_timeout=2, clock=clock, log_interval=10)
    idle, http, busy, unix = _Closable(), _Closable(), _Closable(), _Closable()
    guard.admit("tcp", "127.0.0.1:1", idle)
    guard.admit("web", "127.0.0.1:2", http, http=True)
    b = guard.admit("web", "127.0.0.1:3", busy, http=True)
    guard.admit("unix", "unix", unix)
    assert b is not None
    b.busy = 1  # a request being answered
    clock.advance(3)
    guard.reap()
    assert http.reasons and not idle.reasons and not busy.reasons
    clock.advance(3)
    guard.reap()
    assert idle.reasons == ["idle"] and not unix.reasons
    many = [_Closable() for _ in range(100)]
    for i, c in enumerate(many):
        guard.admit("tcp", f"10.1.0.{i}:1", c)
    loop = asyncio.new_event_loop()
    try:
        for _ in range(3):  # accept() failing (asyncio retries each second): shed the newest
            guard.loop_exception(loop, {"message": "socket.accept() out of system resource"})
    finally:
        loop.close()
    assert many[-1].reasons == ["out of file descriptors"] and not many[0].reasons
    shed = sum(1 for c in many if c.reasons)
    assert 20 <= shed <= 40 and guard.health()["fd_exhausted"] == 3
    clock.advance(10)
    guard.reap()  # the next interval: one line with the count
    assert caplog.text.count("accept() found no free file descriptor (3 in the last") == 1


def test_unix_path_only_replaces_a_dead_socket_of_ours(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"api.unix_path.*directory .* does not exist"):
        prepare_unix_path(str(tmp_path / "missing" / "api.sock"))
    (tmp_path / "dir.sock").mkdir()
    with pytest.raises(ConfigError, match="a directory is there"):
        prepare_unix_path(str(tmp_path / "dir.sock"))
    path = str(tmp_path / "api.sock")
    live = socket.socket(socket.AF_UNIX)
    live.bind(path)
    live.listen()
    with pytest.raises(ConfigError, match="another kiothi-board may be running"):
        prepare_unix_path(path)
    assert Path(path).exists()  # a live socket is never removed
    remove_our_socket(path, (0, 0))  # not ours (another inode): left
    assert Path(path).exists()
    ident = socket_identity(path)
    live.close()  # now a dead socket of ours (a crash)
    prepare_unix_path(path)
    assert not Path(path).exists()
    assert ident is not None
