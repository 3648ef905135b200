"""Health of an unattended board: loop and frame rates, CPU temperature, disk (L3).

`RateMeter` measures a loop's rate and jitter from the times it is given (the injected
clock). `SystemProbe` reads the machine: `/sys/class/thermal`, `vcgencmd get_throttled`
and free disk, all optional — a laptop has no vcgencmd and a container may have no
thermal zone; absent is reported as None, never as an error. Its file root and command
runner are injected so tests give it a fake /sys.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["RateMeter", "SystemProbe", "ThrottleState", "parse_throttled"]

Runner = Callable[[Sequence[str]], str | None]


class RateMeter:
    """Rate (per second) and jitter (standard deviation of the interval, ms) of recent marks."""

    def __init__(self, window: int = 256) -> None:
        """Keep the last `window` intervals."""
        self._intervals: deque[float] = deque(maxlen=window)
        self._last: float | None = None
        self.count = 0

    def mark(self, now: float) -> None:
        """One pass of the loop (or one frame) at monotonic `now`."""
        if self._last is not None and now > self._last:
            self._intervals.append(now - self._last)
        self._last = now
        self.count += 1

    def rate(self) -> float | None:
        """Marks per second over the window (None before two marks)."""
        if not self._intervals:
            return None
        mean = statistics.fmean(self._intervals)
        return 1.0 / mean if mean > 0 else None

    def jitter_ms(self) -> float | None:
        """How much the interval varies, in milliseconds."""
        if len(self._intervals) < 2:
            return None
        return statistics.pstdev(self._intervals) * 1000.0

    def to_json(self) -> dict[str, Any]:
        """Rate and jitter, rounded for the API."""
        rate, jitter = self.rate(), self.jitter_ms()
        return {
            "rate": None if rate is None else round(rate, 2),
            "jitter_ms": None if jitter is None else round(jitter, 3),
            "count": self.count,
        }


@dataclass(frozen=True, slots=True)
class ThrottleState:
    """The Raspberry Pi firmware's throttling flags (`vcgencmd get_throttled`)."""

    raw: int

    @property
    def under_voltage(self) -> bool:
        """Under-voltage now."""
        return bool(self.raw & 0x1)

    @property
    def throttled(self) -> bool:
        """Throttled now (bit 2) or its frequency capped (bit 1)."""
        return bool(self.raw & 0x6)

    @property
    def ever(self) -> bool:
        """Any of it happened since boot (bits 16–19)."""
        return bool(self.raw & 0xF0000)


def parse_throttled(text: str) -> ThrottleState | None:
    """`throttled=0x50005` -> its flags; anything else -> None."""
    _, _, value = text.strip().partition("=")
    try:
        return ThrottleState(int(value, 16))
    except ValueError:
        return None


def _run(args: Sequence[str]) -> str | None:
    if shutil.which(args[0]) is None:
        return None
    try:
        proc = subprocess.run(list(args), capture_output=True, text=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


class SystemProbe:
    """Reads CPU temperature, throttling and free disk; every reading may be None."""

    def __init__(self, *, root: Path = Path("/"), runner: Runner = _run) -> None:
        """`root` is where `sys/class/thermal` is looked for; `runner` runs vcgencmd."""
        self._root = root
        self._runner = runner

    def cpu_temperature(self) -> float | None:
        """Degrees Celsius of the CPU's thermal zone (the first zone typed cpu/soc, else the
        first zone), or None when the machine has none."""
        base = self._root / "sys" / "class" / "thermal"
        zones = sorted(base.glob("thermal_zone*")) if base.is_dir() else []
        chosen = None
        for zone in zones:
            kind = _read(zone / "type") or ""
            if any(word in kind.lower() for word in ("cpu", "soc", "x86_pkg")):
                chosen = zone
                break
        chosen = chosen or (zones[0] if zones else None)
        text = None if chosen is None else _read(chosen / "temp")
        try:
            return None if text is None else int(text) / 1000.0
        except ValueError:
            return None

    def throttling(self) -> ThrottleState | None:
        """The firmware's flags where `vcgencmd` exists (a Raspberry Pi), else None."""
        out = self._runner(["vcgencmd", "get_throttled"])
        return None if out is None else parse_throttled(out)

    @staticmethod
    def free_disk(path: Path) -> int | None:
        """Free bytes on the file system holding `path` (None if it cannot be read)."""
        try:
            return shutil.disk_usage(path).free
        except OSError:
            return None

    def to_json(self, state_dir: Path) -> dict[str, Any]:
        """Temperature, throttling and free disk for the `health` event."""
        throttle = self.throttling()
        return {
            "cpu_temperature": self.cpu_temperature(),
            "throttled": None
            if throttle is None
            else {
                "raw": hex(throttle.raw),
                "now": throttle.throttled,
                "under_voltage": throttle.under_voltage,
                "since_boot": throttle.ever,
            },
            "free_disk": self.free_disk(state_dir),
        }


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None
