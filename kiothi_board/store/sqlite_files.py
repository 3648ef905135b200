"""The SQLite store's file: schema, connection settings, checks, and moving a bad file aside.

Split from `kiothi_board.store.sqlite` (which re-exports the names): what is decided about a
file before any game is read from it.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kiothi_board.errors import StoreError
from kiothi_board.store.sqlite_salvage import Salvage

__all__ = [
    "APPLICATION_ID",
    "COUNTS",
    "PAGE_SIZE",
    "SCHEMA",
    "SCHEMA_VERSION",
    "TABLES",
    "CorruptStoreReport",
    "configure",
    "health_report",
    "move_aside",
    "problem",
    "shrink_pages",
]

log = logging.getLogger("kiothi_board.store.sqlite")

SCHEMA_VERSION = 1
APPLICATION_ID = 0x4B494F54  # "KIOT"
PAGE_SIZE = 1024
"""A press writes one or two pages (the game's events, the day's counters) to the WAL and
fsyncs it: 1 KiB pages make that about 6 KiB of writes a press where 4 KiB pages made 12,
and an SD card wears by what it is written."""

SCHEMA = f"""
PRAGMA application_id = {APPLICATION_ID};
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version (version) VALUES ({SCHEMA_VERSION});
CREATE TABLE settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    status TEXT NOT NULL CHECK (status IN ('current', 'finished', 'abandoned')),
    meta TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    record TEXT
);
CREATE INDEX games_status ON games (status);
CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
"""

TABLES = ("schema_version", "settings", "games", "events")
"""The tables every store of version 1 has (`counts` is added on opening when missing)."""

COUNTS = """
CREATE TABLE IF NOT EXISTS counts (
    day TEXT NOT NULL,
    key TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (day, key)
) WITHOUT ROWID
"""


@dataclass(frozen=True, slots=True)
class CorruptStoreReport:
    """What was wrong with a store file found at start-up and where it was moved."""

    path: str
    moved_to: str
    reason: str
    salvage: Salvage | None = None

    def __str__(self) -> str:
        rescued = "" if self.salvage is None else f"; salvaged into it: {self.salvage}"
        return (
            f"game store {self.path!r} was unusable ({self.reason}); "
            f"moved aside to {self.moved_to!r} and a new store was created{rescued}"
        )


def configure(conn: sqlite3.Connection) -> None:
    """WAL, fsync per commit, foreign keys, a busy timeout, a bounded page cache."""
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise sqlite3.OperationalError(f"cannot switch to WAL journal (got {mode!r})")
    # FULL in WAL mode fsyncs the WAL on every commit: a returned write survives power loss.
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    # A season-long process: the page cache grows with the file up to this cap (SQLite's
    # default is 2 MiB); 1 MiB holds the pages a board touches, the OS caches the rest.
    conn.execute("PRAGMA cache_size = -1024")


def shrink_pages(conn: sqlite3.Connection, path: Path) -> None:
    """Rewrite a store made with bigger pages (SQLite's default of 4 KiB) in PAGE_SIZE
    pages, once: VACUUM under a rollback journal, so a power cut leaves either file."""
    size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    if size == PAGE_SIZE:
        return
    log.info("game store %s: rewriting its %d-byte pages as %d", path, size, PAGE_SIZE)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    conn.execute("VACUUM")


def problem(conn: sqlite3.Connection, path: Path) -> str | None:
    """Why an existing file is not a usable store of ours (None: it is). A store of a newer
    schema is refused (StoreError): it is not damaged, this build is too old for it."""
    check = conn.execute("PRAGMA quick_check").fetchall()
    if check != [("ok",)]:
        said = "; ".join(str(r[0]).replace("\n", "; ") for r in check[:3])
        return f"integrity check failed: {said}"
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = sorted(
        r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    )
    missing = [t for t in TABLES if t not in tables]
    if app_id != APPLICATION_ID and missing:
        return f"not a kiothi-board store (application_id {app_id}, tables {tables})"
    if app_id != APPLICATION_ID:  # our tables: a flipped byte in the header, not another file
        return f"application_id {app_id} is not ours, but the tables are (tables {tables})"
    if missing:
        return f"no {', '.join(missing)} table (tables {tables})"
    # quick_check does not compare an index with its table: a flipped byte in games_status
    # would fail the first write. The games table is small; its full check is cheap.
    check = conn.execute("PRAGMA integrity_check(games)").fetchall()
    if check != [("ok",)]:
        said = "; ".join(str(r[0]).replace("\n", "; ") for r in check[:3])
        return f"integrity check of the games failed: {said}"
    versions = [r[0] for r in conn.execute("SELECT version FROM schema_version")]
    if len(versions) == 1 and isinstance(versions[0], int) and versions[0] > SCHEMA_VERSION:
        raise StoreError(
            f"game store {str(path)!r} has schema version {versions[0]}, newer than this "
            f"build reads ({SCHEMA_VERSION}): install the kiothi-board release that wrote "
            "it, or move the file aside to start an empty store"
        )
    if versions != [SCHEMA_VERSION]:
        return f"unknown schema version {versions} (this build reads {SCHEMA_VERSION})"
    return None


def move_aside(path: Path, reason: str, wall: float) -> CorruptStoreReport:
    """Move a store file (and its -wal/-shm) aside, never over an earlier one; the report."""
    stamp = datetime.fromtimestamp(wall, UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{path.name}.corrupt-{stamp}"
    target = path.with_name(base)
    n = 1
    while any(
        path.with_name(target.name + s).exists() for s in ("", "-wal", "-shm")
    ):  # never overwrite an earlier salvage
        target = path.with_name(f"{base}-{n}")
        n += 1
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            # A stale WAL must not be replayed into the fresh store.
            os.replace(companion, path.with_name(target.name + suffix))
    os.replace(path, target)
    report = CorruptStoreReport(str(path), str(target), reason)
    log.warning("%s", report)
    return report


def health_report(
    quarantined: dict[int, str],
    report: CorruptStoreReport | None,
    settings_problem: str | None,
    write_failure: str | None,
    clock_steps: int,
    history: str | None = None,
) -> dict[str, Any]:
    """The store's part of `health`: degraded while games are quarantined, after a
    salvage, with unreadable settings, or when an empty store has history beside it."""
    problems = [] if history is None else [history]
    problems += [
        f"game {gid} cannot be read and is quarantined: {why}"
        for gid, why in sorted(quarantined.items())
    ]
    if report is not None:
        problems.append(str(report))
    if settings_problem is not None:
        problems.append(f"saved settings unreadable ({settings_problem}): using the config")
    if write_failure is not None:
        problems.append(
            f"cannot write ({write_failure}): the board plays on, and what is not "
            "written yet is kept and retried; free some space"
        )
    return {
        "status": "degraded" if problems else "ok",
        "quarantined": sorted(quarantined),
        "salvage": None
        if report is None
        else {
            "moved_to": report.moved_to,
            "recovered": len(report.salvage.recovered) if report.salvage else 0,
            "lost": list(report.salvage.lost) if report.salvage else [],
        },
        "problems": problems,
        "clock_steps": clock_steps,
    }
