"""An in-memory `GameStore` for tests, benchmarks and the simulator (nothing survives exit)."""

from __future__ import annotations

import copy
import json
import threading
import time
from typing import Any

from kiothi_board.store.common import check_counts

__all__ = ["MemoryStore"]


class MemoryStore:
    """Implements the `GameStore` protocol in dictionaries; deep-copies in and out.

    Copies matter: a caller mutating an event dict after `append_event` must not change
    what was stored, just as with a database.
    """

    def __init__(self) -> None:
        """An empty store."""
        self._lock = threading.Lock()
        self._settings: dict[str, Any] = {}
        self._games: dict[int, dict[str, Any]] = {}
        self._next = 1
        self._current: int | None = None
        self._counts: dict[str, dict[str, int]] = {}
        self.closed = False

    def load_settings(self) -> dict[str, Any]:
        """The saved settings (empty when none were saved)."""
        with self._lock:
            return copy.deepcopy(self._settings)

    def save_settings(self, settings: dict[str, Any]) -> None:
        """Replace the saved settings."""
        with self._lock:
            self._settings = copy.deepcopy(settings)

    def begin_game(self, meta: dict[str, Any]) -> int:
        """Start a new current game (an unfinished previous one stays listed, unfinished)."""
        with self._lock:
            gid = self._next
            self._next += 1
            self._games[gid] = {
                "id": gid,
                "meta": copy.deepcopy(meta),
                "events": [],
                "started": time.time(),
                "finished": None,
                "record": None,
            }
            self._current = gid
            return gid

    def append_event(self, game_id: int, event: dict[str, Any]) -> int:
        """Append an event to a game; its sequence number (1, 2, …)."""
        with self._lock:
            game = self._game(game_id)
            if game["finished"] is not None:
                raise ValueError(f"game {game_id} is finished; cannot append {event!r}")
            # Kept as JSON text: compact, and immune to the caller mutating its dict later.
            game["events"].append(json.dumps(event, separators=(",", ":")))
            return len(game["events"])

    def current_game(self) -> tuple[int, dict[str, Any], list[dict[str, Any]]] | None:
        """The unfinished current game: `(id, meta, events)`, or None."""
        with self._lock:
            if self._current is None:
                return None
            game = self._games[self._current]
            events = [json.loads(e) for e in game["events"]]
            return game["id"], copy.deepcopy(game["meta"]), events

    def finish_game(self, game_id: int, record: dict[str, Any]) -> None:
        """Store a game's final record and close it."""
        with self._lock:
            game = self._game(game_id)
            game["record"] = copy.deepcopy(record)
            game["finished"] = time.time()
            # Events are no longer needed once the record is kept; freeing them bounds memory.
            game["events"] = []
            if self._current == game_id:
                self._current = None

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Summaries, newest first: id, started, finished, result."""
        with self._lock:
            ids = sorted(self._games, reverse=True)[offset : offset + limit]
            out = []
            for gid in ids:
                g = self._games[gid]
                rec = g["record"]
                out.append(
                    {
                        "id": gid,
                        "started": g["started"],
                        "finished": g["finished"],
                        "result": None if rec is None else copy.deepcopy(rec.get("result")),
                    }
                )
            return out

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """A finished game's record, or a current game's meta and events; None if unknown."""
        with self._lock:
            g = self._games.get(game_id)
            if g is None:
                return None
            if g["record"] is not None:
                record: dict[str, Any] = copy.deepcopy(g["record"])
                return record
            return {
                "id": game_id,
                "meta": copy.deepcopy(g["meta"]),
                "events": [json.loads(e) for e in g["events"]],
            }

    def add_counts(self, day: str, counts: dict[str, int]) -> None:
        """Add `counts` to the counters of `day`."""
        check_counts(day, counts)
        with self._lock:
            mine = self._counts.setdefault(day, {})
            for key, n in counts.items():
                if n:
                    mine[key] = mine.get(key, 0) + n

    def get_counts(self, first: str, last: str) -> dict[str, dict[str, int]]:
        """The counters of the days from `first` to `last` (inclusive)."""
        with self._lock:
            return {d: dict(c) for d, c in sorted(self._counts.items()) if first <= d <= last}

    def close(self) -> None:
        """Nothing to flush; idempotent."""
        self.closed = True

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _game(self, game_id: int) -> dict[str, Any]:
        game = self._games.get(game_id)
        if game is None:
            raise KeyError(f"unknown game id {game_id!r}")
        return game
