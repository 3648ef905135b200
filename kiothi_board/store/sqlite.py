"""The default game store: one SQLite file in the state directory (standard library only).

Durability: WAL journal with `synchronous=FULL`, so each commit is fsynced to the WAL
before the call returns and survives a kill or a power cut; every call is its own
transaction, and `commit(writes)` makes one transaction of a board step's writes. Pages
are PAGE_SIZE bytes. Thread-safe: one connection shared under a lock. Opening a file (its
checks, moving a bad one aside, salvage, quarantine) is `sqlite_open`'s job; the schema and
the checks are in `sqlite_files`, reading damaged rows in `sqlite_rescue`, salvage in
`sqlite_salvage` (with `sqlite_pages`, which reads every page as SQLite's `.recover` does).

A file that is not SQLite, is damaged, or holds an older or garbled schema is never
overwritten: it is moved aside to `<name>.corrupt-<UTC timestamp>` (with its `-wal`/`-shm`
companions), a fresh store is created in its place, and every game that can still be read
from it is copied into it; `store.report` says what was lost and where the file went. A
store of a newer schema is refused (StoreError). A game whose rows cannot be read is
quarantined: kept in the file, left out of every read, named in `health()`. A settings row
that cannot be read, or that `settings_check` refuses, counts as none (the config's).

Schema (version 1; `PRAGMA application_id` marks the file as ours):

- `schema_version(version)` — one row.
- `settings(id = 1, json)` — the saved settings.
- `games(id, status, meta, started, finished, record)` — status is `current`,
  `finished` or `abandoned` (a current game replaced by `begin_game` before it was
  finished: kept, listed, never current again). Times are epoch seconds.
- `events(game_id, seq, event)` — each game's events, seq 1, 2, …
- `counts(day, key, n)` — per-day counters (the exhibition's statistics); added to files
  of version 1 when first opened by a build that has it (`CREATE TABLE IF NOT EXISTS`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from kiothi_board.clock import Clock, SystemClock
from kiothi_board.errors import StoreError, StoreUsageError, UnknownGameError
from kiothi_board.store.base import Writes
from kiothi_board.store.common import check_counts, dump, load, result_of
from kiothi_board.store.sqlite_files import (
    APPLICATION_ID,
    PAGE_SIZE,
    SCHEMA_VERSION,
    CorruptStoreReport,
    health_report,
)
from kiothi_board.store.sqlite_open import open_file
from kiothi_board.store.sqlite_rescue import read_settings

__all__ = [
    "APPLICATION_ID",
    "PAGE_SIZE",
    "SCHEMA_VERSION",
    "CorruptStoreReport",
    "SqliteStore",
]

log = logging.getLogger(__name__)

CLOCK_STEP = 5.0
"""Seconds between the wall clock and a game's monotonic end that count as a clock step."""

_KEPT = "id NOT IN (SELECT game_id FROM temp.quarantine)"
"""Reads leave quarantined games out: SQLite raises on their values when they are fetched."""

T = TypeVar("T")


