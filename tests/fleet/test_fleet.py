"""Three simulated boards on a private mosquitto (users + ACL), the fleet hub and dashboard.

The broker is killed and restarted mid-game, a board is SIGKILLed, a display without
control tries to command a board, and a real Chromium watches the dashboard.
"""

from __future__ import annotations

import json
import queue
import signal
import uuid
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from kiothi_board.clock import SystemClock
from kiothi_board.fleet.hub import FleetHub
from tests.api.helpers import ARTIFACTS
from tests.browser import chromium, wait_js
from tests.fleet.conftest import USERS, BoardProcess, Broker, wait_until
from tests.fleet.feed import Served, sign_in

STAFF_TOKEN = "staff-token-0123456789"


def _client(user: str) -> tuple[mqtt.Client, queue.Queue[tuple[str, bytes]]]:
    got: queue.Queue[tuple[str, bytes]] = queue.Queue()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{user}-{uuid.uuid4().hex[:6]}")
    c.username_pw_set(user, USERS[user])
    c.on_message = lambda cl, u, m: got.put((m.topic, bytes(m.payload)))
    return c, got


def _online(hub: FleetHub, names: set[str]) -> bool:
    views = {b["board"]: b for b in hub.boards()}
    return all(n in views and views[n]["status"] == "online" and views[n]["state"] for n in names)


@pytest.fixture
def hub(broker: Broker) -> Iterator[FleetHub]:
    h = FleetHub(broker.url, clock=SystemClock(), username="staff", password=USERS["staff"]).start()
    yield h
    h.close()


def test_display_cannot_command_but_staff_can(
    broker: Broker, boards: list[BoardProcess], hub: FleetHub
) -> None:
    wait_until(lambda: _online(hub, {"b1", "b2", "b3"}), 30, "three boards online")
    before = hub.board("b1")["state"]["game_id"]  # type: ignore[index]
    display, got = _client("display")
    display.connect("127.0.0.1", broker.port)
    display.subscribe("kiothi/v1/b1/reply/#")
    display.loop_start()
    try:
        request = {"id": 7, "cmd": "new_game", "args": {}}
        # As itself, the display is a spectator: the board refuses its new game.
        display.publish("kiothi/v1/b1/cmd/display", json.dumps(request), qos=1)
        topic, reply = got.get(timeout=30)
        assert topic == "kiothi/v1/b1/reply/display"
        assert json.loads(reply)["error"]["code"] == "unauthorized"
        # Under the staff's name the broker's ACL drops the write: no reply, no game.
        display.publish("kiothi/v1/b1/cmd/staff", json.dumps(request), qos=1).wait_for_publish(5)
        with pytest.raises(queue.Empty):
            got.get(timeout=2.0)
    finally:
        display.loop_stop()
        display.disconnect()
    assert hub.board("b1")["state"]["game_id"] == before  # type: ignore[index]
    # Hear every event of b1 as the hub folds it in: its view keeps only the last 20, and
    # three autoplaying boards push a new one out in a few seconds on a loaded machine.
    heard: queue.Queue[str] = queue.Queue()

    def hear(update: dict[str, Any]) -> None:
        view = update.get("board") or {}
        if view.get("board") == "b1" and view.get("events"):
            heard.put(view["events"][-1].get("event"))

    hub.listeners.add(hear)
    hub.command("b1", "new_game", {"mode": "two"})
    events = []
    while "new_game" not in events:
        events.append(heard.get(timeout=30))  # the staff's new game on b1 is announced
    hub.listeners.remove(hear)
    wait_until(
        lambda: hub.board("b1")["state"]["game_id"] != before,  # type: ignore[index]
        30,
        "the staff's new game on b1",
    )
    assert "new_game" in events


