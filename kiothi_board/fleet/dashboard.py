"""`kiothi-board fleet`: one web dashboard for every board on the venue's broker.

The page shows a tile per board (a live mini-twin, online/offline, health, today's
statistics, alerts); a click opens that board's full view. Without the staff token the
page is read-only; with it (typed once into the page, checked in constant time, failures
slowed down) staff may start a new game, switch exhibition mode on or off and set the brightness.
The server checks `Host` and the WebSocket's `Origin` against the names it serves, so a
page on another site cannot reach it through DNS rebinding.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import os
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from kiothi_board.clock import SystemClock
from kiothi_board.fleet.hub import FleetHub

__all__ = ["ACTIONS", "main", "make_app"]

log = logging.getLogger(__name__)

WEB_ROOT = Path(__file__).with_name("web")

_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; "
    "img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


# Staff actions: the page's name -> (board command, how to build its args from `value`).
def _on_off(value: object) -> dict[str, Any]:
    if not isinstance(value, bool):
        raise ValueError(f"exhibit: the value must be true or false, got {str(value)[:20]!r}")
    return {"enabled": value}


ACTIONS: dict[str, tuple[str, Any]] = {
    "new_game": ("new_game", lambda v: {}),
    "exhibit": ("exhibit.set", _on_off),
    "brightness": ("settings.set", lambda v: {"brightness": min(1.0, max(0.0, float(v)))}),
}

_MAX_MESSAGE = 4096
_AUTH_DELAY = 1.0  # seconds a wrong token costs: 1,000 guesses take over 16 minutes


def allowed_hosts(bind: str, extra: Sequence[str]) -> frozenset[str]:
    """The host names this dashboard answers to (lower case, without ports)."""
    names = {"localhost", "127.0.0.1", "::1", socket.gethostname().lower()}
    names.update(h.lower() for h in extra)
    if bind not in ("", "0.0.0.0", "::"):
        names.add(bind.lower())
    return frozenset(names)


def _host_ok(host: str | None, allowed: frozenset[str]) -> bool:
    if not host:
        return False
    name = urlsplit(f"//{host}").hostname or ""
    if name in allowed:
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(name).is_loopback
    return False


def make_app(hub: FleetHub, *, token: str | None, hosts: frozenset[str]) -> web.Application:
    """The dashboard: `/`, `/static/…`, `/api/boards`, `/ws`."""

    async def page(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(WEB_ROOT / "fleet.html", headers=_HEADERS)

    async def boards(request: web.Request) -> web.Response:
        return web.json_response({"boards": hub.boards()}, headers=_HEADERS)

    async def websocket(request: web.Request) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin is not None and not _host_ok(urlsplit(origin).netloc, hosts):
            raise web.HTTPForbidden(text="foreign origin")
        ws = web.WebSocketResponse(max_msg_size=_MAX_MESSAGE, heartbeat=30.0)
        await ws.prepare(request)
        await _serve_client(ws, hub, token)
        return ws

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        if not _host_ok(request.host, hosts):
            return web.Response(status=421, text="unknown host name")
        response: web.StreamResponse = await handler(request)
        if not response.prepared:
            for key, value in _HEADERS.items():
                response.headers.setdefault(key, value)
        return response

    app = web.Application(client_max_size=16 * 1024, middlewares=[guard])
    app.router.add_get("/", page)
    app.router.add_get("/api/boards", boards)
    app.router.add_get("/ws", websocket)
    app.router.add_static("/static/", WEB_ROOT, show_index=False)
    return app


async def _serve_client(ws: web.WebSocketResponse, hub: FleetHub, token: str | None) -> None:
    """Push the table, then every change; take `auth` and staff actions."""
    loop = asyncio.get_running_loop()
    updates: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=500)
    role = ["spectator"]

    def listener(update: dict[str, Any]) -> None:
        def put() -> None:
            if updates.full():  # a slow page gets the whole table again instead
                while not updates.empty():
                    updates.get_nowait()
                updates.put_nowait({"type": "boards", "boards": hub.boards()})
            else:
                updates.put_nowait(update)

        loop.call_soon_threadsafe(put)

    async def pump() -> None:
        while True:
            await ws.send_json(await updates.get())

    await ws.send_json({"type": "boards", "boards": hub.boards(), "role": role[0]})
    hub.listeners.add(listener)
    pumper = asyncio.create_task(pump())
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                break
            await ws.send_json(await _handle(str(msg.data), hub, token, role))
    finally:
        hub.listeners.remove(listener)
        pumper.cancel()
        await asyncio.gather(pumper, return_exceptions=True)


async def _handle(text: str, hub: FleetHub, token: str | None, role: list[str]) -> dict[str, Any]:
    try:
        msg = json.loads(text)
    except ValueError:
        return {"type": "error", "message": "not JSON"}
    if not isinstance(msg, dict):
        return {"type": "error", "message": "expected an object"}
    if "auth" in msg:
        given = msg["auth"]
        if token and isinstance(given, str) and hmac.compare_digest(given.encode(), token.encode()):
            role[0] = "control"
            return {"type": "role", "role": "control"}
        await asyncio.sleep(_AUTH_DELAY)
        log.warning("fleet: a wrong staff token was given")
        return {"type": "error", "message": "wrong token" if token else "no staff token is set"}
    action = msg.get("action")
    if action not in ACTIONS:
        return {"type": "error", "message": f"unknown action {str(action)[:40]!r}"}
    if role[0] != "control":
        return {"type": "error", "message": f"{action} needs the staff token"}
    command, make_args = ACTIONS[action]
    try:
        hub.command(str(msg.get("board", "")), command, make_args(msg.get("value")))
    except (ValueError, TypeError, RuntimeError) as exc:
        return {"type": "error", "message": str(exc)}
    return {"type": "sent", "action": action, "board": msg.get("board")}


def main(argv: Sequence[str]) -> int:
    """`kiothi-board fleet --broker URL [--port N]`: serve the dashboard until interrupted."""
    p = argparse.ArgumentParser(prog="kiothi-board fleet", description=__doc__.split("\n")[0])
    p.add_argument("--broker", default="mqtt://127.0.0.1:1883", help="mqtt:// or mqtts:// URL")
    p.add_argument("--prefix", default="kiothi/v1", help="the boards' topic prefix")
    p.add_argument("--host", default="127.0.0.1", help="listen address")
    p.add_argument("--port", type=int, default=8430, help="listen port (0: any free port)")
    p.add_argument("--allow-host", action="append", default=[], help="another name to answer to")
    p.add_argument("--username", help="the dashboard's broker user")
    p.add_argument("--tls-ca", help="CA file for mqtts://")
    p.add_argument("--silent-after", type=float, default=120.0, help="seconds before 'silent'")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    # Secrets come from the environment (a systemd EnvironmentFile), never from argv.
    token = os.environ.get("KIOTHI_FLEET_TOKEN") or None
    if token is not None and len(token) < 16:
        print("kiothi-board fleet: KIOTHI_FLEET_TOKEN must be 16 characters or more", flush=True)
        return 2
    if os.environ.get("KIOTHI_BOARD_TOKEN"):
        print(
            "kiothi-board fleet: KIOTHI_BOARD_TOKEN is no longer used (a token on the bus is "
            "readable by every reader): the boards trust the dashboard's broker user; list it "
            "in each board's mqtt.staff_users (docs/fleet.md)",
            flush=True,
        )
        return 2
    hub = FleetHub(
        args.broker,
        clock=SystemClock(),
        prefix=args.prefix,
        username=args.username,
        password=os.environ.get("KIOTHI_FLEET_MQTT_PASSWORD") or None,
        tls_ca=args.tls_ca,
        silent_after=args.silent_after,
    ).start()
    try:
        asyncio.run(_serve(hub, args, token))
    except KeyboardInterrupt:
        pass
    finally:
        hub.close()
    return 0


async def _serve(hub: FleetHub, args: argparse.Namespace, token: str | None) -> None:
    app = make_app(hub, token=token, hosts=allowed_hosts(args.host, args.allow_host))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port)
    try:
        await site.start()
    except OSError as exc:
        print(f"kiothi-board fleet: cannot listen on {args.host}:{args.port}: {exc.strerror}")
        raise SystemExit(2) from exc
    server: Any = site._server  # aiohttp exposes no public way to read a port-0 bind
    port = (
        server.sockets[0].getsockname()[1] if server is not None and server.sockets else args.port
    )
    print(f"fleet dashboard on http://{args.host}:{port}/ watching {args.broker}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
