"""Issue 21, items 3 and 4: every consumer of the bus is bounded (real processes only).

A private mosquitto with the shipped ACL, board daemons and the fleet dashboard as their own
processes. One account (a board's, the only kind that may publish a board's topics) sends
`[` x 100,000 and a 20 MB message, both retained; ten WebSocket clients connect and never
read. The dashboard must go on updating its tiles, and after a restart too, with its RSS
within `DASHBOARD_GROWTH_MB` of where it started (on the old code its MQTT thread died at
the nested message, the tiles froze "online", and RSS went from 40 to 735 MB). The board's
MQTT door must refuse a 30 MiB command before it is buffered (old code: RSS 52 -> 136 MB).
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.api.wire import RawWebSocket
from tests.conftest import poll_until
from tests.fleet.conftest import (
    USERS,
    BoardProcess,
    Broker,
    DashboardProcess,
    rss_mb,
    wait_until,
)

DASHBOARD_GROWTH_MB = 40.0
BOARD_GROWTH_MB = 15.0


def _publisher(broker: Broker, user: str) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{user}-{uuid.uuid4().hex[:6]}")
    c.username_pw_set(user, USERS[user])
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    return c


def _tiles(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/boards", timeout=10) as r:
        return {b["board"]: b for b in json.load(r)["boards"]}


def _state(port: int, board: str = "b1") -> Any:
    """The game state a board's tile shows (what changes with its game, not with time)."""
    return (_tiles(port).get(board) or {}).get("state")


def _events(port: int, board: str) -> int:
    tile = _tiles(port).get(board) or {}
    return int((tile.get("state") or {}).get("events", 0))


def _updating(dash: DashboardProcess, board: str) -> None:
    """The dashboard's tile of a playing board moves on (its MQTT thread is alive)."""
    wait_until(lambda: _events(dash.port, board) > 0, 60, f"{board}'s tile")
    first = _events(dash.port, board)
    wait_until(lambda: _events(dash.port, board) > first, 60, f"{board}'s tile to move on")


@pytest.fixture
def live(tmp_path: Path, broker: Broker) -> Iterator[BoardProcess]:
    b = BoardProcess(tmp_path, "b1", broker.url, staff=False)
    b.start(autoplay=0.2)
    yield b
    b.stop()


@pytest.mark.parametrize(
    "changes", [10, pytest.param(40, marks=pytest.mark.soak)], ids=lambda n: f"{n}-changes"
)
def test_hostile_messages_and_non_readers_leave_the_dashboard_bounded_and_live(
    tmp_path: Path, broker: Broker, live: BoardProcess, changes: int
) -> None:
    """`changes`: how many changes of b1's tile (each sent to the ten non-readers) the RSS is
    watched for: 10 (about 5 s) in `make test`, 40 (about 20 s) in `make soak`."""
    dash = DashboardProcess(tmp_path, broker, "fleet-token-0123456789")
    second: DashboardProcess | None = None
    hostile = _publisher(broker, "b2")
    sockets: list[RawWebSocket] = []
    try:
        _updating(dash, "b1")
        start = dash.rss_mb()
        hostile.publish("kiothi/v1/b2/state", b"[" * 100_000, qos=1, retain=True).wait_for_publish(
            30
        )
        big = json.dumps({"board": "b2", "pad": "x" * 20_000_000}).encode()
        hostile.publish("kiothi/v1/b2/info", big, qos=1, retain=True).wait_for_publish(60)
        hostile.publish("kiothi/v1/b2/events", b"{" * 60_000, qos=1).wait_for_publish(30)
        hostile.publish("kiothi/v1/b2/health", b"[" * 5_000, qos=1).wait_for_publish(30)
        for _ in range(10):  # never read: each may cost its page budget, no more
            sockets.append(RawWebSocket(dash.port, {}, rcvbuf=4096))
        assert all(s.status == 101 for s in sockets)
        _updating(dash, "b1")
        peak = dash.rss_mb()
        seen = [_state(dash.port), 0]  # b1's state last seen, and its changes

        def watched() -> bool:
            """Sample the RSS; count the tile's changes (each one also went to the ten)."""
            nonlocal peak
            peak = max(peak, dash.rss_mb())
            state = _state(dash.port)
            if state != seen[0]:
                seen[:] = [state, int(seen[1]) + 1]
            return int(seen[1]) >= changes

        poll_until(watched, f"{changes} changes of b1's tile", 30 + changes * 3, every=0.5)
        end = dash.rss_mb()
        print(f"dashboard RSS {start:.1f} -> peak {peak:.1f} -> {end:.1f} MB")
        assert peak - start < DASHBOARD_GROWTH_MB, (start, peak)
        _updating(dash, "b1")
        assert dash.alive()
        with urllib.request.urlopen(f"http://127.0.0.1:{dash.port}/api/boards", timeout=10) as r:
            dropped = json.load(r)["dropped"]
        # Counted, not only survived (the broker itself kept the 100 KB and 20 MB ones back).
        assert dropped["too_deep"] >= 1 and dropped["too_large"] >= 1, dropped
        # Retained, the messages meet every new dashboard: it must start and update too.
        second = DashboardProcess(tmp_path, broker, "fleet-token-0123456789", "dashboard-2")
        _updating(second, "b1")
        assert second.rss_mb() < start + DASHBOARD_GROWTH_MB
    finally:
        for s in sockets:
            s.sock.close()
        hostile.loop_stop()
        hostile.disconnect()
        dash.stop()
        if second is not None:
            second.stop()


