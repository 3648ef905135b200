"""`kiothi-board fleet`: one web dashboard for every board on the venue's broker.

The page shows a tile per board (a live mini-twin, online/offline, health, today's
statistics, alerts); a click opens that board's full view. Without the staff token the
page is read-only; with it (typed once into the page, checked in constant time, failures
slowed down) staff may start a new game, switch exhibition mode on or off and set the
brightness (`fleet/staff.py`: the token's check and what a page may ask).
The server checks `Host` and the WebSocket's `Origin` against the names it serves, so a
page on another site cannot reach it through DNS rebinding. Like the board's own doors,
every connection goes through a `ConnectionGuard` (caps per address and in all, header
and idle timeouts), every page has a byte budget (`fleet/pages.py`), and what a page
sends is parsed within limits (`api/bounded.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, web

from kiothi_board.api.catalog_route import add_catalog_routes
from kiothi_board.api.headers import SECURITY_HEADERS
from kiothi_board.api.limits import ConnectionGuard, GuardedProtocol
from kiothi_board.clock import SystemClock
from kiothi_board.fleet.hub import FleetHub
from kiothi_board.fleet.pages import Encoder
from kiothi_board.fleet.staff import MAX_MESSAGE, StaffGate, serve_page
from kiothi_board.helptext import DefaultsFormatter

__all__ = ["main", "make_app"]

log = logging.getLogger(__name__)

WEB_ROOT = Path(__file__).with_name("web")

_HEADERS = SECURITY_HEADERS  # the board's web door sends the same


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


def new_guard() -> ConnectionGuard:
    """The dashboard's connection limits: a few staff pages, not a crowd."""
    return ConnectionGuard(
        max_total=128,
        max_per_door=128,
        max_per_peer=32,
        idle_timeout=120.0,  # a page answers the 30 s heartbeat's pings
        header_timeout=10.0,
        clock=SystemClock(),
    )


def make_app(
    hub: FleetHub,
    *,
    token: str | None,
    hosts: frozenset[str],
    guard: ConnectionGuard | None = None,
) -> web.Application:
    """The dashboard: `/`, `/static/…`, `/api/boards`, `/ws` (`guard`: see `start_site`)."""
    encode = Encoder()
    gate = StaffGate(token)
    open_sockets: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()

    async def close_sockets(app: web.Application) -> None:
        # At shutdown every page is told at once (it reconnects to the next start) instead
        # of holding the stop for aiohttp's shutdown timeout.
        for ws in list(open_sockets):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"dashboard stopping")

    async def page(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(WEB_ROOT / "fleet.html", headers=_HEADERS)

    async def boards(request: web.Request) -> web.Response:
        dropped = dict(hub.dropped)  # what the bounds kept out (docs/fleet.md)
        return web.json_response({"boards": hub.boards(), "dropped": dropped}, headers=_HEADERS)

    async def websocket(request: web.Request) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin is not None and not _host_ok(urlsplit(origin).netloc, hosts):
            raise web.HTTPForbidden(text="foreign origin")
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30.0)
        await ws.prepare(request)
        open_sockets.add(ws)
        role = ["spectator"]
        conn = None if guard is None else guard.by_key.get(request.transport)
        if conn is not None:
            conn.http = False  # a WebSocket now: the idle timeout applies
            conn.control = lambda: role[0] == "control"
        await serve_page(ws, hub, gate, role, encode, request.remote or "?")
        return ws

    @web.middleware
    async def host_check(request: web.Request, handler: Any) -> web.StreamResponse:
        if not _host_ok(request.host, hosts):
            return web.Response(status=421, text="unknown host name")
        conn = None if guard is None else guard.by_key.get(request.transport)
        if conn is not None:
            conn.busy += 1  # the header timeout is for requests not yet complete
        try:
            response: web.StreamResponse = await handler(request)
        finally:
            if conn is not None and guard is not None:
                conn.busy -= 1
                conn.last = guard.now()
        if not response.prepared:
            for key, value in _HEADERS.items():
                response.headers.setdefault(key, value)
        return response

    app = web.Application(client_max_size=16 * 1024, middlewares=[host_check])
    app.on_shutdown.append(close_sockets)
    app.router.add_get("/", page)
    app.router.add_get("/api/boards", boards)
    app.router.add_get("/ws", websocket)
    add_catalog_routes(app, script=True)  # the board's catalogs and i18n.js, under this CSP
    app.router.add_static("/static/", WEB_ROOT, show_index=False)
    return app


