"""The one listener mechanism: a thread-safe list of callbacks with one error policy.

Every event stream of the package (the session's typed notices, the presenter's API
events) is a `Listeners`. A listener that raises is logged with its traceback and the
others still run: a broken subscriber never stops the game.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["Listener", "Listeners"]

log = logging.getLogger(__name__)

T = TypeVar("T")

Listener = Callable[[dict[str, Any]], None]
"""A listener of API event dicts (the presenter's stream)."""


class Listeners(Generic[T]):
    """Callbacks that receive events of type T; add, remove and emit from any thread."""

    def __init__(self, name: str = "events") -> None:
        """An empty list; `name` appears in the log line of a failing listener."""
        self._name = name
        self._lock = threading.Lock()
        self._items: tuple[Callable[[T], None], ...] = ()

    def add(self, listener: Callable[[T], None]) -> None:
        """Send every later event to `listener`."""
        with self._lock:
            self._items = (*self._items, listener)

    def remove(self, listener: Callable[[T], None]) -> None:
        """Stop sending events to `listener` (nothing happens if it was not added)."""
        with self._lock:
            items = list(self._items)
            if listener in items:
                items.remove(listener)
            self._items = tuple(items)

    def emit(self, event: T) -> None:
        """Call every listener with `event` (a listener may remove itself meanwhile)."""
        for fn in self._items:
            try:
                fn(event)
            except Exception:
                log.exception("a listener of %s failed on %r; the game goes on", self._name, event)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __len__(self) -> int:
        return len(self._items)
