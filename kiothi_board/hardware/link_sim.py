"""A simulated co-processor: the device end of the link (firmware/PROTOCOL.md) in CPython.

`SimulatedCoprocessor` behaves like a Pico running firmware/kiothi_io on any serial-like
object (`read(n)` returning b"" after a timeout, `write(data)`): it answers HELLO, sends INPUT
on every level change and STATUS every `status_interval`, and counts every garbled frame
or overrun, answering with at most one ERROR per `error_gap`. Like the firmware, Ctrl-C does
nothing (0x03 is frame data) and a `watchdog` restarts it when its loop hangs. Given a
`flash` directory it is the whole Pico: it boots the firmware found there (FIRMWARE_VERSION,
CONTROL_PINS, WATCHDOG_MS and ERROR_GAP_MS from its config.py), or MicroPython's
REPL (`link_sim_repl`) when there is no main.py, when the maintenance flag is set (a
MAINTENANCE request writes it and hard-resets, as main.py does) or while BOOTSEL is held; so
`kiothi-board firmware install` and real mpremote are tested against it end to end. Tests
press and release inputs, make it hang or fall silent, and inject raw bytes. `FdPort` wraps
a raw file descriptor (a pty's master end) as such a serial-like object.
"""

from __future__ import annotations

import ast
import fcntl
import logging
import os
import select
import struct
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from kiothi_board.errors import ConfigError
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.frames import PITS
from kiothi_board.hardware.link_sim_repl import SimulatedRepl

__all__ = ["FdPort", "SimulatedCoprocessor", "firmware_setting"]

log = logging.getLogger(__name__)


def firmware_setting(source: Path, name: str) -> Any:
    """A constant from a firmware config.py (read, not run: it is MicroPython code)."""
    path = source / "config.py"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the firmware settings: {exc}") from exc
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    return ast.literal_eval(node.value)
    raise ConfigError(f"{path}: no {name} setting")


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


Mode = Literal["firmware", "repl"]


