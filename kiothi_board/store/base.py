"""The `GameStore` protocol shared by the SQLite and Redis stores, and `Writes`: what one
step of the board writes, committed as one transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["CountStore", "GameStore", "GameWrites", "StoreHealth", "Writes"]


@dataclass
class Writes:
    """The durable writes one step of the board decided, in the order they happened:
    games begun (`(game id, meta)`: the journal hands out the id), events appended and games
    finished (`(game id, data)`), settings saved, and counters added per day. A store
    commits them all in one transaction, or none."""

    begun: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    finished: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    settings: dict[str, Any] | None = None
    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def add_counts(self, day: str, counts: dict[str, int]) -> None:
        """Add `counts` (key -> increment) to the day's counters."""
        mine = self.counts.setdefault(day, {})
        for key, n in counts.items():
            if n:
                mine[key] = mine.get(key, 0) + n

    def games(self) -> list[GameWrites]:
        """The game writes in the order they happened: by game id (a game begun in a step
        comes after every write to the games before it), each its begin, events, finish."""
        out: dict[int, GameWrites] = {}
        for gid, meta in self.begun:
            out.setdefault(gid, GameWrites(gid)).meta = meta
        for gid, event in self.events:
            out.setdefault(gid, GameWrites(gid)).events.append(event)
        for gid, record in self.finished:
            out.setdefault(gid, GameWrites(gid)).record = record
        return [out[gid] for gid in sorted(out)]

    def __bool__(self) -> bool:
        return bool(
            self.begun or self.events or self.finished or self.settings is not None or self.counts
        )


@dataclass
class GameWrites:
    """One game's part of a step's writes: begun (with its meta), events, finished."""

    game_id: int
    meta: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None


@runtime_checkable
class GameStore(Protocol):
    """Durable storage for settings, finished game records and the current game's events.

    Every write is committed before the call returns, so a kill at any instant loses
    nothing that a call had already returned for. Events are JSON-able dicts; the
    controller rebuilds its state (game and guide step) by replaying them.
    """

    def load_settings(self) -> dict[str, Any]:
        """The saved settings (empty when none were saved)."""
        ...

    def save_settings(self, settings: dict[str, Any]) -> None:
        """Replace the saved settings."""
        ...

    def begin_game(self, meta: dict[str, Any]) -> int:
        """Start a new current game with its metadata (mode, sides, level, pace…); its id."""
        ...

    def next_game_id(self) -> int:
        """The id the next game will have (one more than any game's the store ever held)."""
        ...

    def append_event(self, game_id: int, event: dict[str, Any]) -> int:
        """Append an event to a game; returns its sequence number (1, 2, …)."""
        ...

    def current_game(self) -> tuple[int, dict[str, Any], list[dict[str, Any]]] | None:
        """The unfinished current game: `(id, meta, events in order)`, or None."""
        ...

    def finish_game(self, game_id: int, record: dict[str, Any]) -> None:
        """Store a game's final record (a `kiothi-game/1` object) and close it."""
        ...

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Summaries of stored games, newest first: id, started, finished, result."""
        ...

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """One game's record (finished) or its meta and events (current); None if unknown."""
        ...

    def commit(self, writes: Writes) -> None:
        """Commit every write of one step in one transaction: all of them, or none (then a
        StoreError, and the store is as it was)."""
        ...

    def close(self) -> None:
        """Flush and close; idempotent."""
        ...


@runtime_checkable
class CountStore(Protocol):
    """Per-day counters kept with the games (the exhibition's statistics): presses per pit,
    wrong presses, hints, faults. Each `add_counts` is committed before it returns."""

    def add_counts(self, day: str, counts: dict[str, int]) -> None:
        """Add `counts` (key -> increment) to the counters of `day` (an ISO date)."""
        ...

    def get_counts(self, first: str, last: str) -> dict[str, dict[str, int]]:
        """The counters of the days from `first` to `last` (ISO dates, inclusive)."""
        ...


@runtime_checkable
class StoreHealth(Protocol):
    """A store that can say what staff must know about it (damage found, writes failing)."""

    def health(self) -> dict[str, Any]:
        """`status` ("ok" or "degraded"), `problems` (one line each) and details."""
        ...
