"""A simulated co-processor: the device end of the link (firmware/PROTOCOL.md) in CPython.

`SimulatedCoprocessor` behaves like firmware/kiothi_io on any serial-like object (`read(n)`
returning b"" after a timeout, `write(data)`): it answers HELLO, sends INPUT on every level
change and STATUS every `status_interval`, assembles LEDS chunks into chain frames, and
answers a garbled frame with a counted ERROR. Tests press and release inputs, make it fall
silent, inject raw bytes, and read back the LED frames it received. `FdPort` wraps a raw
file descriptor (a pty's master end) as such a serial-like object.
"""

from __future__ import annotations

import fcntl
import logging
import os
import select
import struct
import termios
import threading
import time
from collections.abc import Callable
from typing import Any

from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.frames import PITS
from kiothi_board.hardware.protocols import RGB

__all__ = ["FdPort", "SimulatedCoprocessor"]

log = logging.getLogger(__name__)


class FdPort:
    """A minimal serial-like object over a file descriptor (e.g. a pty's master end)."""

    def __init__(self, fd: int, *, timeout: float = 0.05, close_fd: bool = False) -> None:
        """Read with `timeout` seconds; close the descriptor on `close()` only if `close_fd`."""
        self.fd = fd
        self.timeout = timeout
        self._close_fd = close_fd
        self.closed = False

    @property
    def in_waiting(self) -> int:
        """Bytes ready to read."""
        buf = fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0")
        return int(struct.unpack("i", buf)[0])

    def read(self, size: int = 1) -> bytes:
        """Up to `size` bytes, or b"" if none arrive within the timeout."""
        ready, _, _ = select.select([self.fd], [], [], self.timeout)
        return os.read(self.fd, size) if ready else b""

    def write(self, data: bytes) -> int:
        """Write all of `data`."""
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]
        return len(data)

    def close(self) -> None:
        """Close the descriptor if owned; idempotent."""
        if not self.closed:
            self.closed = True
            if self._close_fd:
                os.close(self.fd)

    def __repr__(self) -> str:
        return f"FdPort({self.fd!r}, timeout={self.timeout!r})"


