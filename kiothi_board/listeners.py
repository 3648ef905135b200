"""A thread-safe list of event listeners, shared by the controller and the API's services."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

Listener = Callable[[dict[str, Any]], None]


class Listeners:
    """Callbacks that receive event dicts; add, remove and emit from any thread."""

    def __init__(self) -> None:
        """An empty list."""
        self._lock = threading.Lock()
        self._items: list[Listener] = []

    def add(self, listener: Listener) -> None:
        """Send every later event to `listener`."""
        with self._lock:
            self._items.append(listener)

    def remove(self, listener: Listener) -> None:
        """Stop sending events to `listener` (nothing happens if it was not added)."""
        with self._lock:
            if listener in self._items:
                self._items.remove(listener)

    def emit(self, event: dict[str, Any]) -> None:
        """Call every listener with `event`, outside the lock (a listener may remove itself)."""
        with self._lock:
            items = list(self._items)
        for fn in items:
            fn(event)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __len__(self) -> int:
        return len(self._items)
