"""One-byte flips in a season's store: build a dozen games once, flip a copy, count losses.

Shared by the fast 40-flip test and the 400-flip soak (tests/store/test_salvage_flips.py).
A game is *lost* when the store opened on the flipped file no longer serves it as it was
written: a finished game by its record, the unfinished one by its meta and events.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiothi_board.store.base import Writes
from kiothi_board.store.sqlite import SqliteStore

GAMES = 12
PITS = [f"S{k}" for k in range(1, 11)] + [f"N{k}" for k in range(1, 11)]


def _game(i: int, short: bool) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """A game of about the size the board stores: settings, ~45 events, a record (`short`:
    6 moves, so that several games share a leaf page and a flip in its header hits them)."""
    rng = random.Random(i)
    meta = {
        "mode": rng.choice(["two", "ai", "guide"]),
        "humans": "SN",
        "level": rng.randint(1, 7),
        "pace": "normal",
        "variant": {},
        "lang": rng.choice(["en", "sw", "fr", "de"]),
        "note": f"game {i}",
    }
    moves = [rng.choice(PITS) for _ in range(6 if short else rng.randint(25, 60))]
    events: list[dict[str, Any]] = [{"type": "opening", "action": "pass"}] * 2
    events += [{"type": "select", "pit": m, "by": "SN"[k % 2]} for k, m in enumerate(moves)]
    record = {
        "format": "kiothi-game/1",
        "variant": {},
        "opening": ["pass", "pass"],
        "moves": moves,
        "i": i,
        "result": {"winner": rng.choice("SN"), "south": 31, "north": 29, "ending": "empty"},
    }
    return meta, events, record


@dataclass
class Season:
    """What was written: finished games' records, the current game's meta and events."""

    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    current: tuple[int, dict[str, Any], list[dict[str, Any]]] | None = None

    @property
    def ids(self) -> list[int]:
        return sorted([*self.records, *([self.current[0]] if self.current else [])])


def build(path: Path, games: int = GAMES, *, short: bool = False) -> Season:
    """A checkpointed store of `games` games (the last one unfinished), settings, counters."""
    season = Season()
    with SqliteStore(path) as store:
        store.save_settings({"operator": {"level": 5}, "lang": "sw"})
        for i in range(1, games + 1):
            meta, events, record = _game(i, short)
            gid = store.begin_game(meta)
            writes = Writes(events=[(gid, e) for e in events])  # one fsync a game: fast
            writes.add_counts("2026-05-01", {"games": 1, "presses": len(events)})
            if i < games:
                writes.finished.append((gid, record))
                season.records[gid] = record
            else:
                season.current = (gid, meta, events)
            store.commit(writes)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return season


def served_losses(store: SqliteStore, season: Season) -> list[int]:
    """The ids of the games `store` no longer serves as they were written."""
    lost = []
    for gid, record in season.records.items():
        if store.get_game(gid) != record:
            lost.append(gid)
    if season.current is not None:
        gid, meta, events = season.current
        got = store.get_game(gid)
        if got is None or got.get("meta") != meta or got.get("events") != events:
            lost.append(gid)
    listed = {g["id"] for g in store.list_games(1000)}
    return sorted(set(lost) | (set(season.ids) - listed))


def flip(data: bytes, rng: random.Random) -> tuple[bytes, int]:
    """`data` with one byte past the 100-byte header XORed with a random nonzero value."""
    at = rng.randrange(100, len(data))
    out = bytearray(data)
    out[at] ^= rng.randrange(1, 256)
    return bytes(out), at


@dataclass
class FlipRun:
    """The figures of a run: starts that worked, games lost per flip, the flips' offsets."""

    flips: int = 0
    starts: int = 0
    lost: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def lines(self) -> str:
        dist = Counter(self.lost)
        worst = max(self.lost, default=0)
        return (
            f"starts ok {self.starts}/{self.flips}; games lost per flip "
            f"{dict(sorted(dist.items()))}; worst {worst}; "
            f"more than one lost in {sum(1 for n in self.lost if n > 1)}"
        )


def run_flips(original: Path, season: Season, work: Path, flips: int, seed: int) -> FlipRun:
    """Open the store on `flips` flipped copies of `original` (seeded); the figures."""
    rng = random.Random(seed)
    data = original.read_bytes()
    out = FlipRun()
    for n in range(flips):
        flipped, at = flip(data, rng)
        case = work / f"flip-{n}"
        if case.exists():
            shutil.rmtree(case)
        case.mkdir(parents=True)
        path = case / "games.sqlite3"
        path.write_bytes(flipped)
        out.flips += 1
        out.offsets.append(at)
        try:
            with SqliteStore(path) as store:
                lost = served_losses(store, season)
                store.begin_game({"mode": "two"})  # the board plays on
        except Exception as exc:  # a crash is what is counted here
            out.failures.append(f"flip {n} at byte {at}: {type(exc).__name__}: {exc}")
            out.lost.append(len(season.ids))
            continue
        out.starts += 1
        out.lost.append(len(lost))
        shutil.rmtree(case)
    return out