class SimulatedCoprocessor:
    """The firmware's behaviour over a serial-like `port` (see the module docstring).

    Slots 0…19 are pits, 20…23 control buttons; levels are True while active. Everything it
    received is kept: `frames` (each a chain-ordered list of RGB), `brightness`, `hellos`,
    `garbled`. `wait_for(predicate, timeout)` blocks until a predicate on that holds.
    """

    def __init__(
        self,
        port: Any,
        *,
        leds_per_ring: int = 16,
        controls: int = 4,
        firmware: tuple[int, int, int] = (0, 1, 0),
        status_interval: float = 0.1,
        protocol: int = cf.PROTOCOL_VERSION,
    ) -> None:
        """Start talking on `port` (not owned: the caller closes it after `close()`)."""
        self.port = port
        self.leds_per_ring = leds_per_ring
        self.controls = controls
        self.firmware = firmware
        self.status_interval = status_interval
        self.protocol = protocol
        self.levels = [False] * cf.INPUT_SLOTS
        self.frames: list[list[RGB]] = []
        self.brightness: int | None = None
        self.hellos = 0
        self.garbled = 0
        self.ok = 0
        self.errors_sent = 0
        self._assembler = cf.LedAssembler(PITS * leds_per_ring)
        self._seq = 0
        self._silent = False
        self._start = time.monotonic()
        self._lock = threading.RLock()  # state above (RLock: wait_for predicates may read it)
        self._write_lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="kiothi-sim-coprocessor", daemon=True
        )
        self._thread.start()

    # -- test controls ----------------------------------------------------------------------

    def press(self, slot: int, *, send_input: bool = True) -> None:
        """Input `slot` goes active; `send_input=False` loses its INPUT (STATUS heals it)."""
        self.set_level(slot, True, send_input=send_input)

    def release(self, slot: int, *, send_input: bool = True) -> None:
        """Input `slot` goes inactive."""
        self.set_level(slot, False, send_input=send_input)

    def set_level(self, slot: int, level: bool, *, send_input: bool = True) -> None:
        """Set one raw level and report it as INPUT (unless lost or silent)."""
        if not 0 <= slot < PITS + self.controls:
            raise ValueError(f"slot must be 0…{PITS + self.controls - 1}, got {slot!r}")
        with self._lock:
            self.levels[slot] = bool(level)
            silent = self._silent
        if send_input and not silent:
            self._send(cf.INPUT, cf.pack_input(slot, level, self._ms()))

    def go_silent(self) -> None:
        """Stop sending and answering, as hung firmware would."""
        with self._lock:
            self._silent = True

    def resume(self) -> None:
        """Talk again (the host then re-handshakes)."""
        with self._lock:
            self._silent = False

    def inject(self, data: bytes) -> None:
        """Write raw bytes to the host (garbage, half frames, hand-made frames)."""
        with self._write_lock:
            self.port.write(data)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until `predicate()` holds (re-checked whenever something is received)."""
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def close(self) -> None:
        """Stop the device thread (the port stays open); idempotent."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)

    def __enter__(self) -> SimulatedCoprocessor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SimulatedCoprocessor({self.port!r}, leds_per_ring={self.leds_per_ring!r})"

    # -- device behaviour -------------------------------------------------------------------

    def _ms(self) -> int:
        return int((time.monotonic() - self._start) * 1000)

    def _send(self, msg_type: int, payload: bytes) -> None:
        with self._write_lock:
            frame = cf.encode_frame(msg_type, self._seq, payload)
            self._seq = (self._seq + 1) & 0xFF
            try:
                self.port.write(frame)
            except OSError as exc:  # the host end went away; a device just keeps going
                log.debug("simulated co-processor: write failed: %s", exc)

    def _status(self) -> None:
        with self._lock:
            mask = sum(1 << i for i, on in enumerate(self.levels) if on)
            bad, ok = self.garbled, self.ok
        self._send(cf.STATUS, cf.pack_status(mask, self._ms(), bad, ok))

    def _run(self) -> None:
        reader = cf.FrameReader()
        next_status = time.monotonic()
        while not self._stop.is_set():
            try:
                data = self.port.read(4096)
            except OSError:
                if self._stop.wait(0.05):
                    return
                continue
            with self._lock:
                silent = self._silent
            if data and not silent:
                for packet in reader.feed(data):
                    self._on_packet(packet)
            now = time.monotonic()
            if now >= next_status:
                next_status = now + self.status_interval
                if not silent:
                    self._status()
            with self._changed:
                self._changed.notify_all()

    def _on_packet(self, packet: bytes) -> None:
        try:
            msg_type, _seq, payload = cf.decode_frame(packet)
            self._handle(msg_type, payload)
        except cf.FrameDecodeError as exc:
            with self._lock:
                self.garbled += 1
                self.errors_sent += 1
                count = self.garbled
            detail = packet[0] if packet else 0
            self._send(cf.ERROR, cf.pack_error(exc.reason, detail, count))
            return
        with self._lock:
            self.ok += 1

    def _handle(self, msg_type: int, payload: bytes) -> None:
        if msg_type == cf.HELLO:
            cf.unpack_hello(payload)
            with self._lock:
                self.hellos += 1
            ack = cf.pack_hello_ack(self.firmware, PITS, self.controls, self.leds_per_ring)
            # A wrong `protocol` lets tests play old firmware.
            self._send(cf.HELLO_ACK, bytes((self.protocol,)) + ack[1:])
            self._status()
        elif msg_type == cf.LEDS:
            frame_id, flags, start, rgb = cf.unpack_leds(payload)
            if self._assembler.feed(frame_id, flags, start, rgb):
                buf = self._assembler.buffer
                chain = [(buf[i], buf[i + 1], buf[i + 2]) for i in range(0, len(buf), 3)]
                with self._lock:
                    self.frames.append(chain)
        elif msg_type == cf.BRIGHTNESS:
            value = cf.unpack_brightness(payload)
            with self._lock:
                self.brightness = value
        else:
            raise cf.FrameDecodeError(cf.E_TYPE, f"{cf.TYPE_NAMES[msg_type]} is not for a device")