def test_a_30_mib_command_is_refused_before_the_board_buffers_it(
    tmp_path: Path, broker: Broker
) -> None:
    board = BoardProcess(tmp_path, "b1", broker.url, staff=False)
    board.start(autoplay=None)
    staff = _publisher(broker, "staff")
    replies: list[bytes] = []
    staff.on_message = lambda c, u, m: replies.append(bytes(m.payload))
    staff.subscribe("kiothi/v1/b1/reply/staff", qos=1)
    try:
        assert board.proc is not None

        def ping(rid: int) -> None:
            """Ask until answered (the board may not have subscribed yet at first)."""
            line = json.dumps({"id": rid, "cmd": "ping"})

            def answered() -> bool:
                if any(f'"id":{rid}'.encode() in r for r in replies):
                    return True
                staff.publish("kiothi/v1/b1/cmd/staff", line, qos=1).wait_for_publish(10)
                return any(f'"id":{rid}'.encode() in r for r in replies)

            wait_until(answered, 60, f"the reply to ping {rid}")

        ping(1)
        before = rss_mb(board.proc.pid)
        huge = b'{"id":2,"cmd":"ping","args":{"pad":"' + b"x" * (30 << 20) + b'"}}'
        staff.publish("kiothi/v1/b1/cmd/staff", huge, qos=1).wait_for_publish(60)
        ping(3)  # later than the huge one on the same connection: the board is past it
        after = rss_mb(board.proc.pid)
        print(f"board RSS {before:.1f} -> {after:.1f} MB after a 30 MiB command")
        assert after - before < BOARD_GROWTH_MB, (before, after)
        assert board.alive()
    finally:
        staff.loop_stop()
        staff.disconnect()
        board.stop()


async def _guess(port: int, sockets: int, seconds: float) -> dict[str, int]:
    """`sockets` WebSockets from one address send wrong tokens as fast as answered."""
    counts: dict[str, int] = {}
    end = time.monotonic() + seconds

    async def one(http: aiohttp.ClientSession) -> None:
        try:
            async with http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
                await ws.receive_json(timeout=30)  # the table
                while time.monotonic() < end:
                    await ws.send_json({"auth": "a-wrong-guess-0123456789"})
                    while (got := await ws.receive_json(timeout=30)).get("type") != "error":
                        pass  # board updates in between
                    counts[got["message"]] = counts.get(got["message"], 0) + 1
        except (aiohttp.ClientError, ConnectionError, TypeError):
            counts["closed"] = counts.get("closed", 0) + 1  # over the per-address cap

    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(one(http) for _ in range(sockets)))
    return counts


def test_a_hundred_sockets_guess_the_staff_token_no_faster_than_one(
    tmp_path: Path, broker: Broker
) -> None:
    token = "fleet-token-0123456789"
    dash = DashboardProcess(tmp_path, broker, token)
    try:
        started = time.monotonic()
        counts = asyncio.run(_guess(dash.port, 100, 5.0))
        took = time.monotonic() - started
        checked = counts.get("wrong token", 0)
        print(f"100 sockets, {took:.1f} s: {counts}")
        # The buckets: 5 per address at once, then 0.2/s (and 10 + 1/s for all together).
        assert checked <= 5 + 0.2 * took + 1, counts
        assert counts.get("rate_limited", 0) > 0

        async def sign_in() -> str:
            async with (
                aiohttp.ClientSession() as http,
                http.ws_connect(f"http://127.0.0.1:{dash.port}/ws") as ws,
            ):
                await ws.receive_json(timeout=30)
                await ws.send_json({"auth": token})
                while (got := await ws.receive_json(timeout=30)).get("type") not in (
                    "role",
                    "error",
                ):
                    pass
                return str(got.get("role") or got.get("message"))

        # Once the flood stops, the right token gets in (the buckets refill; it spends none).
        wait_until(lambda: asyncio.run(sign_in()) == "control", 60, "the staff to sign in")
    finally:
        dash.stop()
