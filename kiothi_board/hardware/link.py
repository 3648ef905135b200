"""The I/O co-processor link: an RP2040 on USB serial owns the pit and control inputs.

Protocol: firmware/PROTOCOL.md; codec: `cobs_frames` (shared byte for byte with the firmware).

`CoprocessorLink` owns the port. pyserial is imported lazily and the port is chosen by URL
(a device path, `loop://`, a pty's slave path) or built by an injected `serial_factory`, as
pyserial's own `serial_for_url` does. One reader thread splits the byte stream at 0x00
delimiters (pyserial's `threaded.FramedPacket` idea), checks each frame, and hands the good
ones to listeners. A garbled frame is counted and dropped; the stream resyncs at the next
delimiter. The link is `up` after a HELLO/HELLO_ACK handshake and goes `down` (with a
`LinkError` in `.error`) when no frame arrives for `heartbeat_timeout` seconds — the device
sends STATUS every 100 ms — or the port fails. While down it re-sends HELLO, and reopens a
failed port, with exponential backoff; it comes back up on the next HELLO_ACK.

The pit input on a link lives in `link_devices` (it uses the link; the link knows nothing
of it); the state, message and
counter types in `link_types`. The LEDs are the Pi's own (SPI0), in every wiring.

Time: heartbeat deadlines, HELLO retries and input stamps use the injected clock; only the
reader's read timeout and the reopen backoff sleep in real time (they are waits, not stamps).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from kiothi_board.clock import Clock
from kiothi_board.errors import LinkError
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.link_types import (
    DeviceInfo,
    LinkChange,
    LinkMessage,
    LinkState,
    LinkStats,
    MessageListener,
    StateListener,
    check_link_args,
    check_packet,
    open_port,
)
from kiothi_board.listeners import Listeners

__all__ = [
    "CoprocessorLink",
    "DeviceInfo",
    "LinkChange",
    "LinkMessage",
    "LinkState",
    "LinkStats",
]

log = logging.getLogger(__name__)


class CoprocessorLink:
    """The host end of the co-processor link (see the module docstring)."""

    def __init__(
        self,
        port_url: str,
        *,
        clock: Clock,
        baud: int = 115200,
        heartbeat_timeout: float = 0.5,
        backoff: tuple[float, float] = (0.2, 5.0),
        serial_factory: Callable[..., Any] | None = None,
        read_timeout: float = 0.05,
        write_timeout: float = 1.0,
    ) -> None:
        """Open `port_url` and start the reader thread, which sends the first HELLO.

        `serial_factory(url, baudrate=, timeout=, write_timeout=)` defaults to pyserial's
        `serial_for_url`. `backoff` is (first, longest) delay in seconds between HELLO
        retries and port reopens. Raises ConfigError for bad values and LinkError (quoting
        the port) if the port cannot be opened the first time.
        """
        check_link_args(port_url, heartbeat_timeout, backoff)
        self.port_url = port_url
        self.clock = clock
        self.baud = baud
        self.heartbeat_timeout = float(heartbeat_timeout)
        self.backoff = (float(backoff[0]), float(backoff[1]))
        self._factory = serial_factory
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout

        # State and counters (an RLock: wait_for predicates read stats).
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()  # one writer at a time: frames never interleave
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._state: LinkState = "down"
        self._error: LinkError | None = None
        self._device: DeviceInfo | None = None
        self._counts = {f.name: 0 for f in fields(LinkStats)}
        self._listeners: Listeners[LinkMessage] = Listeners("the co-processor link")
        self._state_listeners: Listeners[LinkChange] = Listeners("the co-processor link's state")
        self._tx_seq = 0
        self._rx_seq: int | None = None
        now = clock.now()
        self._last_rx = now
        self._next_hello = now
        self._hello_delay = self.backoff[0]
        self._asked_early = False

        self._port: Any = self._open()
        self._thread = threading.Thread(
            target=self._run, name=f"kiothi-link {port_url}", daemon=True
        )
        self._thread.start()

    # -- public API ---------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        """`up` after a handshake while frames keep coming, `down` otherwise, or `closed`."""
        return self._state

    @property
    def is_up(self) -> bool:
        """Whether the link is up."""
        return self._state == "up"

    @property
    def error(self) -> LinkError | None:
        """Why the link is down (None while up, or before the first handshake failed)."""
        return self._error

    @property
    def device(self) -> DeviceInfo | None:
        """The firmware's HELLO_ACK of the current (or last) connection."""
        return self._device

    @property
    def stats(self) -> LinkStats:
        """A snapshot of the counters."""
        with self._lock:
            return LinkStats(**self._counts)

    def add_listener(self, listener: MessageListener) -> None:
        """Call `listener(message)` from the reader thread for each intact frame while up."""
        self._listeners.add(listener)

    def remove_listener(self, listener: MessageListener) -> None:
        """Stop calling `listener` (no error if it was not added)."""
        self._listeners.remove(listener)

    def add_state_listener(self, listener: StateListener) -> None:
        """Call `listener(change)` (a `LinkChange`) from the reader thread on every change."""
        self._state_listeners.add(listener)

    def remove_state_listener(self, listener: StateListener) -> None:
        """Stop calling `listener` (no error if it was not added)."""
        self._state_listeners.remove(listener)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until `predicate()` is true (checked after each read and state change).

        Returns the predicate's last value; for tests and for a daemon waiting for `is_up`.
        """
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def wait_up(self, timeout: float) -> bool:
        """Block until the link is up (True) or `timeout` seconds pass (False)."""
        return self.wait_for(lambda: self._state == "up", timeout)

    def send(self, msg_type: int, payload: bytes = b"") -> None:
        """Write one frame; LinkError if the link is closed, the port is not open or fails."""
        self._write([(msg_type, payload)])

    def request_maintenance(self) -> None:
        """Ask the firmware to restart into its update mode (REPL, no watchdog)."""
        self._write([(cf.MAINTENANCE, cf.MAINTENANCE_MAGIC)])

    def close(self) -> None:
        """Stop the reader and close the port; idempotent."""
        with self._lock:
            if self._state == "closed":
                return
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        with self._write_lock:
            self._close_port()
        self._set_state("closed", None)

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._state == "closed"

    def __enter__(self) -> CoprocessorLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"CoprocessorLink({self.port_url!r}, baud={self.baud!r}, state={self._state!r})"

    # -- port -----------------------------------------------------------------------------

    def _open(self) -> Any:
        return open_port(
            self._factory, self.port_url, self.baud, self._read_timeout, self._write_timeout
        )

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception as exc:  # a vanished USB device may fail to close; it is gone
                log.debug("closing %s: %s", self.port_url, exc)

    def _write(self, frames: Sequence[tuple[int, bytes]]) -> None:
        with self._write_lock:
            if self._state == "closed":
                raise LinkError(f"co-processor link {self.port_url!r} is closed")
            port = self._port
            if port is None:
                self._count("unsent", len(frames))
                raise LinkError(f"co-processor port {self.port_url!r} is not open (reconnecting)")
            data = bytearray()
            for msg_type, payload in frames:
                data += cf.encode_frame(msg_type, self._tx_seq, payload)
                self._tx_seq = (self._tx_seq + 1) & 0xFF
            try:
                port.write(bytes(data))
            except Exception as exc:  # SerialException, SerialTimeoutException, OSError
                self._count("unsent", len(frames))
                error = LinkError(f"writing to co-processor port {self.port_url!r} failed: {exc}")
                error.__cause__ = exc
                self._go_down(error)
                raise error from exc
            self._count("sent", len(frames))

    # -- reader thread ----------------------------------------------------------------------

    def _run(self) -> None:
        reader = cf.FrameReader()
        overruns = 0
        while not self._stop.is_set():
            port = self._port
            if port is None:
                if not self._reopen():
                    return
                reader.reset()
                continue
            try:
                data = port.read(max(1, min(port.in_waiting, 4096)))
            except Exception as exc:  # the device went away (USB unplugged, reset)
                if self._stop.is_set():
                    return
                error = LinkError(f"reading co-processor port {self.port_url!r} failed: {exc}")
                error.__cause__ = exc
                log.warning("%s; reopening", error)
                self._go_down(error)
                with self._write_lock:
                    self._close_port()
                continue
            now = self.clock.now()
            if data:
                for packet in reader.feed(data):
                    self._on_packet(packet, now)
                if reader.overruns != overruns:
                    self._count("garbled", reader.overruns - overruns)
                    overruns = reader.overruns
            self._tick(now)
            with self._changed:
                self._changed.notify_all()

    def _reopen(self) -> bool:
        delay = self.backoff[0]
        while not self._stop.wait(delay):
            try:
                port = self._open()
            except LinkError as exc:
                log.debug("%s; retrying in %.1f s", exc, delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            with self._write_lock:
                self._port = port
            now = self.clock.now()
            with self._lock:
                self._counts["reconnects"] += 1
                self._rx_seq = None
                self._next_hello = now
                self._hello_delay = self.backoff[0]
                self._last_rx = now
            log.info("co-processor port %s reopened", self.port_url)
            return True
        return False

    def _on_packet(self, packet: bytes, now: float) -> None:
        try:
            msg_type, seq, payload = check_packet(packet)
        except cf.FrameDecodeError as exc:
            intact = exc.reason in (cf.E_VERSION, cf.E_TYPE, cf.E_LENGTH)
            self._count("dropped" if intact else "garbled")
            log.debug(
                "co-processor %s: %s frame: %s",
                self.port_url,
                "dropped" if intact else "garbled",
                exc,
            )
            return
        with self._lock:
            self._counts["frames_ok"] += 1
            if self._rx_seq is not None:
                self._counts["seq_gaps"] += (seq - self._rx_seq - 1) & 0xFF
            self._rx_seq = seq
            self._last_rx = now
            up = self._state == "up"
        if msg_type == cf.HELLO_ACK:
            self._on_hello_ack(cf.unpack_hello_ack(payload))
            return
        if msg_type == cf.ERROR:
            code, detail, count = cf.unpack_error(payload)
            self._count("device_errors")
            log.debug(
                "co-processor %s reports error %d (detail %d, %d bad frames)",
                self.port_url,
                code,
                detail,
                count,
            )
            return
        if not up:
            # Never act on a device we have not shaken hands with; but it is alive, so ask now.
            self._count("dropped")
            with self._lock:
                if not self._asked_early:  # once per down spell, then backoff rules again
                    self._asked_early = True
                    self._next_hello = min(self._next_hello, now)
            return
        # A listener that raises is logged and the reader goes on (`Listeners.emit`).
        self._listeners.emit(LinkMessage(msg_type, seq, payload, now))

    def _on_hello_ack(self, ack: tuple[int, tuple[int, int, int], int, int, int]) -> None:
        protocol, firmware, pits, controls, features = ack
        info = DeviceInfo(protocol, firmware, pits, controls, features)
        if protocol != cf.PROTOCOL_VERSION:
            self._go_down(
                LinkError(
                    f"co-processor on {self.port_url!r} speaks protocol {protocol}, "
                    f"we speak {cf.PROTOCOL_VERSION}: flash matching firmware"
                )
            )
            return
        with self._lock:
            self._device = info
            self._counts["handshakes"] += 1
            self._asked_early = False
            self._hello_delay = self.backoff[0]
        log.info("co-processor on %s up: %r", self.port_url, info)
        self._set_state("up", None)

    def _tick(self, now: float) -> None:
        with self._lock:
            silent = self._state == "up" and now - self._last_rx > self.heartbeat_timeout
        if silent:
            self._count("heartbeat_losses")
            self._go_down(
                LinkError(
                    f"co-processor on {self.port_url!r} silent for over "
                    f"{self.heartbeat_timeout} s (heartbeat lost)"
                )
            )
        with self._lock:
            due = self._state == "down" and now >= self._next_hello
            if due:
                self._next_hello = now + self._hello_delay
                self._hello_delay = min(self._hello_delay * 2, self.backoff[1])
        if due:
            try:
                self._write([(cf.HELLO, cf.pack_hello())])
            except LinkError as exc:
                log.debug("HELLO not sent: %s", exc)

    def _count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counts[name] += n

    def _go_down(self, error: LinkError) -> None:
        with self._lock:
            if self._state == "closed":
                return
            was_up = self._state == "up"
            self._error = error
            if was_up:
                self._next_hello = self.clock.now()
                self._hello_delay = self.backoff[0]
        if was_up:
            log.warning("%s", error)
            self._set_state("down", error)

    def _set_state(self, state: LinkState, error: LinkError | None) -> None:
        with self._lock:
            if self._state == state or self._state == "closed":
                return
            self._state = state
            if state == "up":
                self._error = None
            self._changed.notify_all()
        self._state_listeners.emit(LinkChange(state, error))
