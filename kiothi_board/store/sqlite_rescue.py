"""Reading a damaged SQLite game store: rows that cannot be read, and files that cannot be.

Two kinds of damage reach a board in the field (a worn SD card, a power cut mid-write):

- **Row damage**: a byte flipped inside a stored value (invalid UTF-8 in a text column,
  JSON that no longer parses). `PRAGMA quick_check` does not see it, and SQLite raises only
  when the row is fetched. `scan_games` reads every game's values as bytes and names the
  games that cannot be read; the store quarantines them (kept in the file, never read) so
  that one game, not the board, is lost.
- **File damage** (a flipped page, a damaged schema, a file that is no longer SQLite) is
  `sqlite_salvage`'s: every game still on the file's pages is copied into a fresh store.

Nothing here writes to a damaged file.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

__all__ = ["STATUSES", "decode_json", "read_settings", "scan_games", "status_of"]

STATUSES = frozenset({"current", "finished", "abandoned"})


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


def status_of(raw: object) -> str:
    """A stored status (bytes or text); ValueError when it is none of ours."""
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
    status_of(status)
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
