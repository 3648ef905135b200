"""When the board is open, quiet and how bright: a season's timetable in local time (L3, pure).

The daemon gives the schedule the configured strings; the exhibit asks it, with the
injected clock's `wall()`, what holds at that instant. Nothing here reads a clock.

Formats (all in the configured time zone, via `zoneinfo`):

- opening hours: `"mon-fri 10:00-18:00"`, `"sat,sun 10:00-19:00"`, `"daily 09:30-17:00"`;
  an empty list means always open. An interval whose end is before its start runs past
  midnight (`"fri 20:00-01:00"`: Friday 20:00 to Saturday 01:00).
- closed days: ISO dates, `"2026-12-25"`.
- quiet hours: `"12:00-13:30"` or with days, as opening hours.
- brightness: `"08:00=0.3"` — from that time of day on, until the next entry (the last
  entry of the day carries over past midnight).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from kiothi_board.errors import ConfigError

__all__ = ["Interval", "Moment", "Schedule", "day_of"]

_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_TIME = re.compile(r"^([01]?\d|2[0-4]):([0-5]\d)$")


def _minutes(text: str, what: str) -> int:
    m = _TIME.match(text.strip())
    if m is None or (int(m.group(1)) == 24 and m.group(2) != "00"):
        raise ConfigError(f"{what}: {text!r} is not a time of day like '09:30'")
    return int(m.group(1)) * 60 + int(m.group(2))


def _days(text: str, what: str) -> frozenset[int]:
    text = text.strip().lower()
    if text in ("daily", "every", "*"):
        return frozenset(range(7))
    out: set[int] = set()
    for part in text.split(","):
        ends = part.strip().split("-")
        if len(ends) > 2 or not all(e in _DAYS for e in ends):
            raise ConfigError(
                f"{what}: {part.strip()!r} is not a day or range of days like 'mon-fri'"
            )
        first, last = _DAYS.index(ends[0]), _DAYS.index(ends[-1])
        day = first
        out.add(day)
        while day != last:
            day = (day + 1) % 7
            out.add(day)
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Interval:
    """A daily interval in minutes after local midnight, on some weekdays (0 = Monday)."""

    days: frozenset[int]
    start: int
    end: int

    @classmethod
    def parse(cls, text: str, what: str) -> Interval:
        """`"[days ]HH:MM-HH:MM"`; without days, every day."""
        parts = text.split()
        if len(parts) == 1:
            days, span = frozenset(range(7)), parts[0]
        elif len(parts) == 2:
            days, span = _days(parts[0], what), parts[1]
        else:
            raise ConfigError(f"{what}: {text!r} is not like 'mon-fri 10:00-18:00'")
        ends = span.split("-")
        if len(ends) != 2:
            raise ConfigError(f"{what}: {text!r} needs a span like '10:00-18:00'")
        start, end = _minutes(ends[0], what), _minutes(ends[1], what)
        if start == end:
            raise ConfigError(f"{what}: {text!r} is empty (start = end)")
        return cls(days, start, end)

    def contains(self, weekday: int, minute: int) -> bool:
        """Whether local `minute` of a day with `weekday` lies inside."""
        if self.start < self.end:
            return weekday in self.days and self.start <= minute < self.end
        # Past midnight: the evening part today, the small hours belong to yesterday's entry.
        return (weekday in self.days and minute >= self.start) or (
            (weekday - 1) % 7 in self.days and minute < self.end
        )


@dataclass(frozen=True, slots=True)
class Moment:
    """What the schedule says at one instant."""

    open: bool
    quiet: bool
    brightness: float
    day: str  # the local date, ISO (statistics are kept by this day)
    hour: int  # the local hour 0…23


class Schedule:
    """Opening hours, closed days, quiet hours and a brightness timetable in one time zone."""

    def __init__(
        self,
        *,
        timezone: str = "UTC",
        opening: Sequence[str] = (),
        closed_days: Sequence[str] = (),
        quiet: Sequence[str] = (),
        brightness: Sequence[str] = (),
        default_brightness: float = 1.0,
    ) -> None:
        """Parse the configured strings; a bad one is a `ConfigError` naming it."""
        try:
            self.zone = ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ConfigError(f"exhibit.timezone: unknown time zone {timezone!r}") from exc
        self.timezone = timezone
        self.opening = tuple(Interval.parse(s, "exhibit.opening_hours") for s in opening)
        self.quiet = tuple(Interval.parse(s, "exhibit.quiet_hours") for s in quiet)
        self.closed_days = frozenset(self._date(s) for s in closed_days)
        self.default_brightness = float(default_brightness)
        self.brightness = self._levels(brightness)

    @staticmethod
    def _date(text: str) -> dt.date:
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            raise ConfigError(
                f"exhibit.closed_days: {text!r} is not a date like '2026-12-25'"
            ) from None

    @staticmethod
    def _levels(entries: Sequence[str]) -> tuple[tuple[int, float], ...]:
        out: list[tuple[int, float]] = []
        for entry in entries:
            when, _, level = entry.partition("=")
            try:
                value = float(level)
            except ValueError:
                value = -1.0
            if not 0.0 <= value <= 1.0:
                raise ConfigError(
                    f"exhibit.brightness: {entry!r} is not like '08:00=0.3' (a level 0…1)"
                )
            out.append((_minutes(when, "exhibit.brightness"), value))
        return tuple(sorted(out))

    def local(self, wall: float) -> dt.datetime:
        """The local date and time at epoch seconds `wall`."""
        return dt.datetime.fromtimestamp(wall, self.zone)

    def at(self, wall: float) -> Moment:
        """Open, quiet, brightness and the local day at epoch seconds `wall`."""
        t = self.local(wall)
        weekday, minute = t.weekday(), t.hour * 60 + t.minute
        is_open = t.date() not in self.closed_days and (
            not self.opening or any(i.contains(weekday, minute) for i in self.opening)
        )
        quiet = any(i.contains(weekday, minute) for i in self.quiet)
        level = self.default_brightness
        if self.brightness:
            level = self.brightness[-1][1]  # carried over from yesterday's last entry
            for start, value in self.brightness:
                if start <= minute:
                    level = value
        return Moment(is_open, quiet, level, t.date().isoformat(), t.hour)

    def __repr__(self) -> str:
        return f"Schedule(timezone={self.timezone!r}, opening={len(self.opening)} intervals)"


def day_of(wall: float, zone: dt.tzinfo) -> str:
    """The local ISO date of epoch seconds `wall` in `zone`."""
    return dt.datetime.fromtimestamp(wall, zone).date().isoformat()
