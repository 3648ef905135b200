"""Helpers shared by the store backends: canonical JSON and timestamps."""

from __future__ import annotations

import json
from typing import Any

from kiothi_board.errors import StoreUsageError

__all__ = ["dump", "load", "result_of"]


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
