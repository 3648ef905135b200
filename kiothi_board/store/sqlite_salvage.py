"""Salvaging a damaged store file into a fresh one: every game that can still be read.

Two readers, merged game by game. SQL by column names (what the B-tree still reaches, and
the only reader of a file whose columns are not ours in order: an older or garbled schema)
and `sqlite_pages` (every leaf page, as SQLite's `.recover`: what a damaged interior page or
schema hides). A game is taken from SQL when it reads whole there, else from the pages; an
unfinished game (its events are the game) needs every event from 1 on. Ids no reader finds
are named lost; the damaged file is read from a copy, never changed.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiothi_board.store.sqlite_pages import Found, GameCells, read_pages
from kiothi_board.store.sqlite_rescue import decode_json, read_settings, status_of

__all__ = ["Salvage", "salvage"]

PROBE_SLACK = 10_000
"""Ids probed past the highest id found: a damaged page may hide the newest games, but a
damaged counter must not send the probe on for ever."""

Row = tuple[int, str, str, float, float | None, str | None]
Game = tuple[Row, list[tuple[int, Any]]]


@dataclass
class Salvage:
    """What `salvage` recovered from a damaged file."""

    recovered: list[int] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)
    settings: bool = False
    counts: int = 0

    def __str__(self) -> str:
        lost = f"; lost {len(self.lost)}: {_ids(self.lost)}" if self.lost else ""
        return f"{len(self.recovered)} game(s) recovered{lost}"


def _ids(ids: list[int]) -> str:
    shown = ", ".join(str(i) for i in ids[:20])
    return shown + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")


def _high(src: sqlite3.Connection, found: Found) -> int:
    """The highest game id anything claims (a claim far past every id found is damage)."""
    ids = list(found.games)
    claims = [] if found.sequence is None else [found.sequence]
    for query in (
        "SELECT max(id) FROM games",
        "SELECT seq FROM sqlite_sequence WHERE name = 'games'",
        "SELECT max(game_id) FROM events",
    ):
        try:
            row = src.execute(query).fetchone()
        except Exception:  # any damage: that claim is not made
            continue
        if row is not None and isinstance(row[0], int):
            (ids if query.startswith("SELECT max(id)") else claims).append(row[0])
    most = max(ids, default=0)
    return max([most, *(c for c in claims if c <= most + PROBE_SLACK)])


def _sql_game(src: sqlite3.Connection, game_id: int) -> Game | None:
    """A game read by column names; None if absent; ValueError/DatabaseError if damaged."""
    row = src.execute(
        "SELECT id, CAST(status AS BLOB), CAST(meta AS BLOB), started, finished, "
        "CAST(record AS BLOB) FROM games WHERE id = ?",
        (game_id,),
    ).fetchone()
    if row is None:
        return None
    cells = GameCells(status_of(row[1]), bytes(row[2]), row[3], row[4], row[5])
    if not isinstance(row[3], float | int) or not isinstance(row[4], float | int | None):
        raise ValueError("times are not numbers")
    try:
        rows = src.execute(
            "SELECT seq, CAST(event AS BLOB) FROM events WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()
        events = [(int(seq), decode_json(raw, f"event {seq}")) for seq, raw in rows]
    except (sqlite3.DatabaseError, ValueError):
        if cells.record is None:
            raise  # an unfinished game is its events
        events = []  # a finished game is its record
    return _game(game_id, cells, events)


def _game(game_id: int, cells: GameCells, events: list[tuple[int, Any]]) -> Game:
    """A row to insert, its values checked (ValueError names what is wrong)."""
    meta = decode_json(cells.meta, "meta")
    record = None if cells.record is None else bytes(cells.record)
    if record is not None:
        decode_json(record, "record")
    text = None if record is None else record.decode("utf-8")
    started, ended = float(cells.started), cells.finished
    row = (game_id, status_of(cells.status), json.dumps(meta), started, ended, text)
    return row, events


def _page_events(found: Found, game_id: int) -> list[tuple[int, Any]]:
    """The events of `game_id` found on the pages that can be read, in order."""
    out = []
    for seq, raw in sorted(found.events.get(game_id, {}).items()):
        try:
            out.append((seq, decode_json(raw, f"event {seq}")))
        except ValueError:
            continue
    return out


def _page_game(found: Found, game_id: int, sql_events: list[tuple[int, Any]]) -> Game | None:
    """The game from the pages: a finished or abandoned copy over a stale current one."""
    ranked = sorted(found.games.get(game_id, []), key=lambda c: c.status == "current")
    for cells in ranked:
        try:
            row, _ = _game(game_id, cells, [])
        except ValueError:
            continue
        events = dict(_page_events(found, game_id))
        events.update(sql_events)
        return row, sorted(events.items())
    return None


def _whole(game: Game | None) -> bool:
    """An unfinished game needs all its events (1, 2, … with no gap); a finished its record."""
    if game is None:
        return False
    row, events = game
    return row[5] is not None or [s for s, _ in events] == list(range(1, len(events) + 1))


def _pick(src: sqlite3.Connection, found: Found, game_id: int) -> Game | None:
    try:
        got = _sql_game(src, game_id)
    except Exception:  # any damage: the pages may still hold it
        got = None
    if got is not None and got[0][5] is None:  # unfinished: the pages may hold more events
        events = dict(_page_events(found, game_id))
        events.update(got[1])
        got = got[0], sorted(events.items())
    if _whole(got):
        return got
    from_pages = _page_game(found, game_id, [] if got is None else got[1])
    return from_pages if _whole(from_pages) else None


def _insert(dst: sqlite3.Connection, game_id: int, row: Row, events: list[tuple[int, Any]]) -> None:
    """One game's rows, all or none (a savepoint inside the salvage's transaction)."""
    dst.execute("SAVEPOINT game")
    try:
        dst.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?)", row)
        dst.executemany(  # a damaged tree may give an event twice: it is one event
            "INSERT OR IGNORE INTO events (game_id, seq, event) VALUES (?, ?, ?)",
            [
                (game_id, seq, json.dumps(e, sort_keys=True, separators=(",", ":")))
                for seq, e in events
            ],
        )
    except BaseException:
        dst.execute("ROLLBACK TO game")
        raise
    finally:
        dst.execute("RELEASE game")


def _copy_games(
    src: sqlite3.Connection, dst: sqlite3.Connection, found: Found, out: Salvage
) -> None:
    high = _high(src, found)
    for game_id in range(1, high + 1):  # games are never deleted: every id was a game
        got = _pick(src, found, game_id)
        if got is None:
            out.lost.append(game_id)
            continue
        try:
            _insert(dst, game_id, *got)
        except sqlite3.Error:  # a value the fresh store refuses: that game, not the rest
            out.lost.append(game_id)
            continue
        out.recovered.append(game_id)
    # New games must not take the ids of lost ones: they are named in the report.
    dst.execute("DELETE FROM sqlite_sequence WHERE name = 'games'")
    dst.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('games', ?)", (high,))


def _settings(src: sqlite3.Connection, found: Found) -> dict[str, Any] | None:
    try:
        settings, problem = read_settings(src)
        if problem is None and settings:
            return settings
    except Exception:  # any damage: look on the pages
        pass
    for raw in found.settings:
        try:
            value = decode_json(raw, "settings")
        except ValueError:
            continue
        if isinstance(value, dict) and value:
            return value
    return None


def _counts(src: sqlite3.Connection, found: Found) -> dict[tuple[bytes, bytes], int]:
    counts = dict(found.counts)
    try:
        rows = src.execute(
            "SELECT CAST(day AS BLOB), CAST(key AS BLOB), n FROM counts WHERE typeof(n) = 'integer'"
        )
        for day, key, n in rows:
            counts[(bytes(day), bytes(key))] = max(int(n), counts.get((bytes(day), bytes(key)), 0))
    except Exception:  # the counters past the damage are on the pages
        pass
    return counts


def _copy_rest(
    src: sqlite3.Connection, dst: sqlite3.Connection, found: Found, out: Salvage
) -> None:
    settings = _settings(src, found)
    if settings is not None:
        dst.execute("INSERT INTO settings (id, json) VALUES (1, ?)", (json.dumps(settings),))
        out.settings = True
    for (day, key), n in sorted(_counts(src, found).items()):
        try:
            text = (day.decode("utf-8"), key.decode("utf-8"))
        except UnicodeDecodeError:
            continue  # a damaged counter costs that counter
        dst.execute("INSERT OR IGNORE INTO counts (day, key, n) VALUES (?, ?, ?)", (*text, n))
        out.counts += 1


def salvage(damaged: Path, dst: sqlite3.Connection, page_size: int) -> Salvage:
    """Copy what can be read of the store file `damaged` (and its WAL) into `dst`, a fresh
    store, in one transaction. The damaged file is read from a copy, never changed."""
    out = Salvage()
    with tempfile.TemporaryDirectory(dir=damaged.parent, prefix=".salvage-") as tmp:
        copy = Path(tmp) / "damaged.sqlite3"
        shutil.copyfile(damaged, copy)
        wal = damaged.with_name(damaged.name + "-wal")
        if wal.exists():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        found = read_pages(copy, page_size)  # before SQLite may replay the WAL into it
        src = sqlite3.connect(copy, isolation_level=None)
        src.text_factory = bytes  # a damaged name or value must not raise while decoding
        try:
            dst.execute("BEGIN IMMEDIATE")
            try:
                _copy_games(src, dst, found, out)
                _copy_rest(src, dst, found, out)
                dst.execute("COMMIT")
            except BaseException:
                dst.execute("ROLLBACK")
                raise
        finally:
            src.close()
    return out
