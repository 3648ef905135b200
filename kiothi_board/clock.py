"""The one clock protocol, the system's clocks and a hand-advanced fake.

Every layer is given a `Clock` (the rules excepted: they never read one), so it lives in a
room of its own that imports nothing of the project. `SystemClock` is the only place that
reads the system clock; everything else asks the clock it was given.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol, runtime_checkable

__all__ = ["FAKE_EPOCH", "Clock", "FakeClock", "ProcessClock", "SystemClock"]

FAKE_EPOCH = 1_767_225_600.0
"""The fake clock's default wall time at start: 2026-01-01T00:00:00Z."""


@runtime_checkable
class Clock(Protocol):
    """The one clock everything is given: monotonic time for intervals and deadlines, wall
    time for timestamps. The fake clock moves both by hand in tests."""

    def now(self) -> float:
        """Seconds on a monotonic clock (for intervals: debounce, holds, deadlines, rates)."""
        ...

    def wall(self) -> float:
        """Wall-clock time, UNIX epoch seconds (for timestamps people read or store)."""
        ...


class SystemClock:
    """The real clocks: `time.monotonic()` (immune to wall-clock jumps) and `time.time()`."""

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    def wall(self) -> float:
        """UNIX epoch seconds."""
        return time.time()

    def __repr__(self) -> str:
        return "SystemClock()"


class ProcessClock:
    """This process's CPU time as the monotonic clock (`time.process_time()`), wall time as
    usual. For matches and benchmarks only: a search given this clock gets the same effort
    on a loaded machine as on an idle one (a clock level's strength does not fall with the
    load), at the price of taking longer in wall time. Never for a board: a visitor waits in
    wall time."""

    def now(self) -> float:
        """CPU seconds this process has used (all its threads)."""
        return time.process_time()

    def wall(self) -> float:
        """UNIX epoch seconds."""
        return time.time()

    def __repr__(self) -> str:
        return "ProcessClock()"


class FakeClock:
    """A clock that only moves when told to; thread-safe so driver threads may read it.

    `wall()` is `wall_start` plus the fake time elapsed since the start, so both clocks
    move together.
    """

    def __init__(self, start: float = 0.0, *, wall_start: float = FAKE_EPOCH) -> None:
        """Start at `start` monotonic seconds and `wall_start` epoch seconds."""
        self._start = float(start)
        self._t = float(start)
        self._wall_start = float(wall_start)
        self._lock = threading.Lock()

    def now(self) -> float:
        """The current fake time in seconds."""
        with self._lock:
            return self._t

    def wall(self) -> float:
        """The fake wall time: `wall_start` + elapsed fake seconds."""
        with self._lock:
            return self._wall_start + (self._t - self._start)

    def advance(self, seconds: float) -> float:
        """Move time forward by `seconds` (not negative: a monotonic clock never goes back)."""
        if seconds < 0:
            raise ValueError(f"FakeClock.advance: seconds must be >= 0, got {seconds!r}")
        with self._lock:
            self._t += seconds
            return self._t

    def step_wall(self, seconds: float) -> None:
        """Step the wall clock alone by `seconds` (either way), as NTP or an operator does;
        the monotonic clock does not move."""
        with self._lock:
            self._wall_start += seconds

    def set(self, t: float) -> None:
        """Jump to absolute time `t` (not earlier than now)."""
        with self._lock:
            if t < self._t:
                raise ValueError(f"FakeClock.set: {t!r} is earlier than now ({self._t!r})")
            self._t = float(t)

    def __repr__(self) -> str:
        if self._wall_start == FAKE_EPOCH:
            return f"FakeClock({self.now()!r})"
        return f"FakeClock({self.now()!r}, wall_start={self._wall_start!r})"
