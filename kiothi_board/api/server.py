"""`start_api`: every transport of the API on one background asyncio loop plus threads.

The socket transports (TCP, Unix) and the web server (HTTP + WebSocket, aiohttp) share
one asyncio loop on one thread; serial ports and the Redis bus have their own threads.
Commands from the loop run on a single worker thread, so a slow store write never stalls
the loop and commands from every door run one at a time, in order.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import ipaddress
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kiothi_board.api.dispatcher import Dispatcher, Session
from kiothi_board.api.protocol import MAX_LINE, LineFramer
from kiothi_board.api.service import BoardService
from kiothi_board.errors import ConfigError, KiothiError

__all__ = ["WEB_ROOT", "AddressInUse", "ApiConfig", "ApiServer", "start_api"]

log = logging.getLogger(__name__)

WEB_ROOT = Path(__file__).resolve().parent / "web"
"""The page's files (package data: plain HTML, CSS and JS, no build step)."""


@dataclass(frozen=True, slots=True)
class ApiConfig:
    """The `[api]` settings. Ports: 0 picks a free port, None turns the door off.

    `token` is a secret: it is never logged and never shown by `repr`.
    """

    host: str = "127.0.0.1"
    tcp_port: int | None = 7420
    unix_path: str | None = None
    web_host: str = "127.0.0.1"
    web_port: int | None = 8420
    serial: tuple[str, ...] = ()
    serial_baud: int = 115200
    token: str | None = field(default=None, repr=False)
    sim: bool = False
    max_line: int = MAX_LINE
    rate: float = 50.0
    burst: float = 200.0
    outbox_limit: int = 2000
    frame_fps: float = 15.0
    health_interval: float = 30.0
    redis_url: str | None = None
    redis_prefix: str = "kiothi:v1"
    redis_queue: int = 1000

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ApiConfig:
        """Read the `[api]` table of the daemon's config; unknown keys are errors."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown [api] keys {sorted(unknown)!r}; known: {sorted(known)}")
        kwargs = dict(data)
        if "serial" in kwargs:
            serial = kwargs["serial"]
            kwargs["serial"] = (serial,) if isinstance(serial, str) else tuple(serial)
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise ConfigError(f"bad [api] config: {exc}") from exc


def _loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class ApiServer:
    """The running API: its dispatcher, bound addresses and `close()`."""

    def __init__(self, service: BoardService, config: ApiConfig) -> None:
        """Use `start_api`; this only wires the parts."""
        self.config = config
        self.dispatcher = Dispatcher(
            service,
            token=config.token,
            sim=config.sim,
            max_line=config.max_line,
            rate=config.rate,
            burst=config.burst,
            outbox_limit=config.outbox_limit,
        )
        self.service = service
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="api-loop", daemon=True)
        # One worker: commands from every async door run one at a time, in arrival order.
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="api-cmd")
        self._servers: list[asyncio.AbstractServer] = []
        self._web_runner: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._clients: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self.tcp_port: int | None = None
        self.web_port: int | None = None
        self.unix_path: str | None = None
        self.serial: list[Any] = []
        self.redis: Any = None
        self._closed = False

    # ------------------------------------------------------------------ lifecycle
    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def _call(self, coro: Awaitable[Any], timeout: float = 10.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)  # type: ignore[arg-type]

    def start(self) -> ApiServer:
        """Bind every configured door; raises (and cleans up) if one cannot bind."""
        self._thread.start()
        try:
            self._call(self._start_async())
            cfg = self.config
            if cfg.serial:
                from kiothi_board.api.serial_port import SerialTransport

                for url in cfg.serial:
                    port = SerialTransport(self.dispatcher, url, baudrate=cfg.serial_baud)
                    self.serial.append(port)
                    port.start()
            if cfg.redis_url:
                from kiothi_board.api.redis_bus import RedisBus

                self.redis = RedisBus(
                    self.dispatcher,
                    cfg.redis_url,
                    prefix=cfg.redis_prefix,
                    queue_size=cfg.redis_queue,
                ).start()
        except BaseException:
            self.close()
            raise
        return self

    async def _start_async(self) -> None:
        cfg = self.config
        if cfg.tcp_port is not None:
            with _in_use("api.tcp_port", cfg.host, cfg.tcp_port):
                server = await asyncio.start_server(
                    lambda r, w: self._client(r, w, "tcp"), cfg.host, cfg.tcp_port
                )
            self._servers.append(server)
            self.tcp_port = server.sockets[0].getsockname()[1]
            log.info("api: TCP on %s:%s", cfg.host, self.tcp_port)
        if cfg.unix_path:
            path = cfg.unix_path
            if os.path.exists(path):
                os.unlink(path)  # a stale socket from a crash would make bind fail
            server = await asyncio.start_unix_server(lambda r, w: self._client(r, w, "unix"), path)
            os.chmod(path, 0o660)  # the socket's group decides who may control the board
            self._servers.append(server)
            self.unix_path = path
            log.info("api: Unix socket %s", path)
        if cfg.web_port is not None:
            from kiothi_board.api.web import start_web

            with _in_use("api.web_port", cfg.web_host, cfg.web_port):
                self._web_runner, self.web_port = await start_web(self, cfg.web_host, cfg.web_port)
            log.info("api: web on http://%s:%s/", cfg.web_host, self.web_port)
        self._tasks.append(self.loop.create_task(self._frame_pump()))
        if cfg.health_interval > 0:
            self._tasks.append(self.loop.create_task(self._health_pump()))

    def close(self) -> None:
        """Stop every door, disconnect every client; idempotent."""
        if self._closed:
            return
        self._closed = True
        for port in self.serial:
            port.close()
        if self.redis is not None:
            self.redis.close()
        if self._thread.is_alive():
            try:
                self._call(self._stop_async())
            except Exception as exc:  # shutting down anyway; the loop is stopped below
                log.warning("api: stopping the servers: %s", exc)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5.0)
        self.loop.close()
        self._worker.shutdown(wait=True)
        self.dispatcher.close()
        if self.unix_path and os.path.exists(self.unix_path):
            os.unlink(self.unix_path)

    async def _stop_async(self) -> None:
        for task in self._tasks:
            task.cancel()
        for server in self._servers:
            server.close()
        for writer in list(self._clients.values()):
            # Closing the transport ends the client's read loop; cancelling the task instead
            # makes asyncio's stream callback log a spurious CancelledError.
            writer.close()
        if self._web_runner is not None:
            await self._web_runner.cleanup()
        for server in self._servers:
            await server.wait_closed()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._clients:
            await asyncio.wait(list(self._clients), timeout=2.0)

    def __enter__(self) -> ApiServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers
    def open_session(
        self, transport: str, peer: str, *, trusted: bool
    ) -> tuple[Session, asyncio.Event]:
        """A session whose outbox wakes an asyncio.Event on this loop."""
        wake = asyncio.Event()
        loop = self.loop

        def waker() -> None:
            loop.call_soon_threadsafe(wake.set)

        return self.dispatcher.open_session(transport, peer, trusted=trusted, wake=waker), wake

    async def dispatch(self, session: Session, line: Any) -> None:
        """Run one line through the dispatcher on the command worker."""
        await self.loop.run_in_executor(self._worker, self.dispatcher.handle_line, session, line)

    async def pump(
        self,
        session: Session,
        wake: asyncio.Event,
        send: Callable[[list[bytes]], Awaitable[None]],
    ) -> None:
        """Send the session's outbox for as long as the client is connected.

        `drain()` inside `send` holds the pump while the client reads slowly, so the
        backlog waits in the bounded outbox (which overflows), never in an unbounded buffer.
        """
        while True:
            await wake.wait()
            wake.clear()
            lines = session.outbox.take()
            if lines:
                await send(lines)

    # ------------------------------------------------------------------ sockets
    async def _client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, transport: str
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._clients[task] = writer
        peername = writer.get_extra_info("peername")
        if transport == "unix":
            peer, trusted = "unix", True  # who may connect is up to the socket's mode
        else:
            host = peername[0] if isinstance(peername, tuple) else str(peername)
            peer, trusted = f"{host}:{peername[1]}", _loopback(host)
        session, wake = self.open_session(transport, peer, trusted=trusted)

        async def send(lines: list[bytes]) -> None:
            writer.write(b"".join(lines))
            await writer.drain()

        pumper = self.loop.create_task(self.pump(session, wake, send))
        framer = LineFramer(self.dispatcher.max_line)
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for line in framer.feed(data):
                    await self.dispatch(session, line)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.dispatcher.close_session(session)
            if not pumper.done():
                # Let queued replies go out before closing (a clean disconnect).
                wake.set()
                await asyncio.sleep(0)
                pumper.cancel()
            await asyncio.gather(pumper, return_exceptions=True)
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
            self._clients.pop(task, None)

    # ------------------------------------------------------------------ pumps
    async def _frame_pump(self) -> None:
        # Frames are pushed by the board; send the newest at most frame_fps times a second.
        period = 1.0 / max(self.config.frame_fps, 0.1)
        while True:
            await asyncio.sleep(period)
            self.dispatcher.flush_frame()

    async def _health_pump(self) -> None:
        while True:
            await asyncio.sleep(self.config.health_interval)
            self.dispatcher.publish_health()


class AddressInUse(KiothiError, OSError):
    """A door of the API cannot bind because something else listens there."""

    def __str__(self) -> str:
        return str(self.strerror)


@contextlib.contextmanager
def _in_use(key: str, host: str, port: int) -> Iterator[None]:
    """Turn EADDRINUSE into an error that says what to do (another instance is likely)."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        raise AddressInUse(
            errno.EADDRINUSE,
            f"cannot listen on {host}:{port}: the address is already in use — another "
            f"kiothi-board may be running (stop it, or choose another port with {key})",
        ) from exc


def start_api(
    service: BoardService, config: ApiConfig | Mapping[str, Any] | None = None
) -> ApiServer:
    """Start every configured door of the API for `service`; `close()` the result."""
    if config is None:
        cfg = ApiConfig()
    elif isinstance(config, ApiConfig):
        cfg = config
    else:
        cfg = ApiConfig.from_mapping(config)
    return ApiServer(service, cfg).start()
