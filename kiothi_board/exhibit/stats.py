"""Statistics for curators, by local day (L3, pure): what the store holds, tallied.

Two sources, both in the game store so a power cut loses nothing:

- **the games themselves** (`list_games` summaries): started, finished, abandoned, the
  durations, the results by mode and level, the games per hour. These are never counted
  twice: they are a tally of the stored games, so they cannot disagree with them.
- **counters** (`CountStore.add_counts`, one small write per event): presses per pit,
  wrong presses, hints, errors, restarts, input faults. Nothing else records these.

`tally` joins them into one `DayStats` per day; `to_csv` writes the same figures as the
`stats` API command, one row per day.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kiothi_board.ai.levels import stored_level
from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.rules import pit_name
from kiothi_board.store.base import CountStore, GameStore

__all__ = [
    "COUNTERS",
    "DURATION_BINS",
    "PRESS_KEYS",
    "DayStats",
    "GameRow",
    "game_row",
    "outcome",
    "stored_games",
    "stored_totals",
    "tally",
    "to_csv",
    "totals",
]

PRESS_KEYS: tuple[str, ...] = tuple(f"press.{pit_name(p)}" for p in range(20))
"""Counter keys for presses per pit (wear), `press.S1` … `press.N10`."""

COUNTERS: tuple[str, ...] = (
    "wrong",
    "hints",
    "hints_offered",
    "errors",
    "restarts",
    "input_faults",
    "link_down",
)
"""The other counters kept per day."""

DURATION_BINS: tuple[int, ...] = (120, 300, 600, 900, 1200, 1800)
"""Upper bounds (seconds) of the duration histogram's bins; the last bin is open."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One stored game, as much as statistics need of it."""

    id: int
    status: str  # current, finished, abandoned
    mode: str
    level: str
    humans: str
    started: float
    finished: float | None
    winner: str | None
    end: str | None


def _level_of(meta: Mapping[str, Any]) -> str:
    """The game's level by today's numbering; as stored when this build cannot read it."""
    if "level" not in meta:
        return "?"
    try:
        return str(stored_level(meta["level"], meta.get("ladder", 1)).to_json())
    except (TypeError, ValueError):
        return str(meta["level"])


def game_row(summary: Mapping[str, Any]) -> GameRow:
    """A `list_games` summary as a row (unknown meta fields read as empty)."""
    meta = summary.get("meta") or {}
    result = summary.get("result") or {}
    end = result.get("end") if isinstance(result, dict) else None
    status = str(summary.get("status"))
    if end == "abandoned":
        status = "abandoned"  # an abandoned game closed with its record (RULES.md R13)
    return GameRow(
        id=int(summary["id"]),
        status=status,
        mode=str(meta.get("mode", "?")),
        level=_level_of(meta),
        humans="".join(meta.get("humans", [])),
        started=float(summary["started"]),
        finished=None if summary.get("finished") is None else float(summary["finished"]),
        winner=result.get("winner") if isinstance(result, dict) else None,
        end=end,
    )


def stored_games(store: GameStore, since: float = 0.0, page: int = 200) -> list[GameRow]:
    """The store's games started at or after epoch `since`, oldest first (paged, newest
    pages first, stopping at the first older game)."""
    out: list[GameRow] = []
    offset = 0
    while True:
        batch = store.list_games(page, offset)
        for summary in batch:
            row = game_row(summary)
            if row.started < since:
                return out[::-1]
            out.append(row)
        if len(batch) < page:
            return out[::-1]
        offset += page


def stored_totals(store: GameStore) -> tuple[dict[str, int], dict[str, int]]:
    """Every stored game counted (started, finished, abandoned) and every counter summed."""
    games = {"started": 0, "finished": 0, "abandoned": 0}
    for row in stored_games(store):
        games["started"] += 1
        how = outcome(row)
        if how == "abandoned":
            games["abandoned"] += 1
        elif how != "playing":
            games["finished"] += 1
    counts: dict[str, int] = {}
    if isinstance(store, CountStore):
        for day in store.get_counts("0000-01-01", "9999-12-31").values():
            for key, n in day.items():
                counts[key] = counts.get(key, 0) + n
    return games, counts


def outcome(row: GameRow) -> str:
    """How a game ended, in curators' words: `visitor`, `ai`, `S`, `N`, `draw`, `abandoned`,
    or `playing` (still current)."""
    if row.status == "abandoned":
        return "abandoned"
    if row.status == "current":
        return "playing"
    if row.winner is None:
        return "draw"
    if row.mode == "ai":
        return "visitor" if row.winner in row.humans else "ai"
    return row.winner


def _bin(seconds: float) -> int:
    for i, bound in enumerate(DURATION_BINS):
        if seconds < bound:
            return i
    return len(DURATION_BINS)


