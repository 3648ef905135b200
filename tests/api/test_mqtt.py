"""The MQTT adapter against a real broker (a private mosquitto the tests start), in-process."""

from __future__ import annotations

import json
import queue
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from kiothi_board.api.mqtt import MqttSettings, parse_broker_url
from kiothi_board.api.mqtt_discovery import discovery_messages
from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.errors import ConfigError
from tests.conftest import Mosquitto

BROKER = "mqtt://127.0.0.1:1883"  # only parsed here, never connected to


class Watcher:
    """A plain paho client that records what it sees on a topic filter."""

    def __init__(self, topics: str, port: int) -> None:
        self.messages: queue.Queue[tuple[str, bytes, bool]] = queue.Queue()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"w-{uuid.uuid4().hex}")
        self.client.on_message = lambda c, u, m: self.messages.put((m.topic, m.payload, m.retain))
        subscribed = queue.Queue[int]()
        self.client.on_subscribe = lambda *a: subscribed.put(1)
        self.client.on_connect = lambda c, *a: c.subscribe(topics, qos=1)
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()
        subscribed.get(timeout=30)

    def wait(self, topic: str, pred: Any = lambda p: True, timeout: float = 30.0) -> bytes:
        import time

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"nothing on {topic} matched in {timeout} s")
            try:
                got, payload, _ = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if got == topic and pred(payload):
                return payload

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def board(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[tuple[Daemon, str]]:
    prefix = f"kiothi-test-{uuid.uuid4().hex[:8]}/v1"
    cfg = validate(
        {
            "game": {"mode": "two"},
            "api": {"tcp_port": 0, "web_port": 0},
            "mqtt": {"url": mosquitto.url, "board_id": "b1", "prefix": prefix, "periodic_s": 1},
        }
    )
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path))
    yield daemon, f"{prefix}/b1"
    daemon.close()


def test_board_publishes_status_state_and_takes_commands(
    board: tuple[Daemon, str], mosquitto: Mosquitto
) -> None:
    daemon, base = board
    w = Watcher(f"{base}/#", mosquitto.port)
    try:
        assert w.wait(f"{base}/status") == b"online"
        state = json.loads(w.wait(f"{base}/state"))
        assert state["state"]["stage"] in ("open", "turn")
        health = json.loads(w.wait(f"{base}/health"))
        assert health["mqtt"]["status"] == "up"
        # A spectator may read but not control: the broker alone does not give control.
        w.client.publish(f"{base}/cmd/t1", json.dumps({"id": 1, "cmd": "new_game", "args": {}}))
        reply = json.loads(w.wait(f"{base}/reply/t1"))
        assert reply["ok"] is False and reply["error"]["code"] == "unauthorized"
        w.client.publish(f"{base}/cmd/t1", json.dumps({"id": 2, "cmd": "state"}))
        reply = json.loads(w.wait(f"{base}/reply/t1", lambda p: b'"id":2' in p))
        assert reply["ok"] and reply["result"]["state"]["stage"] in ("open", "turn")
        w.client.publish(f"{base}/cmd/t1", b"{not json")
        bad = json.loads(w.wait(f"{base}/reply/t1", lambda p: b"parse_error" in p))
        assert bad["ok"] is False
        daemon.board.press(5)  # S6: lift for the opening; an event reaches the broker
        w.wait(f"{base}/events")
    finally:
        w.close()
    daemon.close()
    w2 = Watcher(f"{base}/status", mosquitto.port)
    try:
        assert w2.wait(f"{base}/status") == b"offline"  # retained goodbye
    finally:
        w2.close()


def test_broker_url_and_board_id_errors_name_the_key(tmp_path: Path) -> None:
    assert parse_broker_url("mqtt://h") == ("h", 1883, False)
    assert parse_broker_url("mqtts://h:9") == ("h", 9, True)
    with pytest.raises(ConfigError, match=r"mqtt\.url"):
        parse_broker_url("http://h")
    with pytest.raises(ConfigError, match=r"mqtt\.board_id"):
        cfg = validate(
            {"mqtt": {"url": BROKER, "board_id": "a/b"}, "api": {"tcp_port": 0, "web_port": 0}}
        )
        Daemon(cfg, sim=True, state_dir=str(tmp_path))


def test_home_assistant_discovery_follows_the_conventions() -> None:
    msgs = dict(discovery_messages(MqttSettings(url=BROKER, board_id="hall-2")))
    button = json.loads(msgs["homeassistant/button/kiothi_hall_2/new_game/config"])
    assert button["command_topic"] == "kiothi/v1/hall-2/cmd/homeassistant"
    assert json.loads(button["payload_press"])["cmd"] == "new_game"
    sensor = json.loads(msgs["homeassistant/sensor/kiothi_hall_2/cpu_temperature/config"])
    assert sensor["availability_topic"] == "kiothi/v1/hall-2/status"
    assert sensor["device"]["identifiers"] == ["kiothi_hall_2"]
    assert all(json.loads(p)["unique_id"].startswith("kiothi_hall_2_") for p in msgs.values())


