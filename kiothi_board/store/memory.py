"""An in-memory `GameStore` for tests, benchmarks and the simulator (nothing survives exit).

It keeps the real stores' contract (tests/store/test_store_contract.py): the same statuses
(`current`, `abandoned`, `finished`), summaries and errors (`StoreUsageError`,
`UnknownGameError`, `StoreError` once closed), so code tested against it behaves the same
on SQLite or Redis.
"""

from __future__ import annotations

import threading
from typing import Any

from kiothi_board.clock import Clock, SystemClock
from kiothi_board.errors import StoreError, StoreUsageError, UnknownGameError
from kiothi_board.store.base import Writes
from kiothi_board.store.common import check_counts, dump, load, result_of

__all__ = ["MemoryStore"]


class MemoryStore:
    """Implements the `GameStore` protocol in dictionaries of canonical JSON text.

    Kept as JSON text, as a database would: a caller mutating a dict after handing it over
    cannot change what was stored, and non-JSON data is refused at the call.
    """

    def __init__(self, *, clock: Clock | None = None) -> None:
        """An empty store; `clock.wall()` stamps the games (default: the system clock)."""
        self._clock = clock or SystemClock()
        self._lock = threading.Lock()
        self._settings = "{}"
        self._games: dict[int, dict[str, Any]] = {}
        self._next = 1
        self._counts: dict[str, dict[str, int]] = {}
        self.closed = False

    def _open(self) -> None:
        if self.closed:
            raise StoreError("memory game store is closed")

    def _game(self, game_id: int) -> dict[str, Any]:
        game = self._games.get(game_id)
        if game is None:
            raise UnknownGameError(f"no game with id {game_id!r}")
        return game

    def load_settings(self) -> dict[str, Any]:
        """The saved settings (empty when none were saved)."""
        with self._lock:
            self._open()
            return dict(load(self._settings))

    def save_settings(self, settings: dict[str, Any]) -> None:
        """Replace the saved settings."""
        text = dump(settings, "settings")
        with self._lock:
            self._open()
            self._settings = text

    def begin_game(self, meta: dict[str, Any]) -> int:
        """Start a new current game; an unfinished previous one is marked abandoned."""
        text = dump(meta, "game meta")
        now = self._clock.wall()
        with self._lock:
            self._open()
            return self._begin(self._next, text, now)

    def next_game_id(self) -> int:
        """The id the next game will have."""
        with self._lock:
            self._open()
            return self._next

    def _begin(self, gid: int, text: str, now: float) -> int:
        if gid in self._games:
            raise StoreUsageError(f"game {gid!r} exists already: cannot begin it again")
        for game in self._games.values():
            if game["status"] == "current":
                game["status"] = "abandoned"
        self._next = max(self._next, gid + 1)
        self._games[gid] = {
            "status": "current",
            "meta": text,
            "events": [],
            "started": now,
            "finished": None,
            "record": None,
        }
        return gid

    def append_event(self, game_id: int, event: dict[str, Any]) -> int:
        """Append an event to the current game; returns its sequence number (1, 2, …)."""
        text = dump(event, "event")
        with self._lock:
            self._open()
            game = self._game(game_id)
            if game["status"] != "current":
                status = game["status"]
                raise StoreUsageError(f"game {game_id!r} is {status}: cannot append {event!r:.200}")
            game["events"].append(text)
            return len(game["events"])

    def current_game(self) -> tuple[int, dict[str, Any], list[dict[str, Any]]] | None:
        """The unfinished current game: `(id, meta, events in order)`, or None."""
        with self._lock:
            self._open()
            for gid in sorted(self._games, reverse=True):
                game = self._games[gid]
                if game["status"] == "current":
                    return gid, load(game["meta"]), [load(e) for e in game["events"]]
            return None

    def finish_game(self, game_id: int, record: dict[str, Any]) -> None:
        """Store a game's final record and close it (only the current game can be finished)."""
        text = dump(record, "game record")
        now = self._clock.wall()
        with self._lock:
            self._open()
            game = self._game(game_id)
            if game["status"] != "current":
                status = game["status"]
                raise StoreUsageError(f"game {game_id!r} is {status}: cannot finish it again")
            game.update(status="finished", finished=now, record=text)
            # Events are no longer needed once the record is kept; freeing them bounds memory.
            game["events"] = []

    def _summary(self, gid: int) -> dict[str, Any]:
        game = self._games[gid]
        record = game["record"]
        return {
            "id": gid,
            "status": game["status"],
            "meta": load(game["meta"]),
            "started": game["started"],
            "finished": game["finished"],
            "result": None if record is None else result_of(load(record)),
        }

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Summaries, newest first: id, status, meta, started, finished (epoch s), result."""
        if limit < 0 or offset < 0:
            raise StoreUsageError(f"limit and offset must be >= 0, got {limit!r}, {offset!r}")
        with self._lock:
            self._open()
            ids = sorted(self._games, reverse=True)[offset : offset + limit]
            return [self._summary(gid) for gid in ids]

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """A finished game's record; else its summary with `events`; None if unknown."""
        with self._lock:
            self._open()
            game = self._games.get(game_id)
            if game is None:
                return None
            if game["record"] is not None:
                record: dict[str, Any] = load(game["record"])
                return record
            out = self._summary(game_id)
            out["events"] = [load(e) for e in game["events"]]
            return out

    def add_counts(self, day: str, counts: dict[str, int]) -> None:
        """Add `counts` to the counters of `day`."""
        check_counts(day, counts)
        with self._lock:
            self._open()
            mine = self._counts.setdefault(day, {})
            for key, n in counts.items():
                if n:
                    mine[key] = mine.get(key, 0) + n

    def get_counts(self, first: str, last: str) -> dict[str, dict[str, int]]:
        """The counters of the days from `first` to `last` (inclusive)."""
        with self._lock:
            self._open()
            return {d: dict(c) for d, c in sorted(self._counts.items()) if first <= d <= last}

    def commit(self, writes: Writes) -> None:
        """One step's writes, all or none (checked before any is made)."""
        for day, counts in writes.counts.items():
            check_counts(day, counts)
        texts = [dump(e, "event") for _, e in writes.events]
        texts += [dump(r, "game record") for _, r in writes.finished]
        metas = {gid: dump(meta, "game meta") for gid, meta in writes.begun}
        if writes.settings is not None:
            dump(writes.settings, "settings")
        with self._lock:
            self._open()
            for gid in metas:
                if gid in self._games:
                    raise StoreUsageError(f"game {gid!r} exists already: cannot begin it again")
            for gid in {gid for gid, _ in (*writes.events, *writes.finished)} - set(metas):
                status = self._game(gid)["status"]
                if status != "current":
                    raise StoreUsageError(f"game {gid!r} is {status}: cannot write to it")
        now = self._clock.wall()
        for game in writes.games():
            if game.meta is not None:
                with self._lock:
                    self._begin(game.game_id, metas[game.game_id], now)
            for event in game.events:
                self.append_event(game.game_id, event)
            if game.record is not None:
                self.finish_game(game.game_id, game.record)
        if writes.settings is not None:
            self.save_settings(writes.settings)
        for day, counts in writes.counts.items():
            self.add_counts(day, counts)

    def close(self) -> None:
        """Nothing to flush; later calls raise `StoreError`; idempotent."""
        self.closed = True

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "MemoryStore()"
