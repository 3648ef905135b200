"""axe-core finds no serious or critical violation on the twin, the operator page and the
fleet dashboard (issue 24), at a phone's and a desktop's width, in several states."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from kiothi_board.clock import SystemClock
from kiothi_board.fleet.hub import FleetHub
from tests.api.twin_harness import serve
from tests.axe_pages import violations
from tests.browser import WAIT_MS, chromium, wait_js
from tests.fleet.test_fleet import Dashboard

WIDTHS = (320, 1280)


def test_the_twin_and_the_operator_page() -> None:
    with chromium() as browser, serve(browser) as twin:
        found: dict[str, list[str]] = {}
        for width in WIDTHS:
            page = twin.page({"width": width, "height": 800})
            found[f"twin {width} no game"] = violations(page)
            twin.ctl.new_game("ai", "S", 3, "step", {})
            twin.synced(page)
            found[f"twin {width} opening"] = violations(page)
            page.click("#btn-howto")
            page.wait_for_selector("#howto[open] #howto-body img")
            found[f"twin {width} how to play"] = violations(page)
            page.keyboard.press("Escape")
            page.goto(twin.url + "operator")
            page.wait_for_selector("#role.control")
            wait_js(page, "/^Game /.test(document.querySelector('#game-line').textContent)")
            found[f"operator {width}"] = violations(page)
            watcher = browser.new_page(viewport={"width": width, "height": 800})
            watcher.goto(twin.url + "operator")
            watcher.wait_for_selector("#role.spectator", timeout=WAIT_MS)
            found[f"operator {width} watching"] = violations(watcher)
            watcher.close()
        assert not any(found.values()), json.dumps(found, indent=1)


def _feed(hub: FleetHub, board: str, topic: str, payload: Any) -> None:
    """One retained message as the broker would deliver it (no broker needed)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    hub._on_message(None, None, SimpleNamespace(topic=f"kiothi/v1/{board}/{topic}", payload=data))


@pytest.fixture
def fed_hub() -> Any:
    hub = FleetHub("mqtt://127.0.0.1:9", clock=SystemClock())  # never started
    board = [0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6]
    for name, status in (("hall-1", "online"), ("hall-2", "online"), ("old-3", "offline")):
        _feed(hub, name, "status", status.encode())
        _feed(hub, name, "info", {"web": "http://127.0.0.1:8420/", "version": "1"})
        _feed(hub, name, "state", {"state": {"stage": "turn", "board": board, "expect": "S6",
              "position": {"board": board, "captured": [3, 1], "to_move": "S"}}})  # fmt: skip
        _feed(hub, name, "health", {"status": "ok", "uptime": 5432.1, "free_disk": 79177859072,
              "exhibit": {"enabled": True, "phase": "playing", "cpu_temperature": 51.2,
                          "input_faults": 0}})  # fmt: skip
        _feed(hub, name, "stats", {"today": {"games": {"started": 12, "finished": 9}}})
        _feed(hub, name, "events", {"event": "move", "pit": "S6"})
        _feed(hub, name, "events", {"event": "game_over"})
    return hub


def test_the_fleet_dashboard(fed_hub: FleetHub) -> None:
    dash = Dashboard(fed_hub)
    try:
        with chromium() as browser:
            found: dict[str, list[str]] = {}
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": 800})
                page.set_default_timeout(WAIT_MS)
                page.goto(f"http://127.0.0.1:{dash.port}/")
                wait_js(page, "document.querySelectorAll('.tile').length === 3")
                found[f"dashboard {width}"] = violations(page)
                page.click(".tile[data-board=hall-1]")
                page.wait_for_selector("#detail[open]")
                found[f"dashboard {width} detail"] = violations(page)
                page.close()
            assert not any(found.values()), json.dumps(found, indent=1)
    finally:
        dash.close()
