"""Helpers for the API tests: line clients over real transports, a ticking real controller."""

from __future__ import annotations

import functools
import json
import os
import queue
import select
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kiothi_board.board import Board

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "api" / "schemas"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
WAIT_S = 30.0
"""How long a client waits for a reply or an event (an upper bound a loaded machine never
reaches; tests that expect nothing wait briefly on their own)."""


class LineClient:
    """A JSON-lines peer over any byte pipe: a reader thread sorts replies and events."""

    def __init__(self, send: Callable[[bytes], None], recv: Callable[[], bytes]) -> None:
        self._send = send
        self._recv = recv
        self.replies: dict[Any, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.raw: list[dict[str, Any]] = []
        self.closed = threading.Event()
        self._cond = threading.Condition()
        self._next = 1
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buf = b""
        try:
            while True:
                data = self._recv()
                if not data:
                    break
                buf += data
                *lines, buf = buf.split(b"\n")
                with self._cond:
                    for line in lines:
                        msg = json.loads(line)
                        self.raw.append(msg)
                        if "event" in msg:
                            self.events.append(msg)
                        else:
                            self.replies[msg["id"]] = msg
                    self._cond.notify_all()
        except OSError:
            pass
        finally:
            with self._cond:
                self.closed.set()
                self._cond.notify_all()

    def send_line(self, line: bytes) -> None:
        """Send raw bytes (a newline is not added)."""
        self._send(line)

    def request(
        self, cmd: str, args: dict[str, Any] | None = None, timeout: float = WAIT_S
    ) -> dict[str, Any]:
        """Send a request and wait for its reply."""
        rid = f"req-{self._next}"  # not an id the fuzz lines use
        self._next += 1
        msg: dict[str, Any] = {"id": rid, "cmd": cmd}
        if args is not None:
            msg["args"] = args
        self._send(json.dumps(msg).encode() + b"\n")
        return self.wait_reply(rid, timeout)

    def wait_reply(self, rid: Any, timeout: float = WAIT_S) -> dict[str, Any]:
        """The reply with id `rid`."""
        with self._cond:
            if not self._cond.wait_for(
                lambda: rid in self.replies or self.closed.is_set(), timeout
            ):
                raise TimeoutError(f"no reply to {rid!r}")
            if rid not in self.replies:
                raise ConnectionError("closed before the reply")
            return self.replies.pop(rid)

    def wait_raw(self, count: int, timeout: float = WAIT_S) -> list[dict[str, Any]]:
        """Wait until `count` messages arrived in all."""
        with self._cond:
            ok = self._cond.wait_for(
                lambda: len(self.raw) >= count or self.closed.is_set(), timeout
            )
            if not ok:
                raise TimeoutError(f"{len(self.raw)} of {count} messages")
            return list(self.raw)

    def wait_event(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = WAIT_S
    ) -> dict[str, Any]:
        """The first event matching `pred` (already received or to come)."""
        with self._cond:
            found: list[dict[str, Any]] = []

            def check() -> bool:
                found[:] = [e for e in self.events if pred(e)][:1]
                return bool(found)

            if not self._cond.wait_for(check, timeout):
                raise TimeoutError("event not seen")
            return found[0]


def socket_client(sock: socket.socket) -> LineClient:
    """A LineClient on a connected socket."""
    return LineClient(sock.sendall, lambda: sock.recv(65536))


class PtyClient(LineClient):
    """A LineClient on a pseudo-terminal; `polls[0]` counts its reader's waits on it."""

    def __init__(
        self, send: Callable[[bytes], None], recv: Callable[[], bytes], polls: list[int]
    ) -> None:
        self.polls = polls
        super().__init__(send, recv)


def pty_client(master: int) -> PtyClient:
    """A LineClient on the master end of a pseudo-terminal.

    Its reader stops when the descriptor no longer is that terminal: once the test closes
    the pty, the same number may be handed to the next file opened (the next test's config,
    say), and a reader still polling it would steal that file's bytes.
    """
    polls = [0]
    st = os.fstat(master)
    identity = (st.st_dev, st.st_ino, st.st_rdev)

    def same() -> bool:
        try:
            now = os.fstat(master)
        except OSError:
            return False
        return (now.st_dev, now.st_ino, now.st_rdev) == identity

    def recv() -> bytes:
        while same():
            polls[0] += 1
            r, _, _ = select.select([master], [], [], 0.2)
            if r and same():
                return os.read(master, 65536)
        return b""

    def send(data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(master, view)
            view = view[n:]

    return PtyClient(send, recv, polls)


class Ticker:
    """Ticks a controller from a thread, as the daemon's loop does."""

    def __init__(self, controller: Board, hz: float = 100.0) -> None:
        self._ctl = controller
        self._stop = threading.Event()
        self._period = 1.0 / hz
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            self._ctl.tick()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)


@functools.cache
def _registry() -> Any:
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry()
    for path in SCHEMAS.glob("*.json"):
        doc = json.loads(path.read_text())
        registry = registry.with_resource(path.name, Resource.from_contents(doc))
    return registry.crawl()  # crawled once: an uncrawled registry re-walks on every $ref


@functools.cache
def validator(name: str) -> Any:
    """A jsonschema validator for docs/api/schemas/NAME.json (refs resolved in the folder)."""
    import jsonschema

    schema = json.loads((SCHEMAS / f"{name}.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, registry=_registry())


def drain(q: queue.Queue[Any]) -> list[Any]:
    """Everything in a queue now."""
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out
