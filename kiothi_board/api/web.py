"""The web door: the board's twin and operator pages over HTTP, the protocol over WebSocket.

aiohttp serves both from the API's asyncio loop (see docs/api.md for why aiohttp). Each
WebSocket text message carries one request line (several LF-separated lines are also
accepted); each reply and event is sent as one text message.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from kiothi_board.api.access import AccessPolicy, Held, cookie_name
from kiothi_board.api.api_config import ApiConfig
from kiothi_board.api.catalog_route import add_catalog_routes
from kiothi_board.api.dispatcher import ClientSession, Dispatcher
from kiothi_board.api.headers import SECURITY_HEADERS
from kiothi_board.api.limits import Conn, ConnectionGuard, GuardedProtocol
from kiothi_board.api.protocol import ApiError, TooLong

__all__ = ["WEB_ROOT", "WebHost", "make_app", "start_web"]

WEB_ROOT = Path(__file__).resolve().parent / "web"
"""The page's files (package data: plain HTML, CSS and JS, no build step)."""


class WebHost(Protocol):
    """What the web door needs of the API server that runs it (`api.server.WebHost`)."""

    config: ApiConfig
    access: AccessPolicy
    guard: ConnectionGuard
    dispatcher: Dispatcher
    loop: asyncio.AbstractEventLoop
    metrics_source: Callable[[], dict[str, Any]] | None
    stats_csv: Callable[[str | None, str | None], str] | None
    stats_today: Callable[[], str] | None

    def open_session(
        self,
        transport: str,
        peer: str,
        *,
        trusted: bool,
        cut_off: Callable[[str], None] | None = None,
        pending: Callable[[], int] | None = None,
    ) -> tuple[ClientSession, asyncio.Event]: ...

    async def dispatch(self, session: ClientSession, line: Any) -> None: ...

    async def pump(
        self,
        session: ClientSession,
        wake: asyncio.Event,
        send: Callable[[list[bytes]], Awaitable[None]],
    ) -> None: ...


log = logging.getLogger(__name__)

_HEADERS = SECURITY_HEADERS


_STATUS = {"unauthorized": 401, "rate_limited": 429, "bad_args": 400}


