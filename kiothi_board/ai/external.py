"""`cmd:"PROGRAM ARGS"`: an external program that speaks the engine protocol, as a player.

It is told each position as `position startpos moves …` (the `line` of the move budget)
and answers `go movetime MS` within twice its budget plus a second, or it has failed: it
crashed, hung or answered nonsense (`EngineFailure`, which loses a match game). A line of
its output is at most `LINE_LIMIT` bytes (longer is nonsense too: it is not read on). The
engine runs in a session of its own, and `close` ends its whole process group: a child it
forked does not outlive the match.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading

from kiothi_board.ai.thinking import ANY, Hint, MoveBudget, PlayerBase
from kiothi_board.clock import Clock, SystemClock
from kiothi_board.errors import KiothiError
from kiothi_board.rules import STANDARD, Position, Variant, parse_opening, parse_pit

DEFAULT_CMD_MOVETIME = 1.0  # seconds, when no movetime is given
LINE_LIMIT = 64 * 1024  # bytes in one line of an engine's output


class EngineFailure(Exception):
    """An engine lost the game by crashing, hanging or answering nonsense."""


class ExternalEngine(PlayerBase):
    """An external engine on its stdin/stdout (see the module docstring)."""

    def __init__(
        self,
        command: str,
        *,
        movetime: float | None = None,
        variant: Variant = STANDARD,
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.clock: Clock = clock or SystemClock()
        command = command.strip()
        if (
            len(command) >= 2
            and command[0] == command[-1] in "\"'"
            and command[0] not in command[1:-1]
        ):
            command = command[1:-1]  # cmd:"prog args": the quotes wrap the whole command
        if not command:
            raise ValueError("cmd: needs a command line")
        self.name = f"cmd:{command}"
        self.command = command
        self.movetime = movetime if movetime is not None else DEFAULT_CMD_MOVETIME
        self.lines: queue.Queue[str | EngineFailure | None] = queue.Queue()
        try:
            self.proc = subprocess.Popen(
                shlex.split(self.command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own process group, ended whole by close()
            )
        except OSError as exc:
            raise EngineFailure(f"cannot start {self.command!r}: {exc}") from exc
        self._ended = False
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self.send("kei")
            self.expect(("keiok",), 5.0, "kei")
            if variant != STANDARD:
                self.send(f"setoption name Variant value {variant}")
            self.send("newgame")
        except EngineFailure:
            self.close()  # no caller holds it yet to close it
            raise

    def _read(self) -> None:
        """Lines of at most LINE_LIMIT bytes: a longer one is a failure, and the end."""
        assert self.proc.stdout is not None
        while True:
            try:
                raw = self.proc.stdout.readline(LINE_LIMIT + 1)
            except (OSError, ValueError):
                raw = b""
            if not raw:
                break
            if len(raw) > LINE_LIMIT and not raw.endswith(b"\n"):
                limit = f"{LINE_LIMIT} bytes"
                self.lines.put(EngineFailure(f"answered nonsense: a line longer than {limit}"))
                return  # not read on: the engine is ended by close()
            self.lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        self.lines.put(None)  # end of output: the engine died

    def send(self, line: str) -> None:
        """Write a line to the engine."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError) as exc:
            raise EngineFailure(f"crashed (cannot write to it: {exc})") from exc

    def expect(self, heads: tuple[str, ...], timeout: float, what: str) -> str:
        """The first line starting with one of `heads`, within `timeout` seconds."""
        end = self.clock.now() + timeout
        while True:
            left = end - self.clock.now()
            if left <= 0:
                raise EngineFailure(f"hung: no answer to {what} within {timeout:.1f} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if isinstance(line, EngineFailure):
                raise line
            if line is None:
                code = self.proc.poll()
                raise EngineFailure(f"crashed (exit status {code}) while answering {what}")
            if line.split(" ", 1)[0] in heads:
                return line

    def choose(self, position: Position, budget: MoveBudget = ANY) -> Hint:
        """Send the position (by its line of actions) and `go movetime`, wait for the answer."""
        if budget.line is None:
            raise ValueError("an external engine needs the actions that led to the position")
        seconds = self.movetime if budget.movetime is None else budget.movetime
        moves = (" moves " + " ".join(budget.line)) if budget.line else ""
        self.send(f"position startpos{moves}")
        self.send(f"go movetime {max(1, round(seconds * 1000))}")
        line = self.expect(("bestmove", "bestopening"), 2 * seconds + 1.0, "go")
        parts = line.split()
        if len(parts) != 2:
            raise EngineFailure(f"answered {line!r}")
        text = parts[1]
        try:
            if position.phase == "opening":
                return Hint(None, parse_opening(text), 0.0, (text,), 0, 0, False, "")
            return Hint(parse_pit(text), None, 0.0, (text,), 0, 0, False, "")
        except (KiothiError, ValueError) as exc:
            raise EngineFailure(f"played an illegal action {text!r}: {exc}") from exc

    def close(self) -> None:
        """Ask the engine to quit, then end its process group: the engine if it did not
        quit within a second, and whatever it started (idempotent)."""
        if self.proc.poll() is None:
            with contextlib.suppress(EngineFailure):
                self.send("quit")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(1.0)
        if self._ended:
            return
        self._ended = True
        # The group outlives its leader while a member lives (its id stays taken till then).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
