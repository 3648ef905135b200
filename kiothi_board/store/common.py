"""Helpers shared by the store backends: canonical JSON and timestamps."""

from __future__ import annotations

import json
from typing import Any

from kiothi_board.errors import StoreUsageError
from kiothi_board.store.base import Writes

__all__ = ["GameTexts", "check_counts", "dump", "game_texts", "load", "result_of"]


def dump(value: Any, what: str) -> str:
    """Canonical JSON (sorted keys, no NaN) of a settings/meta/event/record value."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreUsageError(f"{what} is not JSON-able ({exc}): {value!r:.200}") from exc


def load(text: str | bytes) -> Any:
    """Parse JSON written by `dump`."""
    return json.loads(text)


def result_of(record: dict[str, Any]) -> Any:
    """The `result` of a `kiothi-game/1` record (None if it has none)."""
    return record.get("result") if isinstance(record, dict) else None


def check_counts(day: str, counts: dict[str, int]) -> None:
    """Refuse a malformed `add_counts` call (the store is left unchanged)."""
    import datetime

    try:
        ok_day = isinstance(day, str) and datetime.date.fromisoformat(day).isoformat() == day
    except ValueError:
        ok_day = False
    if not ok_day:
        raise StoreUsageError(f"counter day must be an ISO date like '2026-05-01', got {day!r}")
    for key, n in counts.items():
        if not isinstance(key, str) or not key or len(key) > 64:
            raise StoreUsageError(f"counter key must be a string of 1-64 characters, got {key!r}")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise StoreUsageError(f"counter {key!r} increment must be an int >= 0, got {n!r}")


GameTexts = tuple[int, str | None, list[tuple[dict[str, Any], str]], str | None]


def game_texts(writes: Writes) -> list[GameTexts]:
    """A step's game writes in order (`Writes.games`), dumped and checked before any is made:
    (game id, meta text or None, [(event, text)], record text or None)."""
    out: list[GameTexts] = []
    for g in writes.games():
        meta = None if g.meta is None else dump(g.meta, "game meta")
        record = None if g.record is None else dump(g.record, "game record")
        out.append((g.game_id, meta, [(e, dump(e, "event")) for e in g.events], record))
    return out
