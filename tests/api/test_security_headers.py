"""Issue 33 (small seams): the board's web door and the fleet dashboard send one set of
security headers, `api/headers.py`'s `SECURITY_HEADERS` (two copies of it could drift)."""

from __future__ import annotations

import asyncio
import urllib.request

from aiohttp import web

from kiothi_board.api import start_api
from kiothi_board.api.headers import SECURITY_HEADERS
from kiothi_board.board import Board
from kiothi_board.clock import SystemClock
from kiothi_board.fleet.dashboard import make_app
from kiothi_board.fleet.hub import FleetHub
from kiothi_board.hardware.fakes import FakePixelSink


def _headers(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return {k: reply.headers[k] for k in SECURITY_HEADERS}


async def _dashboard_headers() -> dict[str, str]:
    hub = FleetHub("mqtt://127.0.0.1:1", clock=SystemClock())  # never started: no broker
    runner = web.AppRunner(make_app(hub, token=None, hosts=frozenset({"127.0.0.1"})))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        pages = [f"http://127.0.0.1:{port}{path}" for path in ("/", "/api/boards")]
        got = [await asyncio.to_thread(_headers, url) for url in pages]
    finally:
        await runner.cleanup()
    assert got[0] == got[1]
    return got[0]


def test_the_board_and_the_dashboard_send_the_same_security_headers(
    real_service: tuple[Board, FakePixelSink],
) -> None:
    ctl, _ = real_service
    with start_api(ctl, {"tcp_port": None, "web_port": 0}) as server:
        board = [_headers(f"http://127.0.0.1:{server.web_port}{p}") for p in ("/", "/healthz")]
    assert board[0] == board[1] == SECURITY_HEADERS
    assert asyncio.run(_dashboard_headers()) == SECURITY_HEADERS