def test_broker_restart_and_a_killed_board(
    broker: Broker, boards: list[BoardProcess], hub: FleetHub
) -> None:

    wait_until(lambda: _online(hub, {"b1", "b2", "b3"}), 30, "three boards online")
    dash = Served(hub, token=STAFF_TOKEN)
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(dash.url)
            wait_js(page, "document.querySelectorAll('.tile').length === 3")
            page.focus(".tile[data-board=b1]")
            first = page.inner_text(".tile[data-board=b1]")
            wait_js(
                page,
                "t => document.querySelector('.tile[data-board=b1]').innerText !== t",
                arg=first,
            )  # the autoplayed game moves on: the tile updates live...
            # ...in place: the keyboard's focus (and a click aimed at it) stays on the tile
            assert page.evaluate("document.activeElement.dataset.board || null") == "b1"
            _restart_broker(broker, boards, hub)
            wait_js(page, "document.querySelectorAll('.tile .status.online').length === 3")
            _staff_switch_exhibition(page, hub)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "fleet-dashboard.png"), full_page=True)
            boards[2].stop(signal.SIGKILL)
            # The broker's last will (sent after 1.5 x the keep-alive, 2 s here) reaches the page.
            wait_js(
                page,
                "document.querySelector('.tile[data-board=b3] .status').textContent === 'offline'",
            )
            page.screenshot(path=str(ARTIFACTS / "fleet-dashboard-offline.png"), full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
            page.click(".tile[data-board=b1]")
            page.screenshot(path=str(ARTIFACTS / "fleet-dashboard-phone-detail.png"))
    finally:
        dash.close()
    assert boards[0].alive() and boards[1].alive()


def _exhibit(hub: FleetHub, board: str) -> dict[str, Any]:
    view = hub.board(board) or {}
    ex = (view.get("health") or {}).get("exhibit")
    return ex if isinstance(ex, dict) else {}


def _staff_switch_exhibition(page: Any, hub: FleetHub) -> None:
    """Staff sign in on the page and switch b2's exhibition mode on, then off again."""
    wait_until(lambda: _exhibit(hub, "b2").get("phase") == "off", 30, "b2 reports its mode")
    page.click(".tile[data-board=b2]")
    assert not page.is_visible("#exhibit-on"), "read-only without the token"
    page.click("#detail-close")
    sign_in(page, STAFF_TOKEN)
    page.click(".tile[data-board=b2]")
    page.click("#exhibit-on")
    wait_until(lambda: _exhibit(hub, "b2").get("enabled") is True, 30, "b2's exhibition on")
    wait_js(
        page,
        "document.querySelector('.tile[data-board=b2]').innerText.includes('exhibition')"
        " && !document.querySelector('.tile[data-board=b2]').innerText.includes('exhibition off')",
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "fleet-dashboard-exhibition-on.png"), full_page=True)
    page.click("#exhibit-off")
    wait_until(lambda: _exhibit(hub, "b2").get("enabled") is False, 30, "b2's exhibition off")
    page.click("#detail-close")


def _restart_broker(broker: Broker, boards: list[BoardProcess], hub: FleetHub) -> None:
    """Kill the broker mid-game; on its return every board republishes its retained topics."""
    events_before = {b["board"]: b["state"].get("events", 0) for b in hub.boards()}
    broker.kill()
    wait_until(lambda: not hub.connected.is_set(), 30, "the hub to notice the broker gone")
    broker.start()
    # persistence is off: whatever the hub sees now was published again after the restart.
    wait_until(hub.connected.is_set, 30, "the hub to reconnect")
    seen: dict[str, Any] = {}

    def back() -> bool:
        for b in hub.boards():
            if b["status"] == "online" and b["state"].get("events", 0) > events_before[b["board"]]:
                seen[b["board"]] = b
        return len(seen) == 3

    wait_until(back, 30, "every board back online with a game that carried on")
    assert all(b.alive() for b in boards)
    # A newcomer to the restarted broker finds every board's retained status and state.
    late, got = _client("display")
    late.connect("127.0.0.1", broker.port)
    late.subscribe([("kiothi/v1/+/status", 1), ("kiothi/v1/+/state", 1)])
    late.loop_start()
    try:
        found: set[str] = set()
        wait_until(lambda: _drain(got, found) >= 6, 30, "retained status and state of 3 boards")
    finally:
        late.loop_stop()
        late.disconnect()


def _drain(got: queue.Queue[tuple[str, bytes]], found: set[str]) -> int:
    while not got.empty():
        topic, _payload = got.get_nowait()
        found.add(topic)
    return len(found)


def test_bad_broker_and_port_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24 #6: both printed tracebacks."""
    from kiothi_board.fleet.dashboard import main

    for argv, words in (
        (["--broker", "http://x"], "argument --broker: 'http://x' must start with mqtt://"),
        (["--port", "99999"], "argument --port: 99999 is not a port"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err and "Traceback" not in err, err


def test_a_dashboard_without_a_token_says_it_is_read_only(tmp_path: Any) -> None:
    """Issue 24 #6: it started read-only without saying so."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "KIOTHI_FLEET_TOKEN"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "fleet", "--port", "0",
         "--broker", "mqtt://127.0.0.1:9"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("fleet dashboard on"):
                break
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    said = "".join(lines)
    assert "KIOTHI_FLEET_TOKEN is not set, so the dashboard is read-only" in said, said


def test_a_retired_board_is_forgotten_when_its_retained_status_is_cleared() -> None:
    """Issue 24 #6: retired boards stayed on the dashboard for ever."""
    from types import SimpleNamespace

    from kiothi_board.clock import FakeClock
    from kiothi_board.fleet.hub import FleetHub

    hub = FleetHub("mqtt://127.0.0.1:9", clock=FakeClock())
    pushed: list[dict[str, Any]] = []
    hub.listeners.add(pushed.append)

    def message(topic: str, payload: bytes) -> None:
        hub._on_message(None, None, SimpleNamespace(topic=f"kiothi/v1/{topic}", payload=payload))

    message("b1/status", b"online")
    message("b2/status", b"offline")
    assert [b["board"] for b in hub.boards()] == ["b1", "b2"]
    message("b2/status", b"")  # mosquitto_pub -r -n: the retained status cleared
    message("b2/info", b"")  # the others cleared after it do not bring it back
    assert [b["board"] for b in hub.boards()] == ["b1"]
    assert pushed[-1]["type"] == "boards" and len(pushed[-1]["boards"]) == 1
