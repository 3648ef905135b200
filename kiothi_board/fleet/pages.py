"""What the dashboard holds for each open page: a byte budget, not a count of updates.

A page that does not read (a stuck browser, a hostile client) must cost a bounded amount
of memory: its updates wait in a `PageOutbox` of at most `PAGE_BUDGET` bytes; when the next
one would not fit, everything waiting is dropped and the page gets the whole table again
once it reads (its tiles are then up to date, and nothing was lost that matters). Each
update is encoded once for every page (`Encoder`), not once per page.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Any

__all__ = ["PAGE_BUDGET", "Encoder", "PageOutbox"]

PAGE_BUDGET = 512 * 1024
"""Bytes of updates one page may have waiting (a tile is at most about 480 KiB: five
retained topics of 64 KiB and twenty events of 8 KiB; a real one is about 6 KB)."""


class Encoder:
    """JSON text of an update, encoded once: every page's listener gets the same dict in turn."""

    def __init__(self) -> None:
        self._last: Any = None
        self._text = ""

    def __call__(self, update: dict[str, Any]) -> str:
        if update is not self._last:
            self._text = json.dumps(update, separators=(",", ":"))
            self._last = update
        return self._text


class PageOutbox:
    """The updates waiting for one page (on the dashboard's asyncio loop: no locks)."""

    def __init__(self, budget: int = PAGE_BUDGET) -> None:
        self.budget = budget
        self._lines: deque[str] = deque()
        self.nbytes = 0
        self.stale = False  # updates were dropped: send the whole table next
        self.resets = 0
        self._ready = asyncio.Event()

    def put(self, text: str) -> None:
        """Queue one update; over the budget, drop everything and mark the page stale."""
        if self.stale:
            return  # the whole table is coming: it holds this update too
        if self.nbytes + len(text) > self.budget:
            self._lines.clear()
            self.nbytes = 0
            self.stale = True
            self.resets += 1
        else:
            self._lines.append(text)
            self.nbytes += len(text)
        self._ready.set()

    async def get(self) -> str | None:
        """The next update, or None: send the whole table (and the outbox is empty again)."""
        while not self._lines and not self.stale:
            self._ready.clear()
            await self._ready.wait()
        if self.stale:
            self.stale = False
            return None
        text = self._lines.popleft()
        self.nbytes -= len(text)
        return text
