"""Authentication failures: rate-limited per peer, for the whole board and per day; summed.

Every way to gain control over a network door (the token, the staff PIN, a session ticket)
goes through one `AuthLimiter`, and a **right secret is never refused by it**: the secret is
compared first (in constant time) and only *failures* spend from the buckets. An attempt
*within the limits* (its peer's bucket, the global one and the daily one each have a failure
left) is answered at once. One *over* them:

- a token or ticket (unguessable: 128 bits and more) is answered at once too: a right one
  gets in, a wrong one is answered `rate_limited` and not charged;
- a PIN (8 digits: guessable) **waits its turn** (`TurnGate`): at least one second, then in
  arrival order, one at a time, `global_rate` a second while the daily bucket has a failure
  left and `slow_rate` a second once it is spent; then it is compared, and a right PIN gets
  in. Waiting costs the guesser a held connection, never a CPU, and a connection that goes
  away while it waits has nothing compared.

So whatever the number of addresses and MQTT names, at most `daily` failures a day are
checked at once or in the fast lane, plus `slow_rate` a second after that: 5,000 + 17,280 =
22,280 a day, and the shipped 8-digit PIN takes over 6 years on average to find (docs/api.md,
"Access"); meanwhile the staff's right PIN waits about a second plus one turn per guessing
connection ahead of it. Failures and waits are logged as one summary line per
`log_interval` seconds (a flood must not write a line per guess: 110 MB a day of journal).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from collections.abc import Callable

from kiothi_board.clock import Clock

__all__ = ["AuthLimiter", "TurnGate", "peer_host"]

log = logging.getLogger(__name__)

_MAX_PEERS = 4096  # buckets kept; the fullest (idle) ones are forgotten first


def peer_host(peer: str) -> str:
    """The address part of a peer ("127.0.0.1:5123" → "127.0.0.1", "[::1]:80" → "::1")."""
    if peer.startswith("["):
        return peer[1:].split("]", 1)[0]
    if peer.count(":") == 1:
        return peer.rsplit(":", 1)[0]
    return peer


class _Bucket:
    __slots__ = ("last", "tokens")

    def __init__(self, tokens: float, now: float) -> None:
        self.tokens = tokens
        self.last = now

    def refill(self, rate: float, burst: float, now: float) -> None:
        self.tokens = min(burst, self.tokens + (now - self.last) * rate)
        self.last = now


class AuthLimiter:
    """Token buckets of allowed *failures*: per peer, global and daily; the pace of turns.

    `clock.now()` is monotonic seconds (a FakeClock in tests). See the module docstring.
    """

    def __init__(
        self,
        *,
        rate: float = 1.0,
        burst: float = 5.0,
        global_rate: float = 10.0,
        global_burst: float = 20.0,
        daily: float = 5000.0,
        slow_rate: float = 0.2,
        clock: Clock,
        log_interval: float = 60.0,
    ) -> None:
        """Full buckets."""
        self._rate = rate
        self._burst = burst
        self._grate = global_rate
        self._gburst = global_burst
        self._drate = daily / 86400.0
        self._dburst = daily
        self._slow = slow_rate
        self._clock = clock
        self._log_interval = log_interval
        self._lock = threading.Lock()
        now = clock.now()
        self._global = _Bucket(global_burst, now)
        self._daily = _Bucket(daily, now)
        self._peers: dict[str, _Bucket] = {}
        self.failures = 0
        self.limited = 0
        self._unlogged: Counter[str] = Counter()
        self._hosts: set[str] = set()
        self._last_host = ""
        self._next_log = now

    def _bucket(self, host: str, now: float) -> _Bucket:
        bucket = self._peers.get(host)
        if bucket is None:
            if len(self._peers) >= _MAX_PEERS:
                for key, old in list(self._peers.items()):
                    old.refill(self._rate, self._burst, now)
                    if old.tokens >= self._burst:
                        del self._peers[key]
                if len(self._peers) >= _MAX_PEERS:  # all busy: forget the oldest
                    del self._peers[next(iter(self._peers))]
            bucket = self._peers[host] = _Bucket(self._burst, now)
        bucket.refill(self._rate, self._burst, now)
        return bucket

    def allow(self, peer: str) -> bool:
        """Whether an attempt from `peer` is within the limits (its failure may be charged
        now); counts one over them if not."""
        host = peer_host(peer)
        with self._lock:
            now = self._clock.now()
            self._global.refill(self._grate, self._gburst, now)
            self._daily.refill(self._drate, self._dburst, now)
            ok = (
                self._global.tokens >= 1.0
                and self._daily.tokens >= 1.0
                and self._bucket(host, now).tokens >= 1.0
            )
            if not ok:
                self.limited += 1
                self._note("over the limits", host, now)
            return ok

    def turn_interval(self) -> float:
        """Seconds between two turns of attempts that wait (`TurnGate`): the global rate's
        while the daily bucket has a failure left, the slow rate's once it is spent."""
        with self._lock:
            self._daily.refill(self._drate, self._dburst, self._clock.now())
            fast = self._daily.tokens >= 1.0
        return 1.0 / (self._grate if fast else self._slow)

    def failed(self, peer: str, what: str) -> None:
        """Spend one failure from `peer`'s, the global and the daily bucket, and sum it."""
        host = peer_host(peer)
        with self._lock:
            now = self._clock.now()
            for bucket, rate, burst in (
                (self._global, self._grate, self._gburst),
                (self._daily, self._drate, self._dburst),
            ):
                bucket.refill(rate, burst, now)
                bucket.tokens = max(0.0, bucket.tokens - 1.0)
            mine = self._bucket(host, now)
            mine.tokens = max(0.0, mine.tokens - 1.0)
            self.failures += 1
            self._note(f"wrong {what}", host, now)

    def _note(self, what: str, host: str, now: float) -> None:
        """Count one failure or refusal; log the sums once per interval (lock held)."""
        self._unlogged[what] += 1
        self._hosts.add(host)
        self._last_host = host
        if now >= self._next_log:
            self._next_log = now + self._log_interval
            self._summary()

    def flush(self) -> None:
        """Log what was counted since the last summary (at shutdown)."""
        with self._lock:
            if self._unlogged:
                self._summary()

    def _summary(self) -> None:
        host = self._last_host
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(self._unlogged.items()))
        log.warning(
            "api: authentication: %s from %d address(es) since the last summary "
            "(last from %s; %d failures in all)",
            parts,
            len(self._hosts),
            host,
            self.failures,
        )
        self._unlogged.clear()
        self._hosts.clear()

    def health(self) -> dict[str, int]:
        """Counters for `health`."""
        with self._lock:
            return {"failures": self.failures, "limited": self.limited}


class TurnGate:
    """Attempts over the limits wait here: each at least `wait` seconds, then one at a time
    in arrival order, `limiter.turn_interval()` apart (on the API's asyncio loop).

    Only live waiters take a turn: one whose connection went away is skipped at once, so
    connections opened and dropped by a guesser cannot push the staff's turn back.
    """

    def __init__(self, limiter: AuthLimiter, wait: float = 1.0) -> None:
        """A gate pacing by `limiter`'s rates."""
        self._limiter = limiter
        self.wait = wait
        self._lock: asyncio.Lock | None = None
        self._next = 0.0
        self.waiting = 0

    async def turn(self, alive: Callable[[], bool] = lambda: True) -> bool:
        """Wait for a turn; whether the waiter is still `alive()` to use it."""
        self.waiting += 1
        try:
            await asyncio.sleep(self.wait)
            if self._lock is None:
                self._lock = asyncio.Lock()  # FIFO: waiters are woken in arrival order
            async with self._lock:
                if not alive():
                    return False
                loop = asyncio.get_running_loop()
                delay = self._next - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                self._next = loop.time() + self._limiter.turn_interval()
                return alive()
        finally:
            self.waiting -= 1
