"""Per-client memory budgets, in bytes: the outbox, the transport's buffer, one reply.

A client that does not read cannot make the board hold more than its budget: the lines
waiting in its outbox plus what its transport has not yet written (`pending()`) are counted,
and when they pass `byte_limit` the client is cut off (`on_over(reason)`: the transport
disconnects it, the serial port starts a fresh session) and its backlog is freed at once.
Falling `limit` *lines* behind is milder: the backlog is replaced by one `overflow` event
and the client stays connected (it should resync with `state`).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from kiothi_board.api.protocol import encode

__all__ = ["DEFAULT_BUDGET", "DEFAULT_MAX_REPLY", "Outbox"]

DEFAULT_BUDGET = 1024 * 1024
"""Bytes a client may have waiting for it (outbox + transport buffer)."""

DEFAULT_MAX_REPLY = 256 * 1024
"""The largest single reply; a bigger one is refused (ask for a smaller page)."""


class Outbox:
    """A client's bounded queue of encoded lines, filled from any thread.

    `wake` is called (outside the lock) when the queue goes from empty to non-empty, so
    an asyncio writer can be woken with `call_soon_threadsafe` and a thread with an Event.
    `pending` reports bytes already handed to the transport but not yet sent.
    """

    def __init__(
        self,
        limit: int,
        wake: Callable[[], None],
        *,
        byte_limit: int = DEFAULT_BUDGET,
        on_over: Callable[[str], None] | None = None,
        pending: Callable[[], int] | None = None,
    ) -> None:
        """Hold up to `limit` lines and `byte_limit` bytes."""
        self._limit = limit
        self._wake = wake
        self.byte_limit = byte_limit
        self.on_over = on_over
        self.pending = pending
        self._lock = threading.Lock()
        self._lines: deque[bytes] = deque()
        self._bytes = 0
        self.overflowed = False
        self.dropped = 0
        self.over: str | None = None

    def put(self, line: bytes) -> None:
        """Queue a line (never blocks); over the byte budget the client is cut off."""
        reason = None
        with self._lock:
            if self.over is not None:
                return  # cut off: the transport is closing it
            was_empty = not self._lines
            pending = self.pending() if self.pending is not None else 0
            if self._bytes + len(line) + pending > self.byte_limit:
                reason = (
                    f"over its budget of {self.byte_limit} bytes "
                    f"({self._bytes + pending} waiting, not read)"
                )
                self.over = reason
                self.dropped += len(self._lines)
                self._lines.clear()
                self._bytes = 0
            elif len(self._lines) >= self._limit:
                self.dropped += len(self._lines)
                self._lines.clear()
                self.overflowed = True
                overflow = encode({"event": "overflow", "dropped": self.dropped})
                self._lines.append(overflow)
                self._bytes = len(overflow)
            else:
                self._lines.append(line)
                self._bytes += len(line)
        if reason is not None:
            if self.on_over is not None:
                self.on_over(reason)
            return
        if was_empty:
            self._wake()

    def cut_off(self, reason: str) -> bool:
        """Cut the client off now (`on_over(reason)`), as over its budget; False when its
        door cannot (no `on_over`: an MQTT or Redis session is kept)."""
        if self.on_over is None:
            return False
        with self._lock:
            if self.over is not None:
                return True
            self.over = reason
            self.dropped += len(self._lines)
            self._lines.clear()
            self._bytes = 0
        self.on_over(reason)
        return True

    def take(self) -> list[bytes]:
        """Everything queued, oldest first."""
        with self._lock:
            lines = list(self._lines)
            self._lines.clear()
            self._bytes = 0
            return lines

    def reset(self) -> None:
        """Forget the cut-off (a serial port's fresh session)."""
        with self._lock:
            self.over = None
            self._lines.clear()
            self._bytes = 0

    @property
    def nbytes(self) -> int:
        """Bytes queued."""
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._lines)
