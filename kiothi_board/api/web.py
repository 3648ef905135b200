"""The web door: the board's twin and operator pages over HTTP, the protocol over WebSocket.

aiohttp serves both from the API's asyncio loop (see docs/api.md for why aiohttp). Each
WebSocket text message carries one request line (several LF-separated lines are also
accepted); each reply and event is sent as one text message.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hmac
import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from kiothi_board.api.protocol import TooLong

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


def _same_origin(origin: str | None, host: str) -> bool:
    """A page from another site must not inherit the loopback's trust (WebSocket hijacking)."""
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == host.lower()


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


def _exhibit_routes(app: web.Application, server: ApiServer) -> None:
    """`/metrics` and `/stats.csv` (404 unless the exhibition mode set their sources)."""
    from kiothi_board.api.server import _loopback

    def staff(request: web.Request) -> bool:
        """Staff: a loopback peer on a same-origin request, or the board's token as a
        bearer token (how a Prometheus scraper or the operator page's download sends it)."""
        token = server.config.token
        given = request.headers.get("Authorization", "")
        if token and given.startswith("Bearer "):
            return hmac.compare_digest(given[7:].encode(), token.encode())
        return _loopback(request.remote or "") and _same_origin(
            request.headers.get("Origin"), request.host
        )

    async def metrics(request: web.Request) -> web.Response:
        source = server.metrics_source
        if source is None:
            raise web.HTTPNotFound(text="no exhibition metrics: exhibit.enabled is false")
        if not staff(request):
            raise web.HTTPUnauthorized(text="metrics need the board's token (Bearer)")
        from kiothi_board.api.metrics import CONTENT_TYPE, render_metrics

        body = await server.loop.run_in_executor(None, render_metrics, source)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})

    async def stats_csv(request: web.Request) -> web.Response:
        export, today = server.stats_csv, server.stats_today
        if export is None or today is None:
            raise web.HTTPNotFound(text="no statistics: exhibit.enabled is false")
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


def make_app(server: ApiServer) -> web.Application:
    """The aiohttp application: `/`, `/operator`, `/static/…`, `/healthz`, `/ws`, and the
    exhibition's `/metrics` and `/stats.csv`."""
    from kiothi_board.api.server import WEB_ROOT, _loopback

    async def page(request: web.Request) -> web.StreamResponse:
        name = "operator.html" if request.path.rstrip("/") == "/operator" else "index.html"
        return web.FileResponse(WEB_ROOT / name, headers=_HEADERS)

    async def favicon(request: web.Request) -> web.Response:
        return web.Response(status=204)  # browsers ask; a 404 would only clutter the console

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response(server.dispatcher.health(), headers=_HEADERS)

    async def websocket(request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=server.config.max_line + 2, heartbeat=30.0)
        await ws.prepare(request)
        peer = request.remote or "?"
        trusted = _loopback(peer) and _same_origin(request.headers.get("Origin"), request.host)
        session, wake = server.open_session("websocket", peer, trusted=trusted)

        async def send(lines: list[bytes]) -> None:
            for line in lines:
                await ws.send_str(line[:-1].decode("ascii"))

        pumper = server.loop.create_task(server.pump(session, wake, send))
        max_line = server.config.max_line
        try:
            async for msg in ws:
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
    _exhibit_routes(app, server)
    app.router.add_get("/", page)
    app.router.add_get("/operator", page)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/favicon.ico", favicon)
    app.router.add_get("/ws", websocket)
    app.router.add_static("/static/", WEB_ROOT, show_index=False)

    @web.middleware
    async def headers(request: web.Request, handler: Any) -> web.StreamResponse:
        response: web.StreamResponse = await handler(request)
        if not response.prepared:
            for key, value in _HEADERS.items():
                response.headers.setdefault(key, value)
        return response

    app.middlewares.append(headers)
    return app


async def start_web(server: ApiServer, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Bind the web app; returns the runner (to `cleanup()`) and the bound port."""
    runner = web.AppRunner(make_app(server), access_log=None)  # URLs may carry no secrets,
    await runner.setup()  # but an access log on an SD card is wear for nothing
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = port
    server_obj: Any = site._server  # aiohttp exposes no public way to read a port-0 bind
    if server_obj is not None and server_obj.sockets:
        bound = server_obj.sockets[0].getsockname()[1]
    log.debug("web bound %s", json.dumps([host, bound]))
    return runner, bound
