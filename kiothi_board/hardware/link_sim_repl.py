"""MicroPython's REPL as mpremote meets it on a Pico, for the simulated co-processor.

When the simulated device is not running the firmware (a fresh Pico, or the maintenance boot
after MAINTENANCE) its USB port carries MicroPython's REPL. `SimulatedRepl` speaks what
mpremote uses of it: the friendly prompt, Ctrl-C, the raw REPL (Ctrl-A, code, Ctrl-D →
`OK`, output, `\\x04`, error, `\\x04`, `>`), raw-paste mode (Ctrl-E `A` Ctrl-A, window flow
control) and the soft reset. The code mpremote sends is run by CPython against a directory
standing for the Pico's flash, with `open` and `os` confined to it and MicroPython's
`time.sleep_ms` and `machine.reset()`; a reset is handed back to the device to restart.
Test equipment, not a sandbox for hostile code: mpremote's own snippets are all it runs.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import hashlib
import io
import os
import traceback
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["HardReset", "SimulatedRepl"]

BANNER = b"MicroPython v1.27.0 on 2026-01-01; Raspberry Pi Pico with RP2040\r\n"
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n>"
PASTE_WINDOW = 128


class HardReset(Exception):
    """`machine.reset()` ran: the device restarts from its files."""


class SimulatedRepl:
    """The REPL over `write`, with `flash` as the filesystem; `on_reset(hard)` restarts."""

    def __init__(
        self, flash: Path, write: Callable[[bytes], None], on_reset: Callable[[bool], None]
    ) -> None:
        self.flash = flash
        self._write = write
        self._on_reset = on_reset
        self.raw = False
        self._paste: int | None = None  # bytes left in the current raw-paste window
        self._line = bytearray()
        self._globals: dict[str, Any] = {}
        self._out = io.StringIO()
        self.executed: list[str] = []
        """Every raw-REPL command run, for tests."""

    def start(self, *, soft: bool = False) -> None:
        """Boot (or soft-reboot) into the prompt of the current mode."""
        self._line.clear()
        self._paste = None
        self._globals = {"__builtins__": self._builtins()}
        if soft:
            self._write(b"MPY: soft reboot\r\n")
        self._write(RAW_BANNER if self.raw else BANNER + b">>> ")

    def feed(self, data: bytes) -> None:
        """Bytes from the host."""
        for value in data:
            if self._paste is not None:
                self._paste_byte(value)
            elif self.raw:
                self._raw_byte(value)
            else:
                self._friendly_byte(value)

    # -- modes ------------------------------------------------------------------------------

    def _friendly_byte(self, value: int) -> None:
        if value == 0x01:  # Ctrl-A
            self.raw = True
            self._line.clear()
            self._write(b"\r\n" + RAW_BANNER)
        elif value == 0x03:  # Ctrl-C
            self._line.clear()
            self._write(b"\r\nKeyboardInterrupt\r\n>>> ")
        elif value == 0x04:  # Ctrl-D: soft reset, main.py runs again
            self._on_reset(False)
        elif value == 0x0D:
            self._line.clear()
            self._write(b"\r\n>>> ")
        else:
            self._line.append(value)

    def _raw_byte(self, value: int) -> None:
        line = self._line
        if value == 0x02:  # Ctrl-B: back to the friendly REPL
            self.raw = False
            line.clear()
            self._write(b"\r\n" + BANNER + b">>> ")
        elif value == 0x03:
            line.clear()
        elif value == 0x04 and not line:  # Ctrl-D on an empty command: soft reset
            self._write(b"OK\r\n")
            self.start(soft=True)
        elif value == 0x04:
            code = line.decode("utf-8", errors="replace")
            line.clear()
            self._write(b"OK")
            self._run(code)
        elif value == 0x01 and bytes(line) == b"\x05A":  # raw-paste request
            line.clear()
            self._write(b"R\x01" + PASTE_WINDOW.to_bytes(2, "little"))
            self._paste = PASTE_WINDOW
        elif value == 0x01:  # Ctrl-A again: the raw REPL starts over
            line.clear()
            self._write(b"\r\n" + RAW_BANNER)
        else:
            line.append(value)

    def _paste_byte(self, value: int) -> None:
        if value == 0x04:
            code = self._line.decode("utf-8", errors="replace")
            self._line.clear()
            self._paste = None
            self._write(b"\x04")
            self._run(code)
            return
        self._line.append(value)
        self._paste = (self._paste or PASTE_WINDOW) - 1
        if self._paste == 0:
            self._paste = PASTE_WINDOW
            self._write(b"\x01")  # room for another window

    def _run(self, code: str) -> None:
        self.executed.append(code)
        out, err = io.StringIO(), ""
        self._out = out  # the device's print() writes here (not sys.stdout: other threads)
        reset = False
        try:
            exec(compile(code, "<stdin>", "exec"), self._globals)
        except HardReset:
            reset = True
        except Exception as exc:
            err = _traceback(exc)
        self._write(out.getvalue().replace("\n", "\r\n").encode() + b"\x04")
        self._write(err.encode() + b"\x04")
        if reset:
            self._on_reset(True)
            return
        self._write(b">")

    # -- the device's modules -----------------------------------------------------------------

    def _path(self, name: str) -> Path:
        path = (self.flash / str(name).lstrip("/")).resolve()
        if path != self.flash.resolve() and self.flash.resolve() not in path.parents:
            raise OSError(errno.EACCES, "EACCES")
        return path

    def _builtins(self) -> dict[str, Any]:
        modules = {
            "os": self._os(),
            "time": _time_module(),
            "machine": _machine_module(),
            "micropython": types.SimpleNamespace(kbd_intr=lambda _c: None),
            "gc": types.SimpleNamespace(collect=lambda: None, mem_free=lambda: 180_000),
            "hashlib": hashlib,
            "binascii": __import__("binascii"),
            "errno": errno,
            "sys": types.SimpleNamespace(
                implementation=types.SimpleNamespace(name="micropython", version=(1, 27, 0)),
                platform="rp2",
            ),
        }

        def import_(name: str, *args: Any, **kwargs: Any) -> Any:
            if name in modules:
                return modules[name]
            raise ImportError(f"no module named '{name}'")

        def open_(name: str, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            with _errnos():
                return builtins.open(self._path(name), mode, *args, **kwargs)

        def print_(*values: object, sep: str = " ", end: str = "\n", **_: object) -> None:
            self._out.write(sep.join(map(str, values)) + end)

        return {**vars(builtins), "__import__": import_, "open": open_, "print": print_}

    def _os(self) -> types.SimpleNamespace:
        path = self._path

        def stat(name: str) -> tuple[int, ...]:
            with _errnos():
                st = os.stat(path(name))
            return (st.st_mode, 0, 0, 0, 0, 0, st.st_size, 0, int(st.st_mtime), 0)

        def ilistdir(name: str = "") -> Iterator[tuple[str, int, int, int]]:
            with _errnos():
                entries = sorted(path(name).iterdir())
            for entry in entries:
                kind = 0x4000 if entry.is_dir() else 0x8000
                yield (entry.name, kind, 0, entry.stat().st_size if kind == 0x8000 else 0)

        def call(fn: Callable[..., Any]) -> Callable[..., Any]:
            def wrapped(*names: str) -> Any:
                with _errnos():
                    return fn(*(path(n) for n in names))

            return wrapped

        return types.SimpleNamespace(
            stat=stat,
            ilistdir=ilistdir,
            listdir=lambda name="": [e[0] for e in ilistdir(name)],
            remove=call(os.remove),
            mkdir=call(os.mkdir),
            rmdir=call(os.rmdir),
            rename=call(os.rename),
            getcwd=lambda: "/",
            chdir=lambda name: None,
            statvfs=lambda name: (4096, 4096, 212, 200, 200, 0, 0, 0, 0, 255),
            uname=lambda: ("rp2", "rp2", "1.27.0", "v1.27.0", "Raspberry Pi Pico with RP2040"),
            sep="/",
        )


@contextlib.contextmanager
def _errnos() -> Iterator[None]:
    """CPython's OSError subclasses as MicroPython prints them: `OSError: [Errno 2] ENOENT`."""
    try:
        yield
    except OSError as exc:
        code = exc.errno or errno.EIO
        raise OSError(code, errno.errorcode.get(code, "EIO")) from None


def _traceback(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.args and isinstance(exc.args[0], int):
        line = f"OSError: [Errno {exc.args[0]}] {errno.errorcode.get(exc.args[0], 'EIO')}"
    else:
        line = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return (
        f'Traceback (most recent call last):\r\n  File "<stdin>", line 1, in <module>\r\n{line}\r\n'
    )


def _time_module() -> types.SimpleNamespace:
    # mpremote only pauses (`reset` sleeps 100 ms first): the simulated Pico makes no one wait.
    return types.SimpleNamespace(sleep=lambda s: None, sleep_ms=lambda ms: None)


def _machine_module() -> types.SimpleNamespace:
    def reset() -> None:
        raise HardReset

    return types.SimpleNamespace(reset=reset)