class _Web:
    """The web door's handlers, bound to the running `WebHost`."""

    def __init__(self, server: WebHost) -> None:
        self.server = server
        self.access = server.access
        self.guard = server.guard

    async def page(self, request: web.Request) -> web.StreamResponse:
        name = "operator.html" if request.path.rstrip("/") == "/operator" else "index.html"
        return web.FileResponse(WEB_ROOT / name, headers=_HEADERS)

    async def favicon(self, request: web.Request) -> web.Response:
        return web.Response(status=204)  # browsers ask; a 404 would only clutter the console

    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response(self.server.dispatcher.health(), headers=_HEADERS)

    async def new_session(self, request: web.Request) -> web.Response:
        """POST /session {"token": …} or {"pin": …}: a session cookie with control."""
        if not self.access.origin_allowed(request.headers.get("Origin"), request.host):
            return web.json_response({"error": {"code": "unauthorized"}}, status=403)
        try:
            body = await request.json()
            if not isinstance(body, dict) or set(body) - {"token", "pin"}:
                raise ApiError("bad_args", 'send {"token": …} or {"pin": …}')
            token, pin = (
                v if isinstance(v := body.get(k), str) else None for k in ("token", "pin")
            )
            ticket = await self._authenticate(request, token, pin)
        except (ValueError, ApiError) as exc:
            err = exc if isinstance(exc, ApiError) else ApiError("bad_args", "not JSON")
            status = _STATUS.get(err.code, 400)
            return web.json_response(
                {"error": {"code": err.code, "message": err.message}}, status=status
            )
        response = web.json_response({"role": "control", "ticket": ticket})
        response.set_cookie(
            cookie_name(_local_port(request)), ticket, httponly=True, samesite="Strict", path="/",
            max_age=int(self.server.config.session_ttl),
        )  # fmt: skip
        return response

    async def _authenticate(self, request: web.Request, token: str | None, pin: str | None) -> str:
        """The cookie's ticket; a PIN over the limits waits its turn first (`Held`)."""
        peer = request.remote or "?"
        try:
            return self.access.authenticate(peer, token=token, pin=pin, purpose="cookie")
        except Held:
            wire = request.transport
            if not await self.access.wait_turn(peer, lambda: not _gone(wire)):
                raise
            return self.access.authenticate(peer, token=token, pin=pin, purpose="cookie")

    def _open(self, request: web.Request, ws: web.WebSocketResponse) -> tuple[ClientSession, Any]:
        """The WebSocket's session: its role from the cookie and Origin, its budget, its slot."""
        server = self.server
        foreign = not self.access.origin_allowed(request.headers.get("Origin"), request.host)
        cookie = request.cookies.get(cookie_name(_local_port(request)))
        trusted = not foreign and self.access.check_ticket(cookie, ("cookie",))
        wire = request.transport
        assert wire is not None

        def cut_off(reason: str) -> None:
            if wire.get_write_buffer_size() == 0:
                server.loop.create_task(ws.close(code=1008, message=reason[:120].encode()))
            else:
                wire.abort()  # a client that does not read: free its buffer now

        session, wake = server.open_session(
            "websocket", request.remote or "?", trusted=trusted, cut_off=cut_off,
            pending=wire.get_write_buffer_size,
        )  # fmt: skip
        session.locked = foreign  # a page of another site may never take control
        session.alive = lambda: not (ws.closed or _gone(wire))
        conn = self.guard.by_key.get(wire)
        if conn is not None:
            conn.http = False  # a WebSocket now: the idle timeout applies
            conn.control = lambda: session.role == "control"
        return session, wake

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        server = self.server
        ws = web.WebSocketResponse(max_msg_size=server.config.max_line + 2, heartbeat=30.0)
        await ws.prepare(request)
        session, wake = self._open(request, ws)

        async def send(lines: list[bytes]) -> None:
            for line in lines:
                await ws.send_str(line[:-1].decode("ascii"))

        pumper = server.loop.create_task(server.pump(session, wake, send))
        max_line = server.config.max_line
        try:
            async for msg in ws:
                if session.outbox.over is not None:
                    break  # cut off: over its byte budget
                if msg.type == WSMsgType.TEXT:
                    for text in str(msg.data).split("\n"):
                        if len(text) > max_line:
                            await server.dispatch(session, TooLong(len(text)))
                        else:
                            await server.dispatch(session, text.rstrip("\r"))
                elif msg.type == WSMsgType.BINARY:
                    await server.dispatch(session, bytes(msg.data))
                else:
                    break
        finally:
            server.dispatcher.close_session(session)
            wake.set()
            pumper.cancel()
            # The pumper may end cancelled or with the peer gone mid-send: both are fine.
            await asyncio.gather(pumper, return_exceptions=True)
            await ws.close()
        return ws

    async def _body_in_time(self, request: web.Request, conn: Conn | None) -> bool:
        """Read the body (at most client_max_size) within what is left of header_timeout."""
        try:
            await asyncio.wait_for(request.read(), self.guard.body_deadline(conn))
        except TimeoutError:
            self.guard.body_timed_out(conn)
            if request.transport is not None:
                request.transport.abort()
            return False
        return True

    @web.middleware
    async def middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Host check (DNS rebinding), request accounting, no traceback for odd paths."""
        if not self.access.host_allowed(request.headers.get("Host")):
            # A foreign name resolving to this board gets nothing from it, not even the page.
            return web.Response(status=421, text="421: this board does not serve that host\n")
        conn = self.guard.by_key.get(request.transport)
        if request.body_exists and not await self._body_in_time(request, conn):
            return web.Response(status=408, text="408: the request body came too slowly\n")
        if conn is not None:
            conn.busy += 1
        try:
            response: web.StreamResponse = await handler(request)
        except OSError:  # a path the file system refuses (too long, …): just not found
            response = web.Response(status=404, text="404: Not Found")
        finally:
            if conn is not None:
                conn.busy -= 1
                conn.last = self.guard.now()
        if not response.prepared:
            for key, value in _HEADERS.items():
                response.headers.setdefault(key, value)
        return response


def _gone(wire: asyncio.BaseTransport | None) -> bool:
    """Whether a request's connection went away (a held PIN then has nothing compared)."""
    return wire is None or wire.is_closing()


def _local_port(request: web.Request) -> int | None:
    """The port this request came in on (the web door's bound port)."""
    transport = request.transport
    name = None if transport is None else transport.get_extra_info("sockname")
    return int(name[1]) if isinstance(name, tuple) and len(name) >= 2 else None


