"""`ApiServer`: every transport of the API on one background asyncio loop plus threads.

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
import logging
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from kiothi_board.api.access import AccessPolicy, is_loopback
from kiothi_board.api.api_config import ApiConfig
from kiothi_board.api.authlimit import AuthLimiter
from kiothi_board.api.dispatcher import Dispatcher
from kiothi_board.api.limits import ConnectionGuard, SummedLog, bound_send_buffer
from kiothi_board.api.plumbing import ClientPlumbing
from kiothi_board.api.protocol import LineFramer, encode
from kiothi_board.api.service import BoardService
from kiothi_board.api.unix_path import prepare_unix_path, remove_our_socket, socket_identity
from kiothi_board.api.web import WEB_ROOT, start_web
from kiothi_board.clock import SystemClock
from kiothi_board.errors import ConfigError

__all__ = ["WEB_ROOT", "ApiConfig", "ApiServer"]

log = logging.getLogger(__name__)


_loopback = is_loopback  # kept for callers of the old name


def _peer_of(writer: asyncio.StreamWriter, transport: str) -> tuple[str | None, str]:
    """(host, "host:port") of a socket client; the Unix socket's peer is just "unix"."""
    if transport == "unix":
        return None, "unix"  # who may connect is up to the socket's mode
    peername = writer.get_extra_info("peername")
    host = str(peername[0]) if isinstance(peername, tuple) else str(peername)
    port = peername[1] if isinstance(peername, tuple) else "?"
    return host, (f"[{host}]:{port}" if ":" in host else f"{host}:{port}")


def _cutter(wire: asyncio.WriteTransport) -> Callable[[str], None]:
    """How the board closes a socket client (idle, over a cap or its budget)."""

    def cut_off(reason: str) -> None:
        if wire.get_write_buffer_size() == 0:
            wire.write(encode({"event": "closed", "reason": reason}))
            wire.close()
        else:
            wire.abort()  # a client that does not read: free its buffer now

    return cut_off


def _bind_error(key: str, where: str, exc: OSError) -> ConfigError:
    """A bind failure as one line naming the config key."""
    if exc.errno == errno.EADDRINUSE:
        return ConfigError(
            f"{key}: {where} is already in use (another kiothi-board may be running)"
        )
    return ConfigError(f"{key}: cannot listen on {where}: {exc.strerror or exc}")