class SqliteStore:
    """A `GameStore` in one SQLite file (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        settings_check: Callable[[dict[str, Any]], str | None] | None = None,
    ):
        """Open (or create) the store at `path`; an unusable file is moved aside (`.report`).

        `clock.wall()` stamps games and moved-aside files (default: the system clock);
        `settings_check` says why saved settings cannot be used (then they count as none).
        """
        self._settings_check = settings_check
        self.path = Path(path)
        self._wall_clock = (clock or SystemClock()).wall
        self._mono = (clock or SystemClock()).now
        self._begun: dict[int, float] = {}  # game id -> monotonic time it began (this process)
        self.clock_steps = 0
        self.last_clock_step: float | None = None
        self._lock = threading.RLock()
        self.settings_problem: str | None = None
        self.write_failure: str | None = None
        try:
            opened = open_file(self.path, self._wall_clock())
        except StoreError:
            raise
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open game store {str(self.path)!r}: {exc}") from exc
        self._conn: sqlite3.Connection | None = opened.conn
        self.report: CorruptStoreReport | None = opened.report
        self.quarantined: dict[int, str] = opened.quarantined
        self.history = opened.history  # an empty store with an earlier one beside it

    def health(self) -> dict[str, Any]:
        """The store's part of `health`: degraded while games are quarantined, after a
        salvage, with unreadable settings or while writes fail (what staff must be told)."""
        return health_report(
            self.quarantined,
            self.report,
            self.settings_problem,
            self.write_failure,
            self.clock_steps,
            self.history,
        )

    # -- plumbing ---------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"game store {str(self.path)!r} is closed")
        return self._conn

    def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            conn = self._connection()
            try:
                return fn(conn)
            except sqlite3.Error as exc:
                raise StoreError(f"reading game store {str(self.path)!r}: {exc}") from exc

    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    result = fn(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                self.write_failure = None
                return result
            except sqlite3.Error as exc:
                self.write_failure = str(exc)  # a full disk: health says so until a write works
                raise StoreError(f"writing game store {str(self.path)!r}: {exc}") from exc

    @staticmethod
    def _status(conn: sqlite3.Connection, game_id: int) -> str:
        row = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise UnknownGameError(f"no game with id {game_id!r}")
        return str(row[0])

    # -- GameStore --------------------------------------------------------------------------

    def load_settings(self) -> dict[str, Any]:
        """The saved settings (empty when none were saved)."""
        settings, why = self._read(read_settings)
        if why is None and settings and self._settings_check is not None:
            why = self._settings_check(settings)
            settings = {} if why is not None else settings
        if why is not None and why != self.settings_problem:
            log.warning("game store %s: %s; using the config's settings", self.path, why)
        self.settings_problem = why
        return settings

    def save_settings(self, settings: dict[str, Any]) -> None:
        """Replace the saved settings."""
        text = dump(settings, "settings")
        self._write(lambda c: self._save_settings_in(c, text))

    @staticmethod
    def _save_settings_in(c: sqlite3.Connection, text: str) -> None:
        c.execute(
            "INSERT INTO settings (id, json) VALUES (1, ?) "
            "ON CONFLICT (id) DO UPDATE SET json = excluded.json",
            (text,),
        )

    def begin_game(self, meta: dict[str, Any]) -> int:
        """Start a new current game; an unfinished previous one is marked abandoned."""
        text = dump(meta, "game meta")
        now = self._wall_clock()

        def begin(c: sqlite3.Connection) -> int:
            c.execute(f"UPDATE games SET status = 'abandoned' WHERE status = 'current' AND {_KEPT}")
            cur = c.execute(
                "INSERT INTO games (status, meta, started) VALUES ('current', ?, ?)", (text, now)
            )
            assert cur.lastrowid is not None
            return int(cur.lastrowid)

        game_id = self._write(begin)
        self._begun = {game_id: self._mono()}  # only the current game can be finished
        return game_id

    def append_event(self, game_id: int, event: dict[str, Any]) -> int:
        """Append an event to the current game; returns its sequence number (1, 2, …)."""
        text = dump(event, "event")
        return self._write(lambda c: self._append_in(c, game_id, event, text))

    def _append_in(self, c: sqlite3.Connection, game_id: int, event: Any, text: str) -> int:
        status = self._status(c, game_id)
        if status != "current":
            raise StoreUsageError(f"game {game_id!r} is {status}: cannot append {event!r:.200}")
        seq = int(
            c.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
        )
        c.execute("INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)", (game_id, seq, text))
        return seq

    def _events(self, c: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
        rows = c.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        return [load(r[0]) for r in rows]

    def current_game(self) -> tuple[int, dict[str, Any], list[dict[str, Any]]] | None:
        """The unfinished current game: `(id, meta, events in order)`, or None."""

        def current(
            c: sqlite3.Connection,
        ) -> tuple[int, dict[str, Any], list[dict[str, Any]]] | None:
            row = c.execute(
                f"SELECT id, meta FROM games WHERE status = 'current' AND {_KEPT} "
                "ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            return int(row[0]), load(row[1]), self._events(c, int(row[0]))

        return self._read(current)

    def finish_game(self, game_id: int, record: dict[str, Any]) -> None:
        """Store a game's final record and close it (only the current game can be finished)."""
        text = dump(record, "game record")
        now = self._wall_clock()
        self._write(lambda c: self._finish_in(c, game_id, text, now))

    def _finish_in(self, c: sqlite3.Connection, game_id: int, text: str, now: float) -> None:
        status = self._status(c, game_id)
        if status != "current":
            raise StoreUsageError(f"game {game_id!r} is {status}: cannot finish it again")
        started = float(
            c.execute("SELECT started FROM games WHERE id = ?", (game_id,)).fetchone()[0]
        )
        c.execute(
            "UPDATE games SET status = 'finished', finished = ?, record = ? WHERE id = ?",
            (self._finished_at(game_id, started, now), text, game_id),
        )

    def _finished_at(self, game_id: int, started: float, wall: float) -> float:
        """When a game ended: its start plus its duration on the monotonic clock when it began
        in this process (a wall-clock step during it — NTP at boot — is logged and counted,
        not stored), else the wall time, never before the start."""
        begun = self._begun.get(game_id)
        finished = (
            started + max(0.0, self._mono() - begun) if begun is not None else max(wall, started)
        )
        step = wall - finished
        if abs(step) > CLOCK_STEP:
            self.clock_steps += 1
            self.last_clock_step = step
            log.warning(
                "game store: the wall clock stepped %+.0f s during game %d; its end is stamped "
                "%.0f s after its start, by the monotonic clock",
                step,
                game_id,
                finished - started,
            )
        return finished

    @staticmethod
    def _summary(row: sqlite3.Row | tuple[Any, ...]) -> dict[str, Any]:
        game_id, status, meta, started, finished, record = row
        return {
            "id": int(game_id),
            "status": status,
            "meta": load(meta),
            "started": started,
            "finished": finished,
            "result": None if record is None else result_of(load(record)),
        }

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Summaries, newest first: id, status, meta, started, finished (epoch s), result."""
        if limit < 0 or offset < 0:
            raise StoreUsageError(f"limit and offset must be >= 0, got {limit!r}, {offset!r}")
        rows = self._read(
            lambda c: c.execute(
                "SELECT id, status, meta, started, finished, record FROM games "
                f"WHERE {_KEPT} ORDER BY id DESC LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        )
        return [self._summary(r) for r in rows]

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """A finished game's record; else its summary with `events`; None if unknown."""

        def get(c: sqlite3.Connection) -> dict[str, Any] | None:
            row = c.execute(
                "SELECT id, status, meta, started, finished, record FROM games "
                f"WHERE id = ? AND {_KEPT}",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            if row[5] is not None:
                record: dict[str, Any] = load(row[5])
                return record
            out = self._summary(row)
            out["events"] = self._events(c, game_id)
            return out

        return self._read(get)

    def add_counts(self, day: str, counts: dict[str, int]) -> None:
        """Add `counts` to the counters of `day`, in one transaction."""
        check_counts(day, counts)
        self._write(lambda c: self._counts_in(c, {day: counts}))

    @staticmethod
    def _counts_in(c: sqlite3.Connection, counts: dict[str, dict[str, int]]) -> None:
        rows = [(day, key, n) for day, keys in counts.items() for key, n in keys.items() if n]
        c.executemany(
            "INSERT INTO counts (day, key, n) VALUES (?, ?, ?) "
            "ON CONFLICT (day, key) DO UPDATE SET n = n + excluded.n",
            rows,
        )

    def commit(self, writes: Writes) -> None:
        """One step's writes in one transaction (one fsync of the WAL), or none of them."""
        if not writes:
            return
        events = [(gid, e, dump(e, "event")) for gid, e in writes.events]
        finished = [(gid, dump(r, "game record")) for gid, r in writes.finished]
        settings = None if writes.settings is None else dump(writes.settings, "settings")
        for day, counts in writes.counts.items():
            check_counts(day, counts)
        now = self._wall_clock()

        def all_of(c: sqlite3.Connection) -> None:
            for gid, event, text in events:
                self._append_in(c, gid, event, text)
            for gid, text in finished:
                self._finish_in(c, gid, text, now)
            if settings is not None:
                self._save_settings_in(c, settings)
            if writes.counts:
                self._counts_in(c, writes.counts)

        self._write(all_of)

    def get_counts(self, first: str, last: str) -> dict[str, dict[str, int]]:
        """The counters of the days from `first` to `last` (inclusive)."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT CAST(day AS BLOB), CAST(key AS BLOB), n FROM counts "
                "WHERE day BETWEEN ? AND ? AND typeof(n) = 'integer' ORDER BY day, key",
                (first, last),
            ).fetchall()
        )
        out: dict[str, dict[str, int]] = {}
        for day, key, n in rows:
            try:  # a damaged counter costs that counter
                out.setdefault(bytes(day).decode(), {})[bytes(key).decode()] = int(n)
            except UnicodeDecodeError:
                continue
        return out

    def close(self) -> None:
        """Close the database (every write is already committed); idempotent."""
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._conn is None

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"