READ_ONLY = (
    "kiothi-board fleet: KIOTHI_FLEET_TOKEN is not set, so the dashboard is read-only: "
    "nobody can sign in to start games or switch exhibitions (docs/fleet.md, The dashboard)"
)


class _Parser(argparse.ArgumentParser):
    """Bad arguments are one line (no usage block): what was wrong, and where help is."""

    def error(self, message: str) -> Any:
        self.exit(2, f"{self.prog}: {message} (--help lists the options)\n")


def _port(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: use 0 (any free port) to 65535")
    return port


def _broker(text: str) -> str:
    """An argparse type: an mqtt:// or mqtts:// URL (checked as the daemon checks mqtt.url)."""
    from kiothi_board.api.mqtt_settings import parse_broker_url
    from kiothi_board.errors import ConfigError

    try:
        parse_broker_url(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("mqtt.url: ")) from None
    return text


def _print_acl(boards: Sequence[str]) -> int:
    from kiothi_board.errors import ConfigError
    from kiothi_board.fleet.acl import fleet_acl

    try:
        print(fleet_acl(boards), end="")
    except ConfigError as exc:
        print(f"kiothi-board fleet --print-acl: {exc}".replace("mqtt.board_id: ", ""))
        return 2
    return 0


def main(argv: Sequence[str]) -> int:
    """`kiothi-board fleet --broker URL [--port N]`: serve the dashboard until interrupted."""
    p = _Parser(
        prog="kiothi-board fleet",
        description=__doc__.split("\n")[0],
        formatter_class=DefaultsFormatter,
    )
    p.add_argument(
        "--broker", type=_broker, default="mqtt://127.0.0.1:1883", help="mqtt:// or mqtts:// URL"
    )
    p.add_argument("--prefix", default="kiothi/v1", help="the boards' topic prefix")
    p.add_argument("--host", default="127.0.0.1", help="listen address")
    p.add_argument("--port", type=_port, default=8430, help="listen port (0: any free port)")
    p.add_argument("--allow-host", action="append", default=[], help="another name to answer to")
    p.add_argument("--username", help="the dashboard's broker user")
    p.add_argument("--tls-ca", help="CA file for mqtts://")
    p.add_argument("--silent-after", type=float, default=120.0, help="seconds before 'silent'")
    p.add_argument(
        "--print-acl",
        nargs="+",
        metavar="BOARD",
        help="print the broker's ACL (docs/fleet.md) with a block for each BOARD, and exit",
    )
    args = p.parse_args(argv)
    if args.print_acl:
        return _print_acl(args.print_acl)
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
    if token is None:
        print(READ_ONLY, flush=True)
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


async def start_site(app: web.Application, guard: ConnectionGuard, host: str, port: int) -> Any:
    """Listen with every connection under `guard` (as the board's web door does); returns
    the runner (to `cleanup()`), the listener and the bound port."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    factory = runner.server
    assert factory is not None
    loop = asyncio.get_running_loop()
    try:
        listener = await loop.create_server(
            lambda: GuardedProtocol(factory(), guard, "fleet"), host, port, backlog=128
        )
    except BaseException:
        await runner.cleanup()
        raise
    reaper = loop.create_task(guard.run_reaper())
    return runner, listener, reaper, listener.sockets[0].getsockname()[1]


async def _serve(hub: FleetHub, args: argparse.Namespace, token: str | None) -> None:
    guard = new_guard()
    app = make_app(hub, token=token, hosts=allowed_hosts(args.host, args.allow_host), guard=guard)
    try:
        runner, listener, reaper, port = await start_site(app, guard, args.host, args.port)
    except OSError as exc:
        print(f"kiothi-board fleet: cannot listen on {args.host}:{args.port}: {exc.strerror}")
        raise SystemExit(2) from exc
    print(f"fleet dashboard on http://{args.host}:{port}/ watching {args.broker}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        reaper.cancel()
        listener.close()
        await runner.cleanup()