class ApiServer(ClientPlumbing):
    """The running API: its dispatcher, bound addresses and `close()`."""

    def __init__(self, service: BoardService, config: ApiConfig) -> None:
        """Use `start_api`; this only wires the parts."""
        self.config = config
        clock = SystemClock()
        limiter = AuthLimiter(
            rate=config.auth_rate,
            burst=config.auth_burst,
            global_rate=config.auth_global_rate,
            global_burst=config.auth_global_rate * 2,
            daily=config.auth_daily,
            clock=clock,
        )
        self.access = AccessPolicy(
            token=config.token,
            staff_pin=config.staff_pin,
            trust_loopback_tcp=config.trust_loopback_tcp,
            host_names=(*config.host_names, config.web_host, config.host),
            session_ttl=config.session_ttl,
            limiter=limiter,
            clock=clock,
        )
        self.guard = ConnectionGuard(
            max_total=config.max_connections,
            max_per_door=config.max_per_door,
            max_per_peer=config.max_per_peer,
            idle_timeout=config.idle_timeout,
            header_timeout=config.header_timeout,
            clock=clock,
        )
        self.dispatcher = Dispatcher(
            service,
            sim=config.sim,
            max_line=config.max_line,
            rate=config.rate,
            burst=config.burst,
            outbox_limit=config.outbox_limit,
            access=self.access,
            budget=config.client_budget,
            max_reply=config.max_reply,
            languages=config.languages,
        )
        self.dispatcher.add_health("auth", self.access.health)
        self.dispatcher.add_health("connections", self.guard.health)
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
        self._unix_identity: tuple[int, int] | None = None
        self._attached: list[Any] = []  # serial ports, the Redis bus, MQTT: closed first
        self.serial: list[Any] = []  # the serial doors, as opened
        self.redis: Any = None  # the Redis bus, when it is a door
        self.mqtt: Any = None  # the MQTT adapter, when it is a door
        # The exhibition's web routes (/metrics, /stats.csv) answer 404 until these are set.
        self.metrics_source: Callable[[], dict[str, Any]] | None = None
        self.stats_csv: Callable[[str | None, str | None], str] | None = None
        self.stats_today: Callable[[], str] | None = None
        self._closed = False
        self._malformed_log = SummedLog(clock)

    # ------------------------------------------------------------------ lifecycle
    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def _call(self, coro: Awaitable[Any], timeout: float = 10.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)  # type: ignore[arg-type]

    def start(self) -> ApiServer:
        """Run the server's asyncio loop and its pumps; the doors are opened one by one
        (`listen_tcp`, `listen_unix`, `listen_web`, `attach`) by `kiothi_board.api.doors`."""
        self._thread.start()
        try:
            self._call(self._start_async())
        except BaseException:
            self.close()
            raise
        return self

    async def _start_async(self) -> None:
        cfg = self.config
        self.loop.set_exception_handler(self.guard.loop_exception)
        self._tasks.append(self.loop.create_task(self.guard.run_reaper()))
        self._tasks.append(self.loop.create_task(self._frame_pump()))
        if cfg.health_interval > 0:
            self._tasks.append(self.loop.create_task(self._health_pump()))

    # ------------------------------------------------------------------ doors
    def listen_tcp(self, host: str, port: int) -> None:
        """The JSON-lines door on TCP (`api.tcp_port`); `tcp_port` is the bound port."""

        async def listen() -> None:
            try:
                server = await asyncio.start_server(
                    lambda r, w: self._client(r, w, "tcp"), host, port, backlog=128
                )
            except OSError as exc:
                raise _bind_error("api.tcp_port", f"{host}:{port}", exc) from exc
            self._servers.append(server)
            self.tcp_port = server.sockets[0].getsockname()[1]

        self._call(listen())
        log.info("api: TCP on %s:%s", host, self.tcp_port)

    def listen_unix(self, path: str) -> None:
        """The JSON-lines door on a Unix socket (`api.unix_path`); its group may control."""

        async def listen() -> None:
            prepare_unix_path(path)  # never removes anything but a dead socket of ours
            try:
                server = await asyncio.start_unix_server(
                    lambda r, w: self._client(r, w, "unix"), path
                )
            except OSError as exc:
                raise _bind_error("api.unix_path", repr(path), exc) from exc
            self._unix_identity = socket_identity(path)
            self.unix_path = path
            self._servers.append(server)
            Path(path).chmod(0o660)  # the socket's group decides who may control the board

        self._call(listen())
        log.info("api: Unix socket %s", path)

    def listen_web(self, host: str, port: int) -> None:
        """The web page and its WebSocket (`api.web_port`); `web_port` is the bound port."""

        async def listen() -> None:
            try:
                self._web_runner, self.web_port = await start_web(self, host, port)
            except OSError as exc:
                raise _bind_error("api.web_port", f"{host}:{port}", exc) from exc

        self._call(listen())
        log.info("api: web on http://%s:%s/", host, self.web_port)

    def attach(self, door: Any) -> Any:
        """A door of its own (a serial port, the Redis bus, MQTT): closed with the server."""
        self._attached.append(door)
        return door

    def close(self) -> None:
        """Stop every door, disconnect every client; idempotent."""
        if self._closed:
            return
        self._closed = True
        for door in reversed(self._attached):
            door.close()
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
        self.access.limiter.flush()  # the last summary of failures, if any is unwritten
        if self.unix_path:
            remove_our_socket(self.unix_path, self._unix_identity)

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

    # ------------------------------------------------------------------ sockets
    async def _client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, transport: str
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        host, peer = _peer_of(writer, transport)
        wire = writer.transport
        cut_off = _cutter(wire)
        conn = self.guard.admit(transport, peer, cut_off)
        if conn is None:
            wire.abort()
            return
        self._clients[task] = writer
        bound_send_buffer(wire)
        role = self.access.initial_role(transport, host)
        session, wake = self.open_session(
            transport,
            peer,
            trusted=role == "control",
            cut_off=cut_off,
            pending=wire.get_write_buffer_size,
        )
        conn.control = lambda: session.role == "control"
        session.alive = lambda: not (wire.is_closing() or reader.at_eof())

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
                self.guard.touch(conn)
                await self.dispatch_lines(session, framer.feed(data))
                if session.outbox.over is not None:
                    break  # cut off: what it sent after is not worth reading
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
            self.guard.release(conn)

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
