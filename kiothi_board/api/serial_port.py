"""The serial transport: one client on a serial port (USB gadget, UART, `loop://`, a pty).

pyserial is imported lazily (house rule 2). The port is opened with `serial_for_url`, so
a device path, `loop://` or `spy://` all work; or an already open port is injected. A
reader thread frames lines into the dispatcher and a writer thread drains the session's
outbox, so a slow line never holds up the game. If the device goes away (a USB cable
pulled), the port is reopened with backoff and a fresh session starts.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from kiothi_board.api.dispatcher import ClientSession, Dispatcher
from kiothi_board.api.protocol import LineFramer, encode
from kiothi_board.errors import LinkError

__all__ = ["SerialTransport"]

log = logging.getLogger(__name__)


class SerialTransport:
    """Serve the protocol on one serial port; `close()` stops the threads and the port."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        url: str = "",
        *,
        baudrate: int = 115200,
        port: Any = None,
        backoff: tuple[float, float] = (0.2, 5.0),
    ) -> None:
        """Serve `url` (opened with `serial.serial_for_url`) or the injected open `port`."""
        if not url and port is None:
            raise ValueError("SerialTransport needs a url or an open port")
        self._dispatcher = dispatcher
        self.url = url or str(getattr(port, "port", "injected"))
        self._baud = baudrate
        self._port: Any = port
        self._injected = port is not None
        self._backoff = backoff
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self.session: ClientSession | None = None
        self.opened = threading.Event()
        self.reopens = 0
        self._partial = False  # a write timed out mid-line: end that line before the next
        self._over: str | None = None  # the client went over its byte budget
        self._threads: list[threading.Thread] = []

    def start(self) -> SerialTransport:
        """Open the port (raises `LinkError` if the first open fails) and start serving."""
        if self._port is None:
            self._port = self._open()
        self._begin_session()
        for target, name in ((self._read_loop, "reader"), (self._write_loop, "writer")):
            t = threading.Thread(target=target, name=f"api-serial-{name}", daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def _open(self) -> Any:
        import serial  # type: ignore[import-untyped]  # pyserial ships no type hints

        try:
            # A short read timeout lets the reader notice close() without cancel_read().
            return serial.serial_for_url(
                self.url, baudrate=self._baud, timeout=0.1, write_timeout=2.0
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkError(f"cannot open serial port {self.url!r}: {exc}") from exc

    def _begin_session(self) -> None:
        session = self._dispatcher.open_session(
            "serial", self.url, trusted=True, wake=self._wake.set, on_over=self._on_over
        )
        with self._lock:
            old, self.session = self.session, session
        if old is not None:
            self._dispatcher.close_session(old)
        self.opened.set()

    def _read_loop(self) -> None:
        framer = LineFramer(self._dispatcher.max_line)
        while not self._stop.is_set():
            try:
                port = self._port
                data = port.read(max(1, port.in_waiting)) if port is not None else b""
            except Exception as exc:  # SerialException, OSError: the device went away
                if self._stop.is_set():
                    return
                log.warning("api: serial port %s failed (%s); reopening", self.url, exc)
                framer = LineFramer(self._dispatcher.max_line)
                if not self._reopen():
                    return
                continue
            if not data:
                continue
            session = self.session
            for line in framer.feed(data):
                if session is not None:
                    self._dispatcher.handle_line(session, line)

    def _reopen(self) -> bool:
        self._close_port()
        delay = self._backoff[0]
        while not self._stop.is_set():
            if self._injected:
                return False  # nothing to reopen: an injected port is the caller's
            try:
                self._port = self._open()
            except LinkError:
                self._stop.wait(delay)
                delay = min(delay * 2, self._backoff[1])
                continue
            self.reopens += 1
            self._begin_session()
            return True
        return False

    def _on_over(self, reason: str) -> None:
        # Called under the dispatcher's lock: only note it; the writer starts afresh.
        self._over = reason
        self._wake.set()

    def _write_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            if self._over is not None:
                # Over its byte budget (nobody reads the port): the backlog is gone; say so
                # and start a fresh session, as if the cable had been plugged in again.
                reason, self._over = self._over, None
                log.warning("api: serial client %s cut off: %s", self.url, reason)
                self._write([encode({"event": "closed", "reason": reason})])
                self._begin_session()
                continue
            session = self.session
            if session is None:
                continue
            lines = session.outbox.take()
            if lines:
                self._write(lines)

    def _write(self, lines: list[bytes]) -> None:
        data = b"".join(lines)
        if self._partial:
            data = b"\n" + data  # the cut line ends here; the next ones arrive whole
            self._partial = False
        try:
            port = self._port
            if port is not None:
                port.write(data)
        except Exception as exc:  # the reader notices a dead port and reopens it
            self._partial = True  # a timeout may have sent part of a line
            log.warning("api: serial write to %s failed: %s", self.url, exc)
            self._stop.wait(0.1)

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception as exc:  # closing a vanished device may fail; it is gone anyway
                log.debug("api: closing %s: %s", self.url, exc)

    def close(self) -> None:
        """Stop serving and close the port (an injected port too); idempotent."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._wake.set()
        for t in self._threads:
            t.join(timeout=2.0)
        self._close_port()
        if self.session is not None:
            self._dispatcher.close_session(self.session)

    def __enter__(self) -> SerialTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