def test_the_broker_user_decides_and_no_secret_travels_on_mqtt(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """`cmd/<user>`: staff users control, others spectate; `auth`/`hello` with a secret are
    refused before they are checked, so no reply on the bus ever carries a ticket."""
    prefix = f"kiothi-test-{uuid.uuid4().hex[:8]}/v1"
    token = "board-token-0123456789"
    cfg = validate(
        {
            "game": {"mode": "two"},
            "api": {"tcp_port": 0, "web_port": 0, "token": token},
            "mqtt": {"url": mosquitto.url, "board_id": "b1", "prefix": prefix,
                     "staff_users": ["ops"]},
        }
    )  # fmt: skip
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path))
    base = f"{prefix}/b1"
    w = Watcher(f"{base}/#", mosquitto.port)
    try:
        w.wait(f"{base}/status")

        def ask(user: str, rid: int, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
            w.client.publish(
                f"{base}/cmd/{user}", json.dumps({"id": rid, "cmd": cmd, "args": args})
            )
            return json.loads(w.wait(f"{base}/reply/{user}", lambda p: f'"id":{rid}'.encode() in p))

        assert ask("ops", 1, "new_game", {"mode": "two"})["ok"] is True
        assert ask("t1", 2, "new_game", {})["error"]["code"] == "unauthorized"
        for rid, cmd in ((3, "auth"), (4, "hello")):
            refused = ask("t1", rid, cmd, {"token": token})
            assert refused["ok"] is False and "mqtt.staff_users" in refused["error"]["message"]
        hello = ask("t1", 5, "hello", {})
        assert hello["ok"] and hello["result"]["role"] == "spectator"
        assert "ticket" not in hello["result"]
        assert ask("t1", 6, "new_game", {})["error"]["code"] == "unauthorized"  # still
        # More users than max_clients (32) evict sessions, never the staff's role: it comes
        # from the config, not from a secret the session once sent.
        for n in range(40):
            w.client.publish(f"{base}/cmd/x{n}", json.dumps({"id": 7, "cmd": "ping"}))
        w.wait(f"{base}/reply/x39")
        assert ask("ops", 8, "new_game", {"mode": "two"})["ok"] is True
    finally:
        w.close()
        daemon.close()


def test_trust_broker_is_gone_with_a_line_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"mqtt\.trust_broker was removed.*mqtt\.staff_users"):
        validate({"mqtt": {"trust_broker": True}})
    with pytest.raises(ConfigError, match=r"mqtt\.staff_users"):
        validate({"mqtt": {"staff_users": ["a/b"]}})


def test_dashboard_actions_need_the_staff_token_and_send_real_commands() -> None:
    from kiothi_board.fleet.staff import StaffGate, handle

    sent: list[tuple[str, str, dict[str, Any]]] = []

    class Hub:
        def command(self, board: str, cmd: str, args: dict[str, Any]) -> None:
            sent.append((board, cmd, args))

    role = ["spectator"]
    gate = StaffGate("staff-token-0123456789")
    action = json.dumps({"action": "settings.set", "board": "b1", "args": {"brightness": 0.3}})
    refused = handle(action, Hub(), gate, role)  # type: ignore[arg-type]
    assert refused["type"] == "error" and "staff token" in refused["message"] and not sent
    ok = handle(json.dumps({"auth": "staff-token-0123456789"}), Hub(), gate, role)  # type: ignore[arg-type]
    assert ok == {"type": "role", "role": "control"}
    handle(action, Hub(), gate, role)  # type: ignore[arg-type]
    assert sent == [("b1", "settings.set", {"brightness": 0.3})]


def test_a_retained_request_is_not_run_at_connect(tmp_path: Path, mosquitto: Mosquitto) -> None:
    """Issue 30 item 7: a request published with `retain` stays on the broker; the old code
    ran it at every (re)connect (here: the board's first connect set the brightness)."""
    prefix = f"kiothi-test-{uuid.uuid4().hex[:8]}/v1"
    base = f"{prefix}/b1"
    w = Watcher(f"{base}/#", mosquitto.port)
    request = {"id": 1, "cmd": "settings.set", "args": {"brightness": 0.75}}
    w.client.publish(f"{base}/cmd/ops", json.dumps(request), qos=1, retain=True).wait_for_publish(
        10
    )
    cfg = validate(
        {
            "game": {"mode": "two"},
            "api": {"tcp_port": 0, "web_port": 0},
            "mqtt": {"url": mosquitto.url, "board_id": "b1", "prefix": prefix,
                     "staff_users": ["ops"], "periodic_s": 1},
        }
    )  # fmt: skip
    for _start in range(2):  # a connect, then a reconnect of a restarted board
        daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path))
        try:
            w.wait(f"{base}/status", lambda p: p == b"online")  # subscribed before it says so
            w.client.publish(f"{base}/cmd/ops", json.dumps({"id": 2, "cmd": "settings.get"}))
            got = json.loads(w.wait(f"{base}/reply/ops", lambda p: b'"id":2' in p))
            assert got["result"]["settings"]["brightness"] == 0.3, (_start, got)  # the default
            w.client.publish(f"{base}/cmd/ops", json.dumps({"id": 3, "cmd": "health"}))
            health = json.loads(w.wait(f"{base}/reply/ops", lambda p: b'"id":3' in p))
            assert health["result"]["mqtt"]["commands"] == 2  # settings.get and health only
        finally:
            daemon.close()
    w.close()
