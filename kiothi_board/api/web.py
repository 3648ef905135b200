"""The web door: the board's twin and operator pages over HTTP, the protocol over WebSocket.

aiohttp serves both from the API's asyncio loop (see docs/api.md for why aiohttp). Each
WebSocket text message carries one request line (several LF-separated lines are also
accepted); each reply and event is sent as one text message.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from kiothi_board.api.access import COOKIE
from kiothi_board.api.limits import GuardedProtocol
from kiothi_board.api.protocol import ApiError, TooLong

if TYPE_CHECKING:
    from kiothi_board.api.server import ApiServer

__all__ = ["make_app", "start_web"]

log = logging.getLogger(__name__)

_HEADERS = {
    # The pages load nothing from elsewhere; a strict policy keeps it that way.
    "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; "
    "img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


_STATUS = {"unauthorized": 401, "rate_limited": 429, "bad_args": 400}


def make_app(server: ApiServer) -> web.Application:
    """The aiohttp application: `/`, `/operator`, `/static/…`, `/healthz`, `/ws`."""
    from kiothi_board.api.server import WEB_ROOT

    access = server.access
    guard = server.guard

    async def page(request: web.Request) -> web.StreamResponse:
        name = "operator.html" if request.path.rstrip("/") == "/operator" else "index.html"
        return web.FileResponse(WEB_ROOT / name, headers=_HEADERS)

    async def favicon(request: web.Request) -> web.Response:
        return web.Response(status=204)  # browsers ask; a 404 would only clutter the console

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response(server.dispatcher.health(), headers=_HEADERS)

    async def new_session(request: web.Request) -> web.Response:
        """POST /session {"token": …} or {"pin": …}: a session cookie with control."""
        if not access.origin_allowed(request.headers.get("Origin")):
            return web.json_response({"error": {"code": "unauthorized"}}, status=403)
        try:
            body = await request.json()
            if not isinstance(body, dict) or set(body) - {"token", "pin"}:
                raise ApiError("bad_args", 'send {"token": …} or {"pin": …}')
            token, pin = (
                v if isinstance(v := body.get(k), str) else None for k in ("token", "pin")
            )
            ticket = access.authenticate(request.remote or "?", token=token, pin=pin)
        except (ValueError, ApiError) as exc:
            err = exc if isinstance(exc, ApiError) else ApiError("bad_args", "not JSON")
            status = _STATUS.get(err.code, 400)
            return web.json_response(
                {"error": {"code": err.code, "message": err.message}}, status=status
            )
        response = web.json_response({"role": "control", "ticket": ticket})
        response.set_cookie(
            COOKIE, ticket, httponly=True, samesite="Strict", path="/",
            max_age=int(server.config.session_ttl),
        )  # fmt: skip
        return response

    async def websocket(request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=server.config.max_line + 2, heartbeat=30.0)
        await ws.prepare(request)
        peer = request.remote or "?"
        foreign = not access.origin_allowed(request.headers.get("Origin"))
        trusted = not foreign and access.check_ticket(request.cookies.get(COOKIE))
        wire = request.transport
        assert wire is not None

        def cut_off(reason: str) -> None:
            if wire.get_write_buffer_size() == 0:
                server.loop.create_task(ws.close(code=1008, message=reason[:120].encode()))
            else:
                wire.abort()  # a client that does not read: free its buffer now

        session, wake = server.open_session(
            "websocket", peer, trusted=trusted, cut_off=cut_off,
            pending=wire.get_write_buffer_size,
        )  # fmt: skip
        session.locked = foreign
        conn = guard.by_key.get(wire)
        if conn is not None:
            conn.http = False  # a WebSocket now: the idle timeout applies
            conn.control = lambda: session.role == "control"

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

    app = web.Application(client_max_size=64 * 1024)
    app.router.add_get("/", page)
    app.router.add_get("/operator", page)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/favicon.ico", favicon)
    app.router.add_get("/ws", websocket)
    app.router.add_post("/session", new_session)
    app.router.add_static("/static/", WEB_ROOT, show_index=False)

    @web.middleware
    async def headers(request: web.Request, handler: Any) -> web.StreamResponse:
        if not access.host_allowed(request.headers.get("Host")):
            # DNS rebinding: a foreign name resolving to this board gets nothing from it.
            return web.Response(status=421, text="421: this board does not serve that host\n")
        conn = guard.by_key.get(request.transport)
        if conn is not None:
            conn.busy += 1
        try:
            response: web.StreamResponse = await handler(request)
        except OSError:  # a path the file system refuses (too long, …): just not found
            response = web.Response(status=404, text="404: Not Found")
        finally:
            if conn is not None:
                conn.busy -= 1
                conn.last = guard.now()
        if not response.prepared:
            for key, value in _HEADERS.items():
                response.headers.setdefault(key, value)
        return response

    app.middlewares.append(headers)
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


async def start_web(server: ApiServer, host: str, port: int) -> tuple[WebListener, int]:
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
