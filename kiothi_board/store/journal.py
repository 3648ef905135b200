"""The journal: the writes a step of the board has decided, until the board loop commits them.

The game's parts write here instead of to the store, so that one step (a press, a tick, a
command) costs one transaction however many games begun, events, counters and finishes it
made, and the loop decides when it is committed (after the rings change, before anyone is
told: see docs/architecture.md). A game's id is handed out here (seeded from the store when
the journal opens), so a game start is written with its step too. Reads go to the store.

A commit the store cannot make (a full disk, an unplugged Redis) keeps the writes and is
tried again with the next step, so the board plays on and loses nothing it can still write;
`failure` says why until a commit succeeds. A write the store refuses as wrong (a game that
is not current) is a bug, not a disk: it is dropped, so that it cannot block every later
write, and the refusal is raised to be logged.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kiothi_board.errors import StoreError, StoreUsageError
from kiothi_board.store.base import GameStore, Writes

__all__ = ["Journal"]


class Journal:
    """Pending writes for `store`; `commit()` makes them one transaction."""

    def __init__(self, store: GameStore) -> None:
        """Journal writes for `store` (which the caller owns and closes)."""
        self.store = store
        self._pending = Writes()
        self.failure: StoreError | None = None
        self.commits = 0
        self._next_game: int | None = None
        with contextlib.suppress(StoreError):  # unreachable now: asked at the first game
            self._next_game = store.next_game_id()

    @property
    def pending(self) -> bool:
        """Whether anything waits to be committed."""
        return bool(self._pending)

    def append_event(self, game_id: int, event: dict[str, Any]) -> None:
        """Append a game event (committed with the step)."""
        self._pending.events.append((game_id, event))

    def finish_game(self, game_id: int, record: dict[str, Any]) -> None:
        """Store a game's final record (committed with the step)."""
        self._pending.finished.append((game_id, record))

    def save_settings(self, settings: dict[str, Any]) -> None:
        """Replace the saved settings (committed with the step)."""
        self._pending.settings = settings

    def add_counts(self, day: str, counts: dict[str, int]) -> None:
        """Add to a day's counters (committed with the step)."""
        self._pending.add_counts(day, counts)

    def begin_game(self, meta: dict[str, Any]) -> int:
        """Start a game with its metadata (committed with the step); its id."""
        if self._next_game is None:
            self._next_game = self.store.next_game_id()
        game_id = self._next_game
        self._next_game += 1
        self._pending.begun.append((game_id, meta))
        return game_id

    def commit(self) -> None:
        """Commit what is pending in one transaction. A StoreError keeps it for the next
        commit (and is raised); a StoreUsageError drops it (and is raised)."""
        if not self._pending:
            return
        writes = self._pending
        try:
            self.store.commit(writes)
        except StoreUsageError:
            self._pending = Writes()
            raise
        except StoreError as exc:
            self.failure = exc
            raise
        self._pending = Writes()
        self.failure = None
        self.commits += 1
