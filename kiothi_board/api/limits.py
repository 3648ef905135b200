"""Connection limits for the socket doors: caps, idle and header timeouts, shedding.

Every TCP, Unix and HTTP/WebSocket connection is registered with one `ConnectionGuard`
(on the API's asyncio loop, so no locks). A new connection over a cap (per peer address,
per door, in total) takes the place of the longest-idle connection in that scope that does
not have control; if there is none it is refused. The guard's reaper closes HTTP
connections that have not sent a complete request within `header_timeout` (slow headers,
idle keep-alives) and TCP or WebSocket clients that sent nothing for `idle_timeout`. When
the process runs out of descriptors anyway, the newest connections are shed. Each kind of
event is logged at most once per `log_interval` seconds, with a count.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import threading
from collections.abc import Callable
from typing import Any

from kiothi_board.api.authlimit import peer_host
from kiothi_board.clock import Clock

__all__ = [
    "SEND_BUFFER",
    "Conn",
    "ConnectionGuard",
    "GuardedProtocol",
    "SummedLog",
    "bound_send_buffer",
    "descriptor_cap",
]

log = logging.getLogger(__name__)

_FD_RESERVE = 64  # descriptors kept for the store, serial ports, logs, Redis


SEND_BUFFER = 128 * 1024
"""The kernel's send buffer per client socket (it would otherwise grow to megabytes for a
client that does not read: memory outside the budget)."""


def bound_send_buffer(transport: asyncio.BaseTransport) -> None:
    """Fix the socket's send buffer at `SEND_BUFFER` (no autotuning for non-readers)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)


