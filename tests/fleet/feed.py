"""A fleet hub fed by hand with boards' retained messages (no broker), and its dashboard."""

from __future__ import annotations

import asyncio
import json
import threading
from types import SimpleNamespace
from typing import Any

from aiohttp import web

from kiothi_board.clock import SystemClock
from kiothi_board.fleet.dashboard import allowed_hosts, make_app
from kiothi_board.fleet.hub import FleetHub
from tests.browser import wait_js
from tests.conftest import free_port

START = [0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6]


def feed(hub: FleetHub, board: str, topic: str, payload: Any) -> None:
    """One message as the broker would deliver it."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    hub._on_message(None, None, SimpleNamespace(topic=f"kiothi/v1/{board}/{topic}", payload=data))


def sign_in(page: Any, token: str) -> None:
    """Staff sign in on the dashboard's page with `token`, and wait until it says so."""
    page.fill("#token", token)
    page.press("#token", "Enter")
    wait_js(page, "document.body.innerText.includes('staff actions are on')")


def fed_hub() -> FleetHub:
    """Two boards online, one retired (offline), with health, statistics and events."""
    hub = FleetHub("mqtt://127.0.0.1:9", clock=SystemClock())  # never started
    for name, status in (("hall-1", "online"), ("hall-2", "online"), ("old-3", "offline")):
        feed(hub, name, "status", status.encode())
        feed(hub, name, "info", {"web": "http://127.0.0.1:8420/", "version": "1"})
        feed(hub, name, "state", {"state": {"stage": "turn", "board": START, "expect": "S6",
             "position": {"board": START, "captured": [3, 1], "to_move": "S"}}})  # fmt: skip
        feed(hub, name, "health", {"status": "ok", "uptime": 5432.1, "free_disk": 79177859072,
             "exhibit": {"enabled": True, "phase": "playing", "cpu_temperature": 51.2,
                         "input_faults": 0}})  # fmt: skip
        feed(hub, name, "stats", {"today": {"games": {"started": 12, "finished": 9}}})
        feed(hub, name, "events", {"event": "move", "pit": "S6"})
        feed(hub, name, "events", {"event": "game_over"})
    return hub


class Served:
    """The dashboard's aiohttp app for `hub` on its own loop and thread."""

    def __init__(self, hub: FleetHub, token: str | None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            app = make_app(hub, token=token, hosts=allowed_hosts("127.0.0.1", []))
            self.runner = web.AppRunner(app, access_log=None)
            self.loop.run_until_complete(self.runner.setup())
            site = web.TCPSite(self.runner, "127.0.0.1", self.port)
            self.loop.run_until_complete(site.start())
            ready.set()
            self.loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        assert ready.wait(10), "dashboard did not start"
        self.url = f"http://127.0.0.1:{self.port}/"

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
