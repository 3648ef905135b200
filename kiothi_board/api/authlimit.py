"""Authentication failures: rate-limited per peer, for the whole board and per day; summed.

Every way to gain control over a network door (the token, the staff PIN, a session ticket)
goes through one `AuthLimiter`. Only *failures* spend from the buckets, so a client with the
right secret is never slowed down while its buckets have a token left. When a bucket is
empty the attempt is refused unchecked (`rate_limited`): guessing costs wall-clock time, not
just round trips.

The buckets: one per peer address (`rate` after `burst`), one for everyone (`global_rate`,
bursts of `global_burst`) and a **daily** one (`daily` failures a day, refilled evenly), which
bounds what any number of addresses and MQTT names can try: 5,000 a day plus the clean
bucket's 17,280 (22,280 a day at most), so the shipped 8-digit PIN takes over 6 years on
average to find (docs/api.md, "Access").

A peer with no failure in the last `clean_after` seconds is **clean**: its attempt is checked
from a bucket of its own (`clean_rate` after `clean_burst`), ahead of the flood, so staff on
their own device get in while others guess; a failure makes the peer dirty and spends from the
flood's buckets too. Failures and refusals are logged as one summary line per `log_interval`
seconds (a flood must not write a line per guess: 110 MB a day of journal).
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, OrderedDict

from kiothi_board.clock import Clock

__all__ = ["AuthLimiter", "peer_host"]

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
    """Token buckets of allowed *failures*: per peer, global, daily, and one for clean peers.

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
        clean_rate: float = 0.2,
        clean_burst: float = 30.0,
        clean_after: float = 3600.0,
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
        self._crate = clean_rate
        self._cburst = clean_burst
        self._clean_after = clean_after
        self._clock = clock
        self._log_interval = log_interval
        self._lock = threading.Lock()
        now = clock.now()
        self._global = _Bucket(global_burst, now)
        self._daily = _Bucket(daily, now)
        self._clean = _Bucket(clean_burst, now)
        self._peers: dict[str, _Bucket] = {}
        self._dirty: OrderedDict[str, float] = OrderedDict()  # host -> its last failure
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

    def _is_clean(self, host: str, now: float) -> bool:
        failed_at = self._dirty.get(host)
        return failed_at is None or now - failed_at >= self._clean_after

    def allow(self, peer: str) -> bool:
        """Whether an attempt from `peer` may be checked now; counts a refusal if not."""
        host = peer_host(peer)
        with self._lock:
            now = self._clock.now()
            self._global.refill(self._grate, self._gburst, now)
            self._daily.refill(self._drate, self._dburst, now)
            self._clean.refill(self._crate, self._cburst, now)
            if self._is_clean(host, now):
                ok = self._clean.tokens >= 1.0
            else:
                ok = (
                    self._global.tokens >= 1.0
                    and self._daily.tokens >= 1.0
                    and self._bucket(host, now).tokens >= 1.0
                )
            if not ok:
                self.limited += 1
                self._note("refused unchecked", host, now)
            return ok

    def failed(self, peer: str, what: str) -> None:
        """Spend one failure from `peer`'s buckets (the clean one if it was clean) and sum it."""
        host = peer_host(peer)
        with self._lock:
            now = self._clock.now()
            if self._is_clean(host, now):
                self._clean.tokens = max(0.0, self._clean.tokens - 1.0)
            for bucket, rate, burst in (
                (self._global, self._grate, self._gburst),
                (self._daily, self._drate, self._dburst),
            ):
                bucket.refill(rate, burst, now)
                bucket.tokens = max(0.0, bucket.tokens - 1.0)
            mine = self._bucket(host, now)
            mine.tokens = max(0.0, mine.tokens - 1.0)
            self._dirty[host] = now
            self._dirty.move_to_end(host)
            while len(self._dirty) > _MAX_PEERS:
                self._dirty.popitem(last=False)
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