def _csv_range(query: Mapping[str, str], today: str) -> tuple[str | None, str | None]:
    """`?from=…&to=…` or `?days=N` (ending `to`, default today) for `/stats.csv`."""
    first, last = query.get("from"), query.get("to")
    days = query.get("days")
    if days is not None:
        if not days.isdigit() or not 1 <= int(days) <= 400:
            raise web.HTTPBadRequest(text=f"days must be 1…400, got {days!r}")
        try:
            end = dt.date.fromisoformat(last or today)
        except ValueError:
            raise web.HTTPBadRequest(
                text=f"to must be a date like 2026-05-01, got {last!r}"
            ) from None
        first, last = (end - dt.timedelta(days=int(days) - 1)).isoformat(), end.isoformat()
    return first, last


def _exhibit_routes(app: web.Application, server: WebHost) -> None:
    """`/metrics` and `/stats.csv` (404 unless the exhibition mode set their sources).

    Staff only: `Authorization: Bearer <token or session ticket>` (how a Prometheus scraper
    or the operator page's download sends it), or the staff session's cookie (a PIN typed
    on the operator page), checked by the one access policy.
    """

    def staff(request: web.Request) -> bool:
        cookie = request.cookies.get(cookie_name(_local_port(request)))
        if cookie and server.access.check_ticket(cookie, ("cookie",)):
            return True
        given = request.headers.get("Authorization", "")
        if not given.startswith("Bearer ") or not given[7:]:
            return False
        secret = given[7:]
        if server.access.check_ticket(secret):
            return True
        try:
            server.access.authenticate(request.remote or "?", token=secret)
        except ApiError:
            return False
        return True

    async def metrics(request: web.Request) -> web.Response:
        source = server.metrics_source
        if source is None:
            raise web.HTTPNotFound(text="no exhibition metrics on this server")
        if not staff(request):
            raise web.HTTPUnauthorized(text="metrics need the board's token (Bearer)")
        from kiothi_board.api.metrics import CONTENT_TYPE, render_metrics

        body = await server.loop.run_in_executor(None, render_metrics, source)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})

    async def stats_csv(request: web.Request) -> web.Response:
        export, today = server.stats_csv, server.stats_today
        if export is None or today is None:
            raise web.HTTPNotFound(text="no statistics on this server")
        if not staff(request):
            raise web.HTTPUnauthorized(text="statistics need the board's token (Bearer)")
        first, last = _csv_range(request.query, today())
        try:
            text = await server.loop.run_in_executor(None, export, first, last)
        except ValueError as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        return web.Response(
            text=text,
            content_type="text/csv",
            headers={"Content-Disposition": 'attachment; filename="kiothi-stats.csv"'},
        )

    app.router.add_get("/metrics", metrics)
    app.router.add_get("/stats.csv", stats_csv)


def make_app(server: WebHost) -> web.Application:
    """The aiohttp application: `/`, `/operator`, `/static/…`, `/healthz`, `/ws`, `/session`."""
    door = _Web(server)
    app = web.Application(client_max_size=64 * 1024, middlewares=[door.middleware])
    app.router.add_get("/", door.page)
    app.router.add_get("/operator", door.page)
    app.router.add_get("/healthz", door.healthz)
    app.router.add_get("/favicon.ico", door.favicon)
    add_catalog_routes(app)  # the same export the fleet dashboard serves
    app.router.add_get("/ws", door.websocket)
    app.router.add_post("/session", door.new_session)
    app.router.add_static("/static/", WEB_ROOT, show_index=False)
    _exhibit_routes(app, server)
    return app


class WebListener:
    """The web door's listening socket and aiohttp runner; `cleanup()` stops both."""

    def __init__(self, runner: web.AppRunner, listener: asyncio.AbstractServer) -> None:
        self.runner = runner
        self.listener = listener

    async def cleanup(self) -> None:
        self.listener.close()
        await self.runner.cleanup()
        await self.listener.wait_closed()


async def start_web(server: WebHost, host: str, port: int) -> tuple[WebListener, int]:
    """Bind the web app; returns the listener (to `cleanup()`) and the bound port.

    Every connection goes through the `ConnectionGuard` (caps, header and idle timeouts).
    """
    runner = web.AppRunner(make_app(server), access_log=None)  # URLs may carry no secrets,
    await runner.setup()  # but an access log on an SD card is wear for nothing
    handler_factory = runner.server
    assert handler_factory is not None
    loop = asyncio.get_running_loop()
    try:
        listener = await loop.create_server(
            lambda: GuardedProtocol(handler_factory(), server.guard), host, port, backlog=128
        )
    except BaseException:
        await runner.cleanup()
        raise
    bound = listener.sockets[0].getsockname()[1]
    log.debug("web bound %s", json.dumps([host, bound]))
    return WebListener(runner, listener), bound
