"""Opening hours, quiet hours, brightness timetable and time zones."""

from __future__ import annotations

import datetime as dt

import pytest

from kiothi_board.errors import ConfigError
from kiothi_board.exhibit.schedule import Schedule

PARIS = "Europe/Paris"


def wall(text: str, zone: str = PARIS) -> float:
    from zoneinfo import ZoneInfo

    return dt.datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone)).timestamp()


def museum() -> Schedule:
    return Schedule(
        timezone=PARIS,
        opening=["tue-fri 10:00-18:00", "sat,sun 10:00-19:00", "fri 20:00-01:00"],
        closed_days=["2026-12-25"],
        quiet=["12:00-13:30"],
        brightness=["08:00=0.4", "17:00=0.2"],
    )


@pytest.mark.parametrize(
    ("local", "is_open"),
    [
        ("2026-05-04T11:00", False),  # Monday: closed all day
        ("2026-05-05T09:59", False),  # Tuesday, before opening
        ("2026-05-05T10:00", True),
        ("2026-05-05T17:59", True),
        ("2026-05-05T18:00", False),
        ("2026-05-09T18:30", True),  # Saturday: open to 19:00
        ("2026-05-08T23:30", True),  # Friday late opening…
        ("2026-05-09T00:30", True),  # …runs past midnight into Saturday
        ("2026-05-10T00:30", False),  # but Saturday night has none
        ("2026-12-25T11:00", False),  # a Friday, closed day
    ],
)
def test_opening_hours_in_local_time(local: str, is_open: bool) -> None:
    assert museum().at(wall(local)).open is is_open


def test_quiet_hours_brightness_and_day() -> None:
    s = museum()
    noon = s.at(wall("2026-05-05T12:15"))
    assert noon.quiet and noon.brightness == 0.4 and noon.day == "2026-05-05" and noon.hour == 12
    assert not s.at(wall("2026-05-05T13:30")).quiet
    assert s.at(wall("2026-05-05T17:30")).brightness == 0.2
    assert s.at(wall("2026-05-06T06:00")).brightness == 0.2, "yesterday's last level carries on"


def test_time_zone_decides_the_day_and_dst() -> None:
    s = Schedule(timezone=PARIS, opening=["daily 10:00-18:00"])
    # 23:30 UTC on 5 May is already 6 May in Paris (summer time, UTC+2).
    utc = dt.datetime(2026, 5, 5, 23, 30, tzinfo=dt.UTC).timestamp()
    assert s.at(utc).day == "2026-05-06"
    # 09:30 UTC is 10:30 in summer (open) and 10:30 in winter at UTC+1 is 09:30 UTC.
    assert s.at(dt.datetime(2026, 7, 1, 8, 30, tzinfo=dt.UTC).timestamp()).open
    assert not s.at(dt.datetime(2026, 1, 7, 8, 30, tzinfo=dt.UTC).timestamp()).open


def test_no_opening_hours_means_always_open() -> None:
    assert Schedule().at(0.0).open


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"timezone": "Mars/Olympus"}, "exhibit.timezone"),
        ({"opening": ["mon-fry 10:00-18:00"]}, "'mon-fry'"),
        ({"opening": ["10:00-25:00"]}, "'25:00'"),
        ({"opening": ["10:00"]}, "span"),
        ({"opening": ["mon 10:00-10:00"]}, "empty"),
        ({"quiet": ["a b c"]}, "exhibit.quiet_hours"),
        ({"closed_days": ["25/12/2026"]}, "exhibit.closed_days"),
        ({"brightness": ["08:00=2"]}, "exhibit.brightness"),
        ({"brightness": ["8h=0.3"]}, "exhibit.brightness"),
    ],
)
def test_bad_schedule_strings_are_named(kwargs: dict, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        Schedule(**kwargs)
