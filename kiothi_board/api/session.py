"""A client's session with the dispatcher: its role, subscriptions, rate limit and outbox."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from kiothi_board.api.budget import Outbox
from kiothi_board.clock import Clock, SystemClock

__all__ = ["ClientSession", "RateLimiter"]


class RateLimiter:
    """A token bucket: `rate` requests a second on average, bursts of up to `burst`."""

    def __init__(self, rate: float, burst: float, clock: Clock | None = None) -> None:
        """A full bucket."""
        self._rate = rate
        self._burst = burst
        self._clock = clock or SystemClock()
        self._tokens = burst
        self._last = self._clock.now()

    def allow(self) -> bool:
        """Take a token if there is one."""
        now = self._clock.now()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class ClientSession:
    """One client of one transport: its role, subscriptions, rate limit and outbox."""

    _ids = itertools.count(1)

    def __init__(
        self,
        transport: str,
        peer: str,
        *,
        role: str,
        outbox: Outbox,
        limiter: RateLimiter,
    ) -> None:
        """Made by `Dispatcher.open_session`."""
        self.id = next(ClientSession._ids)
        self.transport = transport
        self.peer = peer
        self.role = role
        self.outbox = outbox
        self.limiter = limiter
        self.topics: frozenset[str] = frozenset()
        self.client: str | None = None
        self.closed = False
        self.locked = False  # a page of a foreign Origin: may never take control
        self.lang: str | None = None  # its words' language (None: the board's current one)
        self.seat: str | None = None  # a remote player's seat: the side it plays ("S", "N")
        self.seat_ticket: str | None = None  # its session ticket: a newer link retires it
        # Why this door takes no secret (MQTT: everyone on the broker may read the bus), or
        # None: a token, PIN or ticket sent here would be readable by others.
        self.no_secrets: str | None = None
        # A door on the API's loop may let a PIN over the limits wait its turn (`can_wait`);
        # `held` says the last request did, `alive` whether the client is still there.
        self.dropped_run = 0  # malformed lines dropped since its last request (lines.py)
        self.can_wait = False
        self.held = False
        self.alive: Callable[[], bool] = lambda: not self.closed

    def __repr__(self) -> str:
        return f"ClientSession({self.transport!r}, {self.peer!r}, role={self.role!r}, id={self.id})"
