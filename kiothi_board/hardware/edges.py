"""The thread hand-off every real pit input shares: queue raw edges, debounce them on `poll()`.

Driver threads (gpiozero's callbacks, the co-processor's reader) only append
`(slot, level, time)` — stamped with the injected clock — to a queue under a lock. `poll()`
drains the queue, runs the debouncers up to `clock.now()` and calls the handler, so the
handler always runs in the thread that polls, never in a driver thread.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Self

from kiothi_board.clock import Clock
from kiothi_board.errors import ConfigError, LinkError
from kiothi_board.hardware.debounce import DebouncedInputs
from kiothi_board.hardware.frames import PITS
from kiothi_board.hardware.protocols import EventHandler, InputEvent

__all__ = ["QueuedPitInput"]


class QueuedPitInput:
    """Base of `GpioPitInput` and `LinkPitInput`: the edge queue, debouncers and `PitInput` calls.

    Subclasses call `_queue(changes)` from their driver thread and `_close_queue()` from
    their `close()`.
    """

    def __init__(
        self,
        *,
        controls: int,
        clock: Clock,
        debounce: float,
        hold_time: float | Sequence[float],
        stuck_time: float | None,
        sensor: bool,
        notify: Callable[[], None] | None,
    ) -> None:
        """Debounce 20 pits and `controls` buttons; ConfigError for bad timings."""
        holds = (hold_time,) if isinstance(hold_time, int | float) else tuple(hold_time)
        try:
            self._bank = DebouncedInputs(
                PITS,
                controls,
                stable=debounce,
                hold_times=holds,
                stuck_time=stuck_time,
                sensor=sensor,
            )
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        self._clock = clock
        self._notify = notify
        self._lock = threading.Lock()
        self._poll_lock = threading.RLock()
        self._edges: deque[tuple[int, bool, float]] = deque()
        self._handler: EventHandler | None = None
        self._closed = False

    def _queue(self, changes: Iterable[tuple[int, bool]]) -> bool:
        """Queue raw level changes stamped now (driver thread); False once closed."""
        t = self._clock.now()
        with self._lock:
            if self._closed:
                return False
            queued = False
            for slot, level in changes:
                self._edges.append((slot, level, t))
                queued = True
        if queued and self._notify is not None:
            self._notify()
        return True

    def _close_queue(self) -> bool:
        """Stop queueing and drop what is queued; False if already closed."""
        with self._lock:
            if self._closed:
                return False
            self._closed = True
            self._edges.clear()
            return True

    # -- PitInput ---------------------------------------------------------------------------

    def start(self, handler: EventHandler) -> None:
        """Deliver events to `handler` (from the thread that calls `poll()`)."""
        with self._lock:
            if self._closed:
                raise LinkError(f"{self!r}: start() after close()")
            if self._handler is not None:
                raise RuntimeError(f"{type(self).__name__}.start() called twice")
            self._handler = handler

    def poll(self) -> None:
        """Feed queued raw edges to the debouncers, run their timers to now, deliver events."""
        with self._poll_lock:
            with self._lock:
                if self._closed or self._handler is None:
                    return
                edges = list(self._edges)
                self._edges.clear()
                handler = self._handler
            events: list[InputEvent] = []
            for slot, level, t in edges:
                events.extend(self._bank.feed(slot, level, t))
            events.extend(self._bank.advance(self._clock.now()))
            events.sort(key=lambda e: e.time)
            for event in events:
                handler(event)

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._closed

    def close(self) -> None:
        """Stop delivering events; subclasses also release their hardware. Idempotent."""
        self._close_queue()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
