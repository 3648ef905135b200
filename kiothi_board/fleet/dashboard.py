"""`kiothi-board fleet`: one web dashboard for every board on the venue's broker.

The page shows a tile per board (a live mini-twin, online/offline, health, today's
statistics, alerts); a click opens that board's full view. Without the staff token the
page is read-only; with it (typed once into the page, checked in constant time, failures
slowed down) staff may start a new game, switch exhibition mode on or off and set the brightness.
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
import hmac
import ipaddress
import json
import logging
import os
import socket
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, WSMsgType, web

from kiothi_board.api.authlimit import AuthLimiter
from kiothi_board.api.bounded import JsonLimits, PayloadError, loads
from kiothi_board.api.catalog_route import add_catalog_routes
from kiothi_board.api.exhibit_doors import EXHIBIT_COMMANDS
from kiothi_board.api.headers import SECURITY_HEADERS
from kiothi_board.api.limits import ConnectionGuard, GuardedProtocol
from kiothi_board.clock import SystemClock
from kiothi_board.controller.spec import CommandSpec
from kiothi_board.controller.table import TABLE
from kiothi_board.fleet.hub import FleetHub
from kiothi_board.fleet.pages import Encoder, PageOutbox
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.i18n import LANGUAGE_NAMES, available

__all__ = ["main", "make_app", "staff_commands"]

log = logging.getLogger(__name__)

WEB_ROOT = Path(__file__).with_name("web")

_HEADERS = SECURITY_HEADERS  # the board's web door sends the same


def staff_commands() -> dict[str, CommandSpec]:
    """The commands staff may send a board from the dashboard: the command table's entries
    marked `fleet` (the exhibition's too), read now so a part's own entries count."""
    return {s.name: s for s in (*TABLE, *EXHIBIT_COMMANDS) if s.fleet}


_MAX_MESSAGE = 4096
_REFUSED_DELAY = 1.0  # seconds before a page hears that its guess was not even checked
_PAGE_JSON = JsonLimits(max_bytes=_MAX_MESSAGE, max_depth=4)  # {"action", "board", "args"}


class StaffGate:
    """The staff token's check: the right token always gets in; wrong guesses spend from a
    bucket per source address and one for everyone (`AuthLimiter`, as on the board), and
    over them are answered a second late, so a hundred WebSockets from one address, or from
    a hundred, are told "wrong" no faster than one (a per-socket delay let 100 sockets make
    98 guesses a second)."""

    def __init__(self, token: str | None, limiter: AuthLimiter | None = None) -> None:
        self._token = token
        self.limiter = limiter or AuthLimiter(
            rate=0.2, burst=5.0, global_rate=1.0, global_burst=10.0, clock=SystemClock()
        )

    @property
    def enabled(self) -> bool:
        """Whether a staff token is set at all (else the dashboard is read-only for all)."""
        return bool(self._token)

    def check(self, peer: str, given: object) -> str:
        """`control`, or why not: `no staff token is set`, `rate_limited`, `wrong token`."""
        if not self._token:
            return "no staff token is set"
        # Compared first: the right token (16+ characters, unguessable) is never refused.
        if isinstance(given, str) and hmac.compare_digest(given.encode(), self._token.encode()):
            return "control"
        if not self.limiter.allow(peer):
            return "rate_limited"
        self.limiter.failed(peer, "fleet token")
        return "wrong token"


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
        ws = web.WebSocketResponse(max_msg_size=_MAX_MESSAGE, heartbeat=30.0)
        await ws.prepare(request)
        open_sockets.add(ws)
        role = ["spectator"]
        conn = None if guard is None else guard.by_key.get(request.transport)
        if conn is not None:
            conn.http = False  # a WebSocket now: the idle timeout applies
            conn.control = lambda: role[0] == "control"
        await _serve_client(ws, hub, gate, role, encode, request.remote or "?")
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


async def _serve_client(
    ws: web.WebSocketResponse,
    hub: FleetHub,
    gate: StaffGate,
    role: list[str],
    encode: Encoder,
    peer: str,
) -> None:
    """Push the table, then every change (within the page's budget); take `auth` and
    staff actions."""
    loop = asyncio.get_running_loop()
    outbox = PageOutbox()

    def listener(update: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(outbox.put, encode(update))

    async def pump() -> None:
        while True:
            text = await outbox.get()
            if text is None:  # it fell behind: the whole table instead of what it missed
                text = json.dumps({"type": "boards", "boards": hub.boards()})
            await ws.send_str(text)

    first = {
        "type": "boards",
        "boards": hub.boards(),
        "role": role[0],
        "staff": gate.enabled,
        "languages": [{"code": c, "name": LANGUAGE_NAMES.get(c, c)} for c in available()],
    }
    await ws.send_json(first)
    hub.listeners.add(listener)
    pumper = asyncio.create_task(pump())
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                break
            answer = _handle(str(msg.data), hub, gate, role, peer)
            if answer.get("message") == "rate_limited":
                # Refused unchecked, yet answering at once costs a core under a flood
                # (4,000 refusals/s from 10 sockets): this page waits a second.
                await asyncio.sleep(_REFUSED_DELAY)
            await ws.send_json(answer)
    finally:
        hub.listeners.remove(listener)
        pumper.cancel()
        await asyncio.gather(pumper, return_exceptions=True)


def _handle(
    text: str, hub: FleetHub, gate: StaffGate, role: list[str], peer: str = "?"
) -> dict[str, Any]:
    try:
        msg = loads(text, _PAGE_JSON)
    except PayloadError as exc:
        return {"type": "error", "message": f"not accepted: {exc}"[:120]}
    if not isinstance(msg, dict):
        return {"type": "error", "message": "expected an object"}
    if "auth" in msg:
        verdict = gate.check(peer, msg["auth"])
        if verdict == "control":
            role[0] = "control"
            return {"type": "role", "role": "control"}
        return {"type": "error", "message": verdict}
    action = msg.get("action")
    if action == "forget":  # the dashboard's own table: a retired board, not a command
        if role[0] != "control":
            return {"type": "error", "message": "forget needs the staff token"}
        name = str(msg.get("board", ""))
        if not hub.forget(name):
            return {"type": "error", "message": f"{name[:40]} is online or unknown: not forgotten"}
        return {"type": "forgotten", "board": name}
    spec = staff_commands().get(action) if isinstance(action, str) else None
    if spec is None:
        return {"type": "error", "message": f"unknown action {str(action)[:40]!r}"}
    if role[0] != "control":
        return {"type": "error", "message": f"{action} needs the staff token"}
    args = msg.get("args") or {}
    if not isinstance(args, dict):
        return {"type": "error", "message": f"{spec.name}: args must be an object"}
    try:
        spec.read(args)  # the table's checks, as the board's own doors read it
        hub.command(str(msg.get("board", "")), spec.name, args)
    except (ValueError, TypeError, RuntimeError) as exc:
        return {"type": "error", "message": str(exc)}
    return {"type": "sent", "action": action, "board": msg.get("board")}


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
