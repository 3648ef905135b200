"""Curators' statistics: a tally of the stored games and the counters, and its CSV."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.exhibit.stats import game_row, stored_games, tally, to_csv, totals
from kiothi_board.store.sqlite import SqliteStore

DAY = 1_780_000_000.0  # 2026-05-28 20:26:40 UTC


class Wall:
    def __init__(self) -> None:
        self.t = DAY

    def now(self) -> float:
        return self.t - DAY

    def wall(self) -> float:
        return self.t


def record(winner: str | None, end: str = "no-moves") -> dict:
    result = {"winner": winner, "captured": [30, 30] if winner is None else [40, 20], "end": end}
    return {"format": "kiothi-game/1", "variant": {}, "opening": [], "moves": [], "result": result}


def test_tally_counts_games_by_local_day_mode_level_and_outcome(tmp_path: Path) -> None:
    clock = Wall()
    store = SqliteStore(tmp_path / "games.sqlite3", clock=clock)
    plan = [  # (start offset s, duration s, meta, how it ends)
        (0, 400, {"mode": "ai", "humans": ["S"], "level": 1}, record("S")),
        (1000, 200, {"mode": "ai", "humans": ["N"], "level": 1}, record("S")),
        (2000, 700, {"mode": "two", "humans": ["S", "N"], "level": 2}, record(None)),
        (3000, 90, {"mode": "ai", "humans": ["S"], "level": 1}, None),  # replaced: abandoned
        (4000, 50, {"mode": "ai", "humans": ["S"], "level": 1}, record(None, "abandoned")),
        (13000, 0, {"mode": "ai", "humans": ["S"], "level": 1}, "current"),  # next day, playing
    ]
    for start, duration, meta, rec in plan:
        clock.t = DAY + start
        gid = store.begin_game(meta)
        clock.t += duration
        if isinstance(rec, dict):
            store.finish_game(gid, rec)
    store.add_counts("2026-05-28", {"press.S1": 7, "wrong": 2, "hints": 1})
    store.add_counts("2026-05-29", {"press.N10": 3, "restarts": 1})
    schedule = Schedule(timezone="Europe/Paris")  # 20:26 UTC is 22:26 in Paris
    rows = stored_games(store, page=2)
    assert [r.id for r in rows] == [1, 2, 3, 4, 5, 6]
    assert [r.id for r in stored_games(store, since=DAY + 2500, page=2)] == [4, 5, 6]
    days = tally(rows, store.get_counts("2026-05-01", "2026-05-31"), schedule)
    first, second = (d.to_json() for d in days)
    assert first["day"] == "2026-05-28" and second["day"] == "2026-05-29"
    assert first["games"] == {"started": 5, "finished": 3, "abandoned": 2, "playing": 0}
    assert first["results"] == {
        "ai:1:abandoned": 2, "ai:1:ai": 1, "ai:1:visitor": 1, "two:2:draw": 1,
    }  # fmt: skip
    assert first["hours"][22] == 2 and first["hours"][23] == 3
    assert first["duration"]["histogram"] == [1, 1, 1, 1, 0, 0, 0]  # the replaced one has none
    assert first["duration"]["median"] == 300.0
    assert first["presses"]["S1"] == 7 and first["wrong"] == 2 and first["hints"] == 1
    assert second["games"]["playing"] == 1 and second["restarts"] == 1
    assert totals(days).to_json()["games"]["started"] == 6
    only = tally(rows, {}, schedule, days=["2026-05-29", "2026-05-30"])
    assert [d.day for d in only] == ["2026-05-29", "2026-05-30"]
    assert only[1].to_json()["games"]["started"] == 0


def test_csv_has_the_api_figures_one_row_per_day() -> None:
    from kiothi_board.exhibit.stats import DayStats

    d = DayStats("2026-05-28", started=3, finished=2, abandoned=1, durations=[100.0, 700.0])
    d.results = {"ai:1:visitor": 2, "ai:1:abandoned": 1}
    d.counts = {"press.S3": 9, "wrong": 4}
    rows = list(csv.DictReader(io.StringIO(to_csv([d, DayStats("2026-05-29")]))))
    assert len(rows) == 2
    api = d.to_json()
    assert int(rows[0]["games_started"]) == api["games"]["started"]
    assert float(rows[0]["duration_mean_s"]) == api["duration"]["mean"] == 400.0
    assert int(rows[0]["presses_S3"]) == 9 and int(rows[0]["wrong"]) == 4
    assert int(rows[0]["result_ai:1:visitor"]) == 2 and rows[1]["result_ai:1:visitor"] == "0"
    assert rows[1]["duration_mean_s"] == ""


def test_rows_read_old_numbering_and_never_fail_on_a_level_they_cannot_read() -> None:
    def row(meta: dict[str, object]) -> str:
        return game_row({"id": 1, "status": "finished", "meta": meta, "started": 0.0}).level

    assert row({"mode": "ai", "level": 6}) == "9"  # stored by the six-level build: Master
    assert row({"mode": "ai", "level": 6, "ladder": 2}) == "6"
    assert row({"mode": "ai", "level": "adaptive"}) == "adaptive"
    assert row({"mode": "ai", "level": "banana"}) == "banana"  # shown as stored, no crash
    assert row({"mode": "two"}) == "?"
