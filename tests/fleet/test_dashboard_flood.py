"""Issue 30 item 5: the dashboard's right token gets in during a flood from 100 addresses.

The real dashboard process: one WebSocket per address (127.0.0.2 … 127.0.0.101) sends wrong
tokens as fast as it is answered while the staff sign in 30 times from 127.0.0.1. The token
is compared first, so a right one is never refused; wrong ones still spend from the buckets
and, over them, are answered a second late. On the old code 9 of 10 sign-ins were refused
(`rate_limited`): fresh addresses drained the clean peers' reserve that 127.0.0.1 used too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest

from tests.api.flood import FloodResult, run_flood
from tests.fleet.conftest import Broker, DashboardProcess

TOKEN = "fleet-token-0123456789abcdef"


async def _answer(ws: aiohttp.ClientWebSocketResponse) -> dict[str, object]:
    """The answer to an `auth` (board updates may come in between)."""
    while True:
        got = await ws.receive_json(timeout=30)
        if got.get("type") in ("role", "error"):
            return dict(got)


async def _guess(port: int, host: str, count: Callable[[], None]) -> None:
    connector = aiohttp.TCPConnector(local_addr=(host, 0))
    async with (
        aiohttp.ClientSession(connector=connector) as http,
        http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
    ):
        await ws.receive_json(timeout=30)  # the table
        for i in itertools.count():
            await ws.send_json({"auth": f"a-wrong-guess-{i:012d}"})
            await _answer(ws)
            count()


async def _sign_in(port: int) -> str:
    try:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await ws.receive_json(timeout=30)
            await ws.send_json({"auth": TOKEN})
            got = await _answer(ws)
    except aiohttp.ClientError as exc:
        return f"failed: {exc}"
    return "ok" if got.get("role") == "control" else str(got.get("message"))


def staff_during_a_token_flood(tmp_path: Path, broker: Broker, duration: float) -> FloodResult:
    dash = DashboardProcess(tmp_path, broker, TOKEN)
    try:
        result = run_flood(
            lambda host, count: _guess(dash.port, host, count),
            lambda: _sign_in(dash.port),
            duration=duration,
        )
        assert dash.alive(), dash.log()[-2000:]
    finally:
        dash.stop()
    print(f"token flood, {duration:.0f} s: {result.summary()}")
    return result


def test_the_staffs_token_gets_in_during_a_flood_from_100_addresses(
    tmp_path: Path, broker: Broker
) -> None:
    result = staff_during_a_token_flood(tmp_path, broker, 12.0)
    assert result.staff.count("ok") == 30, (result.summary(), result.staff)
    assert result.guesses >= 100, result.summary()  # every address guessed


@pytest.mark.soak
def test_the_staffs_token_gets_in_during_a_60_s_flood(tmp_path: Path, broker: Broker) -> None:
    result = staff_during_a_token_flood(tmp_path, broker, 60.0)
    assert result.staff.count("ok") == 30, (result.summary(), result.staff)