def descriptor_cap(wanted: int) -> int:
    """`wanted`, lowered so that the connections fit in the process's descriptor limit."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(8, min(wanted, soft - _FD_RESERVE))


class Conn:
    """One registered connection."""

    __slots__ = ("busy", "close", "control", "door", "http", "last", "opened", "peer")

    def __init__(
        self, door: str, peer: str, close: Callable[[str], None], now: float, *, http: bool
    ) -> None:
        self.door = door
        self.peer = peer
        self.close = close
        self.opened = now
        self.last = now  # last byte received (stream, WebSocket) or request finished (HTTP)
        self.http = http  # an HTTP connection not (yet) upgraded to a WebSocket
        self.busy = 0  # requests being handled
        self.control: Callable[[], bool] = lambda: False


class ConnectionGuard:
    """Caps, timeouts and shedding for every connection of the API's loop."""

    def __init__(
        self,
        *,
        max_total: int = 512,
        max_per_door: int = 256,
        max_per_peer: int = 128,
        idle_timeout: float = 300.0,
        header_timeout: float = 10.0,
        clock: Clock,
        log_interval: float = 10.0,
    ) -> None:
        """`max_total` is lowered to fit the descriptor limit (see `descriptor_cap`)."""
        self.max_total = descriptor_cap(max_total)
        if self.max_total < max_total:
            log.warning(
                "api: at most %d connections (api.max_connections = %d does not fit the "
                "descriptor limit; raise LimitNOFILE)",
                self.max_total,
                max_total,
            )
        self.max_per_door = max_per_door
        self.max_per_peer = max_per_peer
        self.idle_timeout = idle_timeout
        self.header_timeout = header_timeout
        self._clock = clock
        self._log_interval = log_interval
        self._conns: dict[Conn, None] = {}  # insertion-ordered: oldest first
        self.by_key: dict[object, Conn] = {}
        self.counts: dict[str, int] = {"shed": 0, "refused": 0, "timed_out": 0, "fd_exhausted": 0}
        self._unlogged: dict[str, int] = {}
        self._next_log = 0.0

    def __len__(self) -> int:
        return len(self._conns)

    def now(self) -> float:
        """The guard's clock."""
        return self._clock.now()

    # ------------------------------------------------------------------ admission
    def admit(
        self,
        door: str,
        peer: str,
        close: Callable[[str], None],
        *,
        http: bool = False,
        key: object = None,
    ) -> Conn | None:
        """Register a new connection, making room if a cap is reached; None: refuse it."""
        now = self._clock.now()
        host = peer_host(peer)
        scopes: list[tuple[int, Callable[[Conn], bool]]] = [
            (self.max_per_peer, lambda c: c.peer == host),
            (self.max_per_door, lambda c: c.door == door),
            (self.max_total, lambda c: True),
        ]
        for cap, member in scopes:
            while sum(1 for c in self._conns if member(c)) >= cap:
                victim = self._idlest([c for c in self._conns if member(c)])
                if victim is None:
                    self._note("refused", "refused a connection (every slot has control)")
                    return None
                self._drop(victim, "shed", "over the connection cap")
        conn = Conn(door, host, close, now, http=http)
        self._conns[conn] = None
        if key is not None:
            self.by_key[key] = conn
        return conn

    def _idlest(self, conns: list[Conn]) -> Conn | None:
        free = [c for c in conns if not c.control()]
        return min(free, key=lambda c: c.last) if free else None

    def release(self, conn: Conn | None, key: object = None) -> None:
        """Forget a connection that closed (idempotent)."""
        if conn is not None:
            self._conns.pop(conn, None)
        if key is not None:
            self.by_key.pop(key, None)

    def touch(self, conn: Conn | None) -> None:
        """Bytes arrived from the client."""
        if conn is not None and not conn.http:
            conn.last = self._clock.now()

    def body_deadline(self, conn: Conn | None) -> float:
        """Seconds left for a request's body: the request as a whole, headers and body, must
        be complete within `header_timeout` (a body trickled a byte at a time is closed)."""
        if conn is None:
            return self.header_timeout
        return max(0.0, conn.last + self.header_timeout - self._clock.now())

    def body_timed_out(self, conn: Conn | None) -> None:
        """Close a connection whose request body did not arrive in time."""
        if conn is not None:
            self._drop(conn, "timed_out", "no complete HTTP request in time")

    def _drop(self, conn: Conn, counter: str, reason: str) -> None:
        self._conns.pop(conn, None)
        self._note(counter, f"closed connections: {reason}")
        try:
            conn.close(reason)
        except Exception as exc:  # an already dead transport
            log.debug("api: closing a connection: %s", exc)

    # ------------------------------------------------------------------ timeouts
    def reap(self) -> None:
        """Close HTTP connections past `header_timeout` and idle clients past `idle_timeout`."""
        now = self._clock.now()
        for conn in list(self._conns):
            if conn.http:
                if not conn.busy and now - conn.last > self.header_timeout:
                    self._drop(conn, "timed_out", "no complete HTTP request in time")
            elif conn.door != "unix" and now - conn.last > self.idle_timeout:
                self._drop(conn, "timed_out", "idle")
        self._flush_log(now)

    async def run_reaper(self, period: float = 1.0) -> None:
        """Reap once a `period` for ever (a task on the API's loop)."""
        while True:
            await asyncio.sleep(period)
            self.reap()

    # ------------------------------------------------------------------ descriptors
    def shed_newest(self, count: int) -> None:
        """Out of descriptors: close the `count` newest connections without control."""
        newest = [c for c in reversed(self._conns) if not c.control()][:count]
        for conn in newest:
            self._drop(conn, "shed", "out of file descriptors")

    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The loop's exception handler: accept() out of descriptors sheds, logs rarely."""
        message = str(context.get("message", ""))
        if "out of system resource" in message:
            self.counts["fd_exhausted"] += 1
            self._note("fd_exhausted", "accept() found no free file descriptor")
            self.shed_newest(max(8, len(self._conns) // 10))
            self._flush_log(self._clock.now())
            return
        loop.default_exception_handler(context)

    # ------------------------------------------------------------------ reporting
    def _note(self, counter: str, message: str) -> None:
        if counter != "fd_exhausted":
            self.counts[counter] += 1
        self._unlogged[message] = self._unlogged.get(message, 0) + 1
        self._flush_log(self._clock.now())

    def _flush_log(self, now: float) -> None:
        if not self._unlogged or now < self._next_log:
            return
        self._next_log = now + self._log_interval
        for message, count in self._unlogged.items():
            log.warning("api: %s (%d in the last %.0f s)", message, count, self._log_interval)
        self._unlogged.clear()

    def health(self) -> dict[str, int]:
        """Open connections and what was shed, refused or timed out."""
        return {"open": len(self._conns), "max": self.max_total, **self.counts}


class SummedLog:
    """One kind of line, logged at most once per `interval` seconds with a count (a peer
    that reconnects to be cut off again must not write a journal line each time)."""

    def __init__(self, clock: Clock, interval: float = 10.0) -> None:
        """Nothing logged yet: the first line goes out at once."""
        self._clock = clock
        self._interval = interval
        self._next = 0.0
        self._since = 0
        self._lock = threading.Lock()  # sessions are cut off from the worker threads

    def note(self, line: str) -> None:
        """Log `line` now, or count it into the next one."""
        with self._lock:
            self._since += 1
            now = self._clock.now()
            if now < self._next:
                return
            self._next, count, self._since = now + self._interval, self._since, 0
        more = f" (and {count - 1} more since the last such line)" if count > 1 else ""
        log.warning("%s%s", line, more)


class GuardedProtocol(asyncio.Protocol):
    """Wraps aiohttp's per-connection protocol so the guard sees every HTTP connection."""

    def __init__(self, inner: Any, guard: ConnectionGuard, door: str = "web") -> None:
        self._inner = inner
        self._guard = guard
        self._door = door
        self._conn: Conn | None = None
        self._transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        peername = transport.get_extra_info("peername")
        peer = str(peername[0]) if isinstance(peername, tuple) else "?"

        def close(reason: str) -> None:
            transport.abort()  # type: ignore[attr-defined]

        self._conn = self._guard.admit(self._door, peer, close, http=True, key=transport)
        if self._conn is None:
            transport.abort()  # type: ignore[attr-defined]
            return
        bound_send_buffer(transport)
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._conn is None:
            return
        self._guard.touch(self._conn)
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        if self._conn is None:
            return None
        result: bool | None = self._inner.eof_received()
        return result

    def connection_lost(self, exc: Exception | None) -> None:
        self._guard.release(self._conn, self._transport)
        if self._conn is not None:
            self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()