@dataclass(slots=True)
class DayStats:
    """One local day's figures."""

    day: str
    started: int = 0
    finished: int = 0
    abandoned: int = 0
    playing: int = 0
    durations: list[float] = field(default_factory=list)
    hours: list[int] = field(default_factory=lambda: [0] * 24)
    results: dict[str, int] = field(default_factory=dict)  # "mode:level:outcome" -> games
    counts: dict[str, int] = field(default_factory=dict)

    def add_game(self, row: GameRow, hour: int) -> None:
        """Count one game started this day (at local `hour`)."""
        self.started += 1
        self.hours[hour] += 1
        how = outcome(row)
        if how == "abandoned":
            self.abandoned += 1
        elif how == "playing":
            self.playing += 1
        else:
            self.finished += 1
        if row.finished is not None:
            self.durations.append(max(0.0, row.finished - row.started))
        key = f"{row.mode}:{row.level}:{how}"
        self.results[key] = self.results.get(key, 0) + 1

    def histogram(self) -> list[int]:
        """Games per duration bin (see `DURATION_BINS`)."""
        out = [0] * (len(DURATION_BINS) + 1)
        for d in self.durations:
            out[_bin(d)] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        """The API's figures for this day."""
        d = self.durations
        return {
            "day": self.day,
            "games": {
                "started": self.started,
                "finished": self.finished,
                "abandoned": self.abandoned,
                "playing": self.playing,
            },
            "duration": {
                "mean": round(statistics.fmean(d), 1) if d else None,
                "median": round(statistics.median(d), 1) if d else None,
                "bins": list(DURATION_BINS),
                "histogram": self.histogram(),
            },
            "hours": list(self.hours),
            "results": dict(sorted(self.results.items())),
            "presses": {k.removeprefix("press."): self.counts.get(k, 0) for k in PRESS_KEYS},
            **{k: self.counts.get(k, 0) for k in COUNTERS},
        }


def tally(
    rows: Iterable[GameRow],
    counts: Mapping[str, Mapping[str, int]],
    schedule: Schedule,
    days: Sequence[str] | None = None,
) -> list[DayStats]:
    """Figures per local day, oldest first: games by their start day, counters by theirs.

    With `days`, exactly those days (empty ones included); else every day seen.
    """
    out: dict[str, DayStats] = {d: DayStats(d) for d in days or ()}
    for row in rows:
        local = schedule.local(row.started)
        day = local.date().isoformat()
        if days is not None and day not in out:
            continue
        out.setdefault(day, DayStats(day)).add_game(row, local.hour)
    for day, values in counts.items():
        if days is not None and day not in out:
            continue
        out.setdefault(day, DayStats(day)).counts.update(values)
    return [out[d] for d in sorted(out)]


def totals(per_day: Iterable[DayStats]) -> DayStats:
    """All days summed into one (its `day` is "total")."""
    total = DayStats("total")
    for d in per_day:
        total.started += d.started
        total.finished += d.finished
        total.abandoned += d.abandoned
        total.playing += d.playing
        total.durations.extend(d.durations)
        total.hours = [a + b for a, b in zip(total.hours, d.hours, strict=True)]
        for k, v in d.results.items():
            total.results[k] = total.results.get(k, 0) + v
        for k, v in d.counts.items():
            total.counts[k] = total.counts.get(k, 0) + v
    return total


def csv_header(per_day: Sequence[DayStats]) -> list[str]:
    """The CSV's columns: fixed figures, then a column per result key seen in the range."""
    results = sorted({k for d in per_day for k in d.results})
    return [
        "day",
        "games_started",
        "games_finished",
        "games_abandoned",
        "games_playing",
        "duration_mean_s",
        "duration_median_s",
        *COUNTERS,
        *[f"presses_{pit_name(p)}" for p in range(20)],
        *[f"games_hour_{h:02d}" for h in range(24)],
        *[f"duration_under_{b}s" for b in DURATION_BINS],
        f"duration_over_{DURATION_BINS[-1]}s",
        *[f"result_{k}" for k in results],
    ]


def to_csv(per_day: Sequence[DayStats]) -> str:
    """The figures as CSV text, one row per day (the `stats` API command's figures)."""
    header = csv_header(per_day)
    results = [h.removeprefix("result_") for h in header if h.startswith("result_")]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for d in per_day:
        j = d.to_json()
        writer.writerow(
            [
                d.day,
                d.started,
                d.finished,
                d.abandoned,
                d.playing,
                "" if j["duration"]["mean"] is None else j["duration"]["mean"],
                "" if j["duration"]["median"] is None else j["duration"]["median"],
                *[j[k] for k in COUNTERS],
                *[j["presses"][pit_name(p)] for p in range(20)],
                *d.hours,
                *d.histogram(),
                *[d.results.get(k, 0) for k in results],
            ]
        )
    return buf.getvalue()
