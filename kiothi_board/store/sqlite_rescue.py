"""Reading a damaged SQLite game store: rows that cannot be read, and files that cannot be.

Two kinds of damage reach a board in the field (a worn SD card, a power cut mid-write):

- **Row damage**: a byte flipped inside a stored value (invalid UTF-8 in a text column,
  JSON that no longer parses). `PRAGMA quick_check` does not see it, and SQLite raises only
  when the row is fetched. `scan_games` reads every game's values as bytes and names the
  games that cannot be read; the store quarantines them (kept in the file, never read) so
  that one game, not the board, is lost.
- **File damage** (a flipped page, a file that is no longer SQLite): `salvage` copies every
  game that can still be read out of the damaged file into the fresh store, probing ids one
  by one so a damaged page costs the games on it.

Both only read the damaged data; nothing here writes to a damaged file.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Salvage", "decode_json", "read_settings", "salvage", "scan_games"]

STATUSES = frozenset({"current", "finished", "abandoned"})
PROBE_SLACK = 10_000
"""Ids probed past the highest id found: a damaged page may hide the newest games, but a
damaged counter must not send the probe on for ever."""


def decode_json(raw: object, what: str) -> Any:
    """A stored JSON value read as bytes; ValueError names what is wrong with it."""
    if raw is None:
        raise ValueError(f"{what} is missing")
    if not isinstance(raw, bytes | str):
        raise ValueError(f"{what} is a {type(raw).__name__}, not text")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} is not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"{what} is not JSON ({exc})") from exc


def _status(raw: object) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    if text not in STATUSES:
        raise ValueError(f"status {text!r:.40} is not one of {sorted(STATUSES)}")
    return text


_GAME_ROWS = (
    "SELECT id, CAST(status AS BLOB), CAST(meta AS BLOB), typeof(started), "
    "typeof(finished), CAST(record AS BLOB) FROM games"
)


def _check_game(row: tuple[Any, ...]) -> None:
    _, status, meta, started, finished, record = row
    _status(status)
    decode_json(meta, "meta")
    if started not in ("real", "integer"):
        raise ValueError(f"started is {started}, not a time")
    if finished not in ("real", "integer", "null"):
        raise ValueError(f"finished is {finished}, not a time")
    if record is not None:
        decode_json(record, "record")


def scan_games(conn: sqlite3.Connection) -> dict[int, str]:
    """The games whose rows cannot be read, and why (read-only; raises sqlite3.Error only
    for damage to the file's structure)."""
    bad: dict[int, str] = {}
    for row in conn.execute(_GAME_ROWS):
        try:
            _check_game(row)
        except ValueError as exc:
            bad[int(row[0])] = str(exc)
    # A finished game is read as its record: its events are only read while it has none.
    events = conn.execute(
        "SELECT game_id, seq, CAST(event AS BLOB) FROM events "
        "WHERE game_id IN (SELECT id FROM games WHERE record IS NULL)"
    )
    for game_id, seq, raw in events:
        if game_id in bad:
            continue
        try:
            decode_json(raw, f"event {seq}")
        except ValueError as exc:
            bad[int(game_id)] = str(exc)
    return bad


def read_settings(conn: sqlite3.Connection) -> tuple[dict[str, Any], str | None]:
    """The saved settings and, when the row cannot be read, why (the settings are then {})."""
    row = conn.execute("SELECT CAST(json AS BLOB) FROM settings WHERE id = 1").fetchone()
    if row is None:
        return {}, None
    try:
        value = decode_json(row[0], "the settings row")
    except ValueError as exc:
        return {}, str(exc)
    if not isinstance(value, dict):
        return {}, f"the settings row is a {type(value).__name__}, not an object"
    return value, None


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


def _known_ids(src: sqlite3.Connection) -> tuple[set[int], int]:
    """Ids a scan reads before it hits damage, and the highest id anything claims."""
    ids: set[int] = set()
    claims: list[int] = []
    try:
        for (game_id,) in src.execute("SELECT id FROM games"):
            ids.add(int(game_id))
    except sqlite3.DatabaseError:
        pass
    for query in (
        "SELECT seq FROM sqlite_sequence WHERE name = 'games'",
        "SELECT max(id) FROM games",
        "SELECT max(game_id) FROM events",
    ):
        try:
            row = src.execute(query).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None and isinstance(row[0], int):
            claims.append(row[0])
    found = max(ids, default=0)
    high = max([found, *(c for c in claims if c <= found + PROBE_SLACK)])
    return ids, high


def _read_game(src: sqlite3.Connection, game_id: int) -> tuple[tuple[Any, ...], list[Any]] | None:
    row = src.execute(
        "SELECT id, CAST(status AS BLOB), CAST(meta AS BLOB), started, finished, "
        "CAST(record AS BLOB) FROM games WHERE id = ?",
        (game_id,),
    ).fetchone()
    if row is None:
        return None
    status = _status(row[1])
    meta, record = decode_json(row[2], "meta"), row[5]
    if record is not None:
        decode_json(record, "record")
    if not isinstance(row[3], float | int) or not isinstance(row[4], float | int | None):
        raise ValueError("times are not numbers")
    try:
        events = [
            (seq, decode_json(raw, f"event {seq}"))
            for seq, raw in src.execute(
                "SELECT seq, CAST(event AS BLOB) FROM events WHERE game_id = ? ORDER BY seq",
                (game_id,),
            )
        ]
    except (sqlite3.DatabaseError, ValueError):
        if record is None:
            raise  # an unfinished game is its events
        events = []  # a finished game is its record
    text = None if record is None else bytes(record).decode("utf-8")
    return (game_id, status, json.dumps(meta), row[3], row[4], text), events


def _copy_games(src: sqlite3.Connection, dst: sqlite3.Connection, out: Salvage) -> None:
    ids, high = _known_ids(src)
    for game_id in range(1, high + 1):
        try:
            got = _read_game(src, game_id)
        except (sqlite3.DatabaseError, ValueError):
            out.lost.append(game_id)
            continue
        if got is None:
            if game_id in ids:
                out.lost.append(game_id)
            continue
        row, events = got
        dst.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?)", row)
        dst.executemany(
            "INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)",
            [
                (game_id, seq, json.dumps(e, sort_keys=True, separators=(",", ":")))
                for seq, e in events
            ],
        )
        out.recovered.append(game_id)
    # New games must not take the ids of lost ones: they are named in the report.
    dst.execute("DELETE FROM sqlite_sequence WHERE name = 'games'")
    dst.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('games', ?)", (high,))


