"""Opening the SQLite store's file: check it, move a bad one aside, salvage, quarantine.

Split from `kiothi_board.store.sqlite` (the store's calls): what happens to a file before
the first game is read from it. Whatever a damaged file makes SQLite (or Python decoding
what SQLite says) raise while it is opened and checked means "unusable", never a crash:
the file is moved aside and salvaged. Only errors that say nothing about the file's bytes
(permissions, I/O, a lock, a full disk) and a store of a newer schema reach the daemon.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from kiothi_board.errors import StoreError
from kiothi_board.store.sqlite_files import (
    COUNTS,
    PAGE_SIZE,
    SCHEMA,
    CorruptStoreReport,
    configure,
    move_aside,
    problem,
    shrink_pages,
)
from kiothi_board.store.sqlite_rescue import scan_games
from kiothi_board.store.sqlite_salvage import Salvage, salvage

__all__ = ["Opened", "open_file"]

log = logging.getLogger("kiothi_board.store.sqlite")

_TRANSIENT = frozenset(
    {
        sqlite3.SQLITE_PERM,
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_NOMEM,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_INTERRUPT,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
        sqlite3.SQLITE_AUTH,
    }
)
"""SQLite's result codes that are about the system, not proof of a damaged file."""

_QUARANTINE = (
    "CREATE TEMP TABLE IF NOT EXISTS quarantine (game_id INTEGER PRIMARY KEY, reason TEXT)"
)


@dataclass
class Opened:
    """The connection to a usable store, and what was found on the way."""

    conn: sqlite3.Connection
    report: CorruptStoreReport | None = None
    quarantined: dict[int, str] = field(default_factory=dict)
    history: str | None = None  # an empty store with traces of an earlier one beside it


def _transient(exc: BaseException) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.Error) and code is not None and code & 0xFF in _TRANSIENT


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False)


def _check(path: Path) -> tuple[sqlite3.Connection | None, dict[int, str], str | None]:
    """(the connection to a usable file, its quarantined games) or (None, {}, why not)."""
    conn = _connect(path)
    try:
        bad = problem(conn, path)
        quarantined = scan_games(conn) if bad is None else {}
    except StoreError:
        conn.close()
        raise
    except Exception as exc:  # any other failure while checking: a damaged file
        if _transient(exc):  # not proof of damage: the file stays, the daemon is told
            conn.close()
            raise
        bad = f"not a readable SQLite database: {type(exc).__name__}: {exc}"
    if bad is None:
        try:  # the file is sound: a failure here is the system's, not damage
            shrink_pages(conn, path)
            configure(conn)
        except BaseException:
            conn.close()
            raise
        return conn, quarantined, None
    conn.close()
    return None, {}, bad


def _history(path: Path) -> str | None:
    """What beside an empty store says it had games: an earlier file moved aside."""
    earlier = sorted(p.name for p in path.parent.glob(f"{path.name}.corrupt-*"))
    if not earlier:
        return None
    return (
        f"game store {str(path)!r} is empty, but {earlier[-1]!r} beside it holds an "
        "earlier store: its games are not in this one"
    )


def _fresh(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = _connect(path)
    try:
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # before the first page is written
        configure(conn)
        conn.executescript(f"BEGIN IMMEDIATE; {SCHEMA} COMMIT;")
    except BaseException:
        conn.close()
        raise
    return conn


def _salvage(report: CorruptStoreReport, conn: sqlite3.Connection) -> CorruptStoreReport:
    moved = Path(report.moved_to)
    try:
        rescued = salvage(moved, conn, PAGE_SIZE)
    except Exception as exc:  # the board starts empty; the file is kept aside
        if _transient(exc):
            raise
        log.warning("game store %s: salvage from %s failed: %s", report.path, moved, exc)
        rescued = Salvage()
    log.warning("game store %s: salvaged from %s: %s", report.path, moved, rescued)
    return CorruptStoreReport(report.path, report.moved_to, report.reason, rescued)


def open_file(path: Path, wall: float) -> Opened:
    """Open (or create) the store file `path`; `wall` stamps a file moved aside."""
    opened = _open(path, wall)
    try:
        return _quarantine(path, opened)
    except BaseException:
        opened.conn.close()
        raise


def _open(path: Path, wall: float) -> Opened:
    if path.is_dir():
        raise StoreError(f"game store {str(path)!r} is a directory")
    wal = path.with_name(path.name + "-wal")
    report, history = None, None
    if path.exists() and path.stat().st_size > 0:
        conn, quarantined, bad = _check(path)
        if conn is not None:
            return Opened(conn, quarantined=quarantined)
        assert bad is not None
        report = move_aside(path, bad, wall)
    elif path.exists() and wal.exists() and wal.stat().st_size > 0:
        # A store's first page is written before any WAL frame: an empty file beside a WAL
        # was cut short (its games may still be in the WAL's frames).
        report = move_aside(path, "the file is empty but its WAL is not", wall)
    elif path.exists():
        history = _history(path)
    conn = _fresh(path)
    opened = Opened(conn, report=report, history=history)
    try:
        conn.execute(COUNTS)
        if report is not None and not report.reason.startswith("not a kiothi-board store"):
            opened.report = _salvage(report, conn)
    except BaseException:
        conn.close()
        raise
    if history is not None:
        log.warning("%s", history)
    return opened


def _quarantine(path: Path, opened: Opened) -> Opened:
    """`counts` where a file of version 1 lacks it, and the temp table every read leaves
    out, filled with the unreadable games."""
    opened.conn.execute(COUNTS)
    opened.conn.execute(_QUARANTINE)
    quarantined = sorted(opened.quarantined.items())
    opened.conn.executemany(
        "INSERT INTO temp.quarantine (game_id, reason) VALUES (?, ?)", quarantined
    )
    for game_id, reason in quarantined:
        log.warning("game store %s: game %d quarantined: %s", path, game_id, reason)
    return opened