class SimulatedCoprocessor:
    """The firmware's behaviour over a serial-like `port` (see the module docstring).

    Slots 0…19 are pits, 20…23 control buttons; levels are True while active. What it saw is
    kept: `hellos`, `garbled`, `boots` (one per start, hard or soft), `mode`.
    `wait_for(predicate, timeout)` blocks until a predicate on that holds.
    """

    def __init__(
        self,
        port: Any,
        *,
        controls: int = 4,
        firmware: tuple[int, int, int] = (0, 2, 0),
        status_interval: float = 0.1,
        protocol: int = cf.PROTOCOL_VERSION,
        features: int = cf.F_MAINTENANCE,
        watchdog: float | None = 2.0,
        flash: Path | None = None,
        error_gap: float = 0.1,
    ) -> None:
        """Start talking on `port` (not owned: the caller closes it after `close()`).

        Without `flash` it runs the firmware described by `controls`, `firmware` and
        `features` (0: firmware 0.1, which ignores MAINTENANCE). With `flash` (a directory
        standing for the Pico's filesystem) it boots what is there. `watchdog` seconds
        without a loop turn (see `hang`) restart it; None: no watchdog. `error_gap`: the
        firmware's ERROR_GAP_MS, in seconds.
        """
        self.port = port
        self.controls = controls
        self.firmware = firmware
        self.status_interval = status_interval
        self.protocol = protocol
        self.features = features
        self.watchdog = watchdog
        self.flash = flash
        self.error_gap = error_gap
        self.levels = [False] * cf.INPUT_SLOTS
        self.hellos = 0
        self.garbled = 0
        self.ok = 0
        self.errors_sent = 0
        self._last_error: float | None = None
        self._overruns = 0
        self.boots = 0
        self.bootsel = False
        """Held BOOTSEL: the next start goes to the REPL (main.py checks it first)."""
        self.mode: Mode = "firmware"
        self._repl: SimulatedRepl | None = None
        self._reader = cf.FrameReader()
        self._seq = 0
        self._silent = False
        self._hung = False
        self._wdt_deadline: float | None = None
        self._start = time.monotonic()
        self._lock = threading.RLock()  # state above (RLock: wait_for predicates may read it)
        # RLock: a level and its report are sent under it (as one loop on the firmware does)
        self._write_lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._boot(hard=True)
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
        # Under the write lock: a STATUS read before this change must not be sent after its
        # INPUT (the firmware's one loop never does; a stale STATUS would undo the press).
        with self._write_lock:
            with self._lock:
                self.levels[slot] = bool(level)
                silent = self._silent
            if send_input and not silent:
                self._send(cf.INPUT, cf.pack_input(slot, level, self._ms()))

    def go_silent(self) -> None:
        """Stop sending and answering while the loop (and the watchdog's feed) go on."""
        with self._lock:
            self._silent = True

    def hang(self) -> None:
        """The main loop stops: silent, and the watchdog (if any) restarts the device."""
        with self._lock:
            self._hung = True

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
        return (
            f"SimulatedCoprocessor({self.port!r}, firmware={self.firmware!r}, mode={self.mode!r})"
        )

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
        with self._write_lock:  # the levels read and sent before any later INPUT
            with self._lock:
                mask = sum(1 << i for i, on in enumerate(self.levels) if on)
                bad, ok = self.garbled, self.ok
            self._send(cf.STATUS, cf.pack_status(mask, self._ms(), bad, ok))

    def _boot(self, *, hard: bool) -> None:
        """Start as a Pico does: the firmware on the flash, else MicroPython's REPL."""
        with self._lock:
            self.boots += 1
            self._hung = False
            if hard:
                self._wdt_deadline = None  # only a hard reset stops the rp2 watchdog
            self._reader.reset()
            mode: Mode = "firmware"
            if self.flash is not None:
                flag = self.flash / "maintenance"
                if flag.exists() or self.bootsel or not (self.flash / "main.py").exists():
                    flag.unlink(missing_ok=True)
                    mode = "repl"
                else:
                    self._load_firmware(self.flash)
            self.mode = mode
            if mode == "firmware":
                if self.watchdog is not None:
                    self._wdt_deadline = time.monotonic() + self.watchdog
                self._repl = None
                return
            assert self.flash is not None
            self._repl = SimulatedRepl(self.flash, self.inject, self._reset)
        self._repl.start()

    def _load_firmware(self, flash: Path) -> None:
        major, minor, patch = firmware_setting(flash, "FIRMWARE_VERSION")
        self.firmware = (int(major), int(minor), int(patch))
        self.controls = len(firmware_setting(flash, "CONTROL_PINS")[:4])
        watchdog_ms = firmware_setting(flash, "WATCHDOG_MS")
        self.watchdog = watchdog_ms / 1000 if watchdog_ms else None
        self.error_gap = firmware_setting(flash, "ERROR_GAP_MS") / 1000
        self.features = cf.F_MAINTENANCE

    def _reset(self, hard: bool) -> None:
        if not hard and self._repl is not None:  # friendly Ctrl-D: main.py runs again
            self._boot(hard=False)
            return
        self._boot(hard=hard)

    def _run(self) -> None:
        next_status = time.monotonic()
        while not self._stop.is_set():
            try:
                data = self.port.read(4096)
            except OSError:
                if self._stop.wait(0.05):
                    return
                continue
            now = time.monotonic()
            with self._lock:
                mode, silent, hung = self.mode, self._silent, self._hung
                bitten = self._wdt_deadline is not None and now >= self._wdt_deadline
                if mode == "firmware" and not hung and self._wdt_deadline is not None:
                    self._wdt_deadline = now + (self.watchdog or 0)  # the loop feeds it
            if bitten:
                log.debug("simulated co-processor: watchdog reset")
                self._boot(hard=True)
            elif mode == "repl" and data:
                assert self._repl is not None
                self._repl.feed(data)
            elif mode == "firmware" and not hung:
                if data and not silent:
                    for packet in self._reader.feed(data):
                        self._on_packet(packet)
                    if self._reader.overruns != self._overruns:
                        self._overruns = self._reader.overruns
                        self._bad(cf.E_OVERRUN, 0)
                if now >= next_status:
                    next_status = now + self.status_interval
                    if not silent and self.mode == "firmware":
                        self._status()
            with self._changed:
                self._changed.notify_all()

    def _on_packet(self, packet: bytes) -> None:
        try:
            msg_type, _seq, payload = cf.decode_frame(packet)
            self._handle(msg_type, payload)
        except cf.FrameDecodeError as exc:
            self._bad(exc.reason, packet[0] if packet else 0)
            return
        with self._lock:
            self.ok += 1

    def _bad(self, reason: int, detail: int) -> None:
        """Count a bad packet; tell the host, at most once per `error_gap` (as device.py)."""
        now = time.monotonic()
        with self._lock:
            self.garbled += 1
            count = self.garbled
            due = self._last_error is None or now - self._last_error >= self.error_gap
            if due:
                self._last_error = now
                self.errors_sent += 1
        if due:
            self._send(cf.ERROR, cf.pack_error(reason, detail, count))

    def _handle(self, msg_type: int, payload: bytes) -> None:
        if msg_type == cf.HELLO:
            cf.unpack_hello(payload)
            with self._lock:
                self.hellos += 1
            ack = cf.pack_hello_ack(self.firmware, PITS, self.controls, self.features)
            # A wrong `protocol` lets tests play old firmware.
            self._send(cf.HELLO_ACK, bytes((self.protocol,)) + ack[1:])
            self._status()
        elif msg_type == cf.MAINTENANCE and self.features & cf.F_MAINTENANCE:
            cf.check_maintenance(payload)
            self._send(cf.MAINTENANCE, cf.MAINTENANCE_MAGIC)
            if self.flash is not None:  # main.py: the flag file, then a hard reset
                (self.flash / "maintenance").write_text("update\n", encoding="ascii")
            self._boot(hard=True)
        else:
            raise cf.FrameDecodeError(cf.E_TYPE, f"{cf.TYPE_NAMES[msg_type]} is not for a device")
