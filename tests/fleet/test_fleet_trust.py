"""Issue 21, items 1, 2 and 8 (fleet): the broker's identity decides, no secret on the bus.

Real processes only: a private mosquitto with the shipped ACL
(`kiothi_board/fleet/kiothi.acl`), a board daemon with a token, the fleet dashboard. A
`display` account subscribed to `#` records everything it may read while the staff act
through the dashboard and straight over MQTT; it then tries every string it read as a secret
(over MQTT and over TCP) and tries to act under the staff's name and as a fake board. On the
old code it read the board's token (the dashboard's `auth` line on `cmd/fleet-…`) and a
fresh ticket on `reply/…`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import queue
import re
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.api.helpers import socket_client
from tests.conftest import free_port
from tests.fleet.conftest import USERS, BoardProcess, Broker, DashboardProcess, wait_until

ATTACK_S = 10.0  # seconds of the client-id fight
BOARD_TOKEN = "board-token-0123456789abcdef"
FLEET_TOKEN = "fleet-token-0123456789abcdef"


class Listener:
    """A paho client of broker user `user` that records every message it is given."""

    def __init__(self, broker: Broker, user: str, topics: list[str]) -> None:
        self.got: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.seen: list[tuple[str, bytes]] = []
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"{user}-{uuid.uuid4().hex[:6]}"
        )
        self.client.username_pw_set(user, USERS[user])
        self.client.on_message = lambda c, u, m: self.got.put((m.topic, bytes(m.payload)))
        subscribed: queue.Queue[int] = queue.Queue()
        self.client.on_subscribe = lambda *a: subscribed.put(1)
        self.client.on_connect = lambda c, *a: c.subscribe([(t, 1) for t in topics])
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        subscribed.get(timeout=30)

    def drain(self) -> list[tuple[str, bytes]]:
        while not self.got.empty():
            self.seen.append(self.got.get_nowait())
        return self.seen

    def ask(self, topic: str, request: dict[str, Any]) -> None:
        self.client.publish(topic, json.dumps(request), qos=1).wait_for_publish(10)

    def reply(self, topic: str, rid: int, timeout: float = 30.0) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            for t, payload in self.drain():
                if t == topic and f'"id":{rid}'.encode() in payload:
                    return dict(json.loads(payload))
            return None

        wait_until(lambda: found() is not None, timeout, f"reply {rid} on {topic}")
        out = found()
        assert out is not None
        return out

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def board(tmp_path: Path, broker: Broker) -> Iterator[tuple[BoardProcess, int]]:
    port = free_port()
    b = BoardProcess(tmp_path, "b1", broker.url, api=f'tcp_port = {port}\ntoken = "{BOARD_TOKEN}"')
    b.start(autoplay=None)
    yield b, port
    b.stop()


@pytest.fixture
def dashboard(tmp_path: Path, broker: Broker) -> Iterator[DashboardProcess]:
    d = DashboardProcess(tmp_path, broker, FLEET_TOKEN)
    yield d
    d.stop()


def _tcp_hello(port: int, args: dict[str, Any]) -> dict[str, Any]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        return socket_client(sock).request("hello", args)


def _brightness(port: int) -> float:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        reply = socket_client(sock).request("settings.get", {})
        return float(reply["result"]["settings"]["brightness"])


async def _dashboard_sets_brightness(port: int, value: float) -> list[dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
    ):
        got = [await ws.receive_json(timeout=30)]
        await ws.send_json({"auth": FLEET_TOKEN})
        while got[-1].get("type") != "role":
            got.append(await ws.receive_json(timeout=30))
        await ws.send_json({"action": "settings.set", "board": "b1", "args": {"brightness": value}})
        while got[-1].get("type") != "sent":
            got.append(await ws.receive_json(timeout=30))
        return got


def _candidates(seen: list[tuple[str, bytes]]) -> set[str]:
    """Every string value a reader could try as a secret (ticket-, token-like words)."""
    words: set[str] = set()
    for _topic, payload in seen:
        words.update(re.findall(r"[A-Za-z0-9_\-]{16,}", payload.decode("utf-8", "replace")))
    return words


def test_a_reader_of_everything_sees_no_secret_and_gains_no_control(
    broker: Broker, board: tuple[BoardProcess, int], dashboard: DashboardProcess
) -> None:
    daemon, tcp = board
    display = Listener(broker, "display", ["#"])
    staff = Listener(broker, "frontdesk", ["kiothi/v1/+/reply/frontdesk"])
    try:
        wait_until(lambda: any(t.endswith("/b1/state") for t, _ in display.drain()), 30, "b1")
        # The staff act through the dashboard...
        asyncio.run(_dashboard_sets_brightness(dashboard.port, 0.25))
        wait_until(lambda: _brightness(tcp) == 0.25, 30, "the dashboard's brightness")
        # ...and straight over MQTT, as their own broker user (one connection a user: the
        # shipped use_username_as_clientid).
        staff.ask("kiothi/v1/b1/cmd/frontdesk", {"id": 2, "cmd": "settings.set",
                                             "args": {"brightness": 0.5}})  # fmt: skip
        assert staff.reply("kiothi/v1/b1/reply/frontdesk", 2)["ok"] is True
        assert _brightness(tcp) == 0.5
        # A token over MQTT is refused before it is checked, and answers with no ticket.
        auth = {"id": 3, "cmd": "auth", "args": {"token": "x" * 20}}
        staff.ask("kiothi/v1/b1/cmd/frontdesk", auth)
        refused = staff.reply("kiothi/v1/b1/reply/frontdesk", 3)
        assert refused["ok"] is False and "result" not in refused

        seen = display.drain()
        assert seen and not any("/cmd/" in t or "/reply/" in t for t, _ in seen)
        blob = b"\n".join(p for _t, p in seen)
        assert BOARD_TOKEN.encode() not in blob and FLEET_TOKEN.encode() not in blob
        assert b'"ticket"' not in blob and b'"token"' not in blob

        # Nothing it read is a key: not over MQTT (as itself), not over TCP.
        words = sorted(_candidates(seen))[:50]
        for i, word in enumerate(words):
            display.ask("kiothi/v1/b1/cmd/display", {"id": 100 + i, "cmd": "auth",
                                                     "args": {"ticket": word}})  # fmt: skip
            assert display.reply("kiothi/v1/b1/reply/display", 100 + i)["ok"] is False
        for word in words[:10]:
            assert _tcp_hello(tcp, {"ticket": word}).get("ok") is False
        # Under the staff's name the broker drops its write; as a fake board too.
        display.ask("kiothi/v1/b1/cmd/frontdesk", {"id": 9, "cmd": "settings.set",
                                               "args": {"brightness": 0.1}})  # fmt: skip
        display.client.publish("kiothi/v1/fake/status", "online", retain=True).wait_for_publish(5)
        display.ask("kiothi/v1/b1/cmd/display", {"id": 10, "cmd": "ping"})
        display.reply("kiothi/v1/b1/reply/display", 10)  # later than its other writes
        assert _brightness(tcp) == 0.5
        staff.ask("kiothi/v1/b1/cmd/frontdesk", {"id": 11, "cmd": "ping"})
        staff.reply("kiothi/v1/b1/reply/frontdesk", 11)
        assert not [t for t, p in staff.drain() if b'"id":9' in p], "display's write reached b1"
        late = Listener(broker, "homeassistant", ["kiothi/v1/+/status"])
        try:
            wait_until(lambda: any("/b1/" in t for t, _ in late.drain()), 30, "b1's status")
            assert not any("/fake/" in t for t, _ in late.drain())
        finally:
            late.close()
    finally:
        display.close()
        staff.close()
    assert daemon.alive() and dashboard.alive()


def test_docs_show_the_shipped_acl_exactly() -> None:
    from kiothi_board.fleet.acl import SHIPPED_ACL

    doc = (SHIPPED_ACL.parents[2] / "docs" / "fleet.md").read_text()
    assert SHIPPED_ACL.read_text() in doc


def test_the_dashboard_refuses_a_board_token_to_put_on_the_bus(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kiothi_board.fleet.dashboard import main

    monkeypatch.setenv("KIOTHI_BOARD_TOKEN", BOARD_TOKEN)
    assert main(["--broker", "mqtt://127.0.0.1:1"]) == 2
    out = capsys.readouterr().out
    assert "KIOTHI_BOARD_TOKEN is no longer used" in out and "mqtt.staff_users" in out


def test_print_acl_copies_the_board_block_for_each_board(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kiothi_board.fleet.dashboard import main

    assert main(["--print-acl", "hall-2", "cafe-1"]) == 0
    out = capsys.readouterr().out
    assert "pattern write kiothi/v1/+/cmd/%u" in out and "user hall-1" not in out
    assert "topic write kiothi/v1/cafe-1/state" in out
    assert "topic write homeassistant/+/kiothi_hall_2/+/config" in out
    assert main(["--print-acl", "a/b"]) == 2
    assert "'a/b' must be" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("boards", "said"),
    [
        (["hall-2", "staff"], "'staff' is one of the ACL's fixed users (staff, display, "),
        (["display"], "'display' is one of the ACL's fixed users"),
        (["homeassistant"], "'homeassistant' is one of the ACL's fixed users"),
        (["hall_1", "hall-1"], "'hall-1' and 'hall_1' are one Home Assistant node id ('kiothi_"),
        (["cafe-1", "cafe-1"], "'cafe-1' is given twice"),
    ],
)  # fmt: skip
def test_print_acl_refuses_a_fixed_user_and_a_shared_node_id(
    capsys: pytest.CaptureFixture[str], boards: list[str], said: str
) -> None:
    """Issue 30 item 8: the old code printed a `user staff` board block (the board with the
    dashboard's reads, the dashboard with the board's writes) and two blocks writing one
    Home Assistant node. Now: one line, exit 2, nothing printed."""
    from kiothi_board.fleet.dashboard import main

    assert main(["--print-acl", *boards]) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and said in out and "pattern" not in out, out
    assert out.startswith("kiothi-board fleet --print-acl: "), out


def test_docs_show_the_shipped_broker_config_exactly() -> None:
    from kiothi_board.fleet.acl import SHIPPED_CONF

    doc = (SHIPPED_CONF.parents[2] / "docs" / "fleet.md").read_text()
    assert SHIPPED_CONF.read_text() in doc
    assert "use_username_as_clientid true" in SHIPPED_CONF.read_text()


def _health(port: int) -> dict[str, Any]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        return dict(socket_client(sock).request("health")["result"])


@pytest.mark.parametrize("shipped", [True, False], ids=["shipped-config", "bare-broker"])
def test_no_account_can_take_the_boards_connection(tmp_path: Path, shipped: bool) -> None:
    """Issue 30 item 6: `display` connects again and again with the board's client id as
    it was (`kiothi-board-b1`) for ATTACK_S seconds while the staff ping the board. On the
    old code, on a broker without the shipped config, the two fought: the board's status
    flipped offline/online (see the note's figure), takeovers were not counted, the staff's
    requests were lost. Now: with the shipped config the broker makes each id its user name;
    without it the board's random suffix leaves nothing to guess: 0 flips, 0 takeovers. And
    a takeover that does happen (a second client as the board's own user) is counted."""
    broker = Broker(tmp_path / "broker", shipped=shipped).start()
    port = free_port()
    daemon = BoardProcess(tmp_path, "b1", broker.url, api=f"tcp_port = {port}")
    daemon.start(autoplay=None)
    watch = Listener(broker, "homeassistant", ["kiothi/v1/b1/status"])
    staff = Listener(broker, "staff", ["kiothi/v1/+/reply/staff"])
    attacker = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="kiothi-board-b1")
    attacker.username_pw_set("display", USERS["display"])
    attacker.reconnect_delay_set(min_delay=1, max_delay=1)
    try:
        wait_until(lambda: b"online" in [p for _t, p in watch.drain()], 30, "b1 online")
        wait_until(lambda: _health(port)["mqtt"]["status"] == "up", 30, "b1's MQTT up")
        attacker.connect_async("127.0.0.1", broker.port, keepalive=5)
        attacker.loop_start()
        answered, deadline = 0, time.monotonic() + ATTACK_S
        for rid in itertools.count(1000):
            if time.monotonic() > deadline:
                break
            staff.ask("kiothi/v1/b1/cmd/staff", {"id": rid, "cmd": "ping"})
            with contextlib.suppress(AssertionError):
                staff.reply("kiothi/v1/b1/reply/staff", rid, timeout=2.0)
                answered += 1
        asked = rid - 1000
        flips = [p for _t, p in watch.drain()].count(b"offline")
        health = _health(port)["mqtt"]
        taken = health.get("takeovers", "uncounted")  # the old code did not count them
        print(f"client-id fight ({'shipped config' if shipped else 'bare broker'}), "
              f"{ATTACK_S:.0f} s: {flips} offline flips, {taken} takeovers, "
              f"{health['reconnects']} reconnects, staff {answered}/{asked} answered")  # fmt: skip
        assert flips == 0 and taken == 0 and health["reconnects"] == 0, health
        assert answered == asked, (answered, asked)
        if shipped:  # the one client that can take it: the board's own user, a second time
            twin = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="anything")
            twin.username_pw_set("b1", USERS["b1"])
            twin.connect("127.0.0.1", broker.port)
            twin.loop_start()
            try:
                wait_until(lambda: _health(port)["mqtt"]["takeovers"] >= 1, 30, "a takeover")
            finally:
                twin.loop_stop()
                twin.disconnect()
    finally:
        attacker.loop_stop()
        attacker.disconnect()
        watch.close()
        staff.close()
        daemon.stop()
        broker.kill()
    assert "another client connected with this board's client id" in daemon.log() or not shipped