def _copy_rest(src: sqlite3.Connection, dst: sqlite3.Connection, out: Salvage) -> None:
    try:
        settings, problem = read_settings(src)
        if problem is None and settings:
            dst.execute("INSERT INTO settings (id, json) VALUES (1, ?)", (json.dumps(settings),))
            out.settings = True
    except sqlite3.DatabaseError:
        pass
    try:
        rows = src.execute(
            "SELECT CAST(day AS BLOB), CAST(key AS BLOB), n FROM counts WHERE typeof(n) = 'integer'"
        )
        for day, key, n in rows:
            try:
                dst.execute(
                    "INSERT OR IGNORE INTO counts (day, key, n) VALUES (?, ?, ?)",
                    (bytes(day).decode("utf-8"), bytes(key).decode("utf-8"), n),
                )
                out.counts += 1
            except UnicodeDecodeError:
                continue
    except sqlite3.DatabaseError:
        pass  # the counters after the damaged page are lost; those before it are kept


def salvage(damaged: Path, dst: sqlite3.Connection) -> Salvage:
    """Copy what can be read of the store file `damaged` (and its WAL) into `dst`, a fresh
    store, in one transaction. The damaged file is read from a copy, never changed."""
    out = Salvage()
    with tempfile.TemporaryDirectory(dir=damaged.parent, prefix=".salvage-") as tmp:
        copy = Path(tmp) / "damaged.sqlite3"
        shutil.copyfile(damaged, copy)
        wal = damaged.with_name(damaged.name + "-wal")
        if wal.exists():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        try:
            src = sqlite3.connect(copy, isolation_level=None)
        except sqlite3.Error:
            return out
        try:
            dst.execute("BEGIN IMMEDIATE")
            try:
                _copy_games(src, dst, out)
                _copy_rest(src, dst, out)
                dst.execute("COMMIT")
            except BaseException:
                dst.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError:
            return Salvage()  # not SQLite at all: nothing to recover
        finally:
            src.close()
    return out
