"""Authentication failures: rate-limited per peer and for the whole board, logged, counted.

Every way to gain control over a network door (the token, the staff PIN, a session ticket)
goes through one `AuthLimiter`. Only *failures* spend from the buckets, so a client with the
right secret is never slowed down while its peer's bucket has a token left. When a bucket is
empty the attempt is refused unchecked (`rate_limited`): guessing costs wall-clock time, not
just round trips. Each checked failure is logged (the peer and what was tried, never the
secret); refusals are summed and logged at most once per `log_interval` seconds.
"""

from __future__ import annotations

import logging
import threading

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
    """Token buckets of allowed *failures*: one per peer address and one global.

    `rate`/`burst` per peer address (all ports of a host share one), `global_rate` and
    `global_burst` for everyone together. `clock.now()` is monotonic seconds (a FakeClock in tests).
    """

    def __init__(
        self,
        *,
        rate: float = 1.0,
        burst: float = 5.0,
        global_rate: float = 10.0,
        global_burst: float = 20.0,
        clock: Clock,
        log_interval: float = 10.0,
    ) -> None:
        """Full buckets."""
        self._rate = rate
        self._burst = burst
        self._grate = global_rate
        self._gburst = global_burst
        self._clock = clock
        self._log_interval = log_interval
        self._lock = threading.Lock()
        now = clock.now()
        self._global = _Bucket(global_burst, now)
        self._peers: dict[str, _Bucket] = {}
        self.failures = 0
        self.limited = 0
        self._limited_unlogged = 0
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
        """Whether an attempt from `peer` may be checked now; counts a refusal if not."""
        host = peer_host(peer)
        with self._lock:
            now = self._clock.now()
            self._global.refill(self._grate, self._gburst, now)
            ok = self._global.tokens >= 1.0 and self._bucket(host, now).tokens >= 1.0
            if not ok:
                self.limited += 1
                self._limited_unlogged += 1
                if now >= self._next_log:
                    self._next_log = now + self._log_interval
                    count, self._limited_unlogged = self._limited_unlogged, 0
                    log.warning(
                        "api: %d authentication attempt(s) refused unchecked "
                        "(rate limit; last from %s)",
                        count,
                        host,
                    )
            return ok

    def failed(self, peer: str, what: str) -> None:
        """Spend one failure from `peer`'s bucket and the global one, and log it."""
        host = peer_host(peer)
        with self._lock:
            now = self._clock.now()
            self._global.refill(self._grate, self._gburst, now)
            self._global.tokens = max(0.0, self._global.tokens - 1.0)
            bucket = self._bucket(host, now)
            bucket.tokens = max(0.0, bucket.tokens - 1.0)
            self.failures += 1
            total = self.failures
        log.warning("api: authentication failure from %s: wrong %s (%d in all)", peer, what, total)

    def health(self) -> dict[str, int]:
        """Counters for `health`."""
        with self._lock:
            return {"failures": self.failures, "limited": self.limited}
