"""Clocks: the system's monotonic clock and a hand-advanced fake for tests and simulation."""

from __future__ import annotations

import threading
import time

__all__ = ["FakeClock", "SystemClock"]


class SystemClock:
    """The real monotonic clock (`time.monotonic()`), immune to wall-clock jumps."""

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    def __repr__(self) -> str:
        return "SystemClock()"


class FakeClock:
    """A clock that only moves when told to; thread-safe so driver threads may read it."""

    def __init__(self, start: float = 0.0) -> None:
        """Start at `start` seconds."""
        self._t = float(start)
        self._lock = threading.Lock()

    def now(self) -> float:
        """The current fake time in seconds."""
        with self._lock:
            return self._t

    def advance(self, seconds: float) -> float:
        """Move time forward by `seconds` (not negative: a monotonic clock never goes back)."""
        if seconds < 0:
            raise ValueError(f"FakeClock.advance: seconds must be >= 0, got {seconds!r}")
        with self._lock:
            self._t += seconds
            return self._t

    def set(self, t: float) -> None:
        """Jump to absolute time `t` (not earlier than now)."""
        with self._lock:
            if t < self._t:
                raise ValueError(f"FakeClock.set: {t!r} is earlier than now ({self._t!r})")
            self._t = float(t)

    def __repr__(self) -> str:
        return f"FakeClock({self.now()!r})"
