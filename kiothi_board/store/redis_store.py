"""The optional Redis game store, on an injected redis-py client (`from_url` builds one).

Keys (prefix `kiothi:v1:` by default; the version in the prefix lets a future schema live
beside this one):

- `{prefix}schema` — string, the schema version ("1"); another value is refused.
- `{prefix}settings` — string, the settings as JSON.
- `{prefix}next_id` — integer counter for game ids (INCR).
- `{prefix}current` — string, the id of the current (unfinished) game; absent when none.
- `{prefix}games` — sorted set of game ids, scored by id (newest = highest).
- `{prefix}game:{id}` — hash: `status` (current | finished | abandoned), `meta` (JSON),
  `started`, `finished` (epoch seconds or ""), `record` (JSON, once finished).
- `{prefix}game:{id}:events` — list of the game's events as JSON; RPUSH's reply is the
  event's sequence number.
- `{prefix}counts:{day}` — hash of per-day counters (HINCRBY); `{prefix}count_days` — set
  of the days that have counters.

Durability is the server's: a write has returned once the server acknowledged it. For
the "survives a power cut" promise run Redis with `appendonly yes` and
`appendfsync always`. The store assumes one writer (the daemon); its own threads are
serialised by a lock. Every redis-py error is re-raised as `StoreError`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kiothi_board.clock import Clock, SystemClock
from kiothi_board.errors import StoreError, StoreUsageError, UnknownGameError
from kiothi_board.store.base import Writes
from kiothi_board.store.common import check_counts, dump, game_texts, load, result_of

__all__ = ["SCHEMA_VERSION", "RedisStore"]

SCHEMA_VERSION = "1"


def _is_redis_error(exc: BaseException) -> bool:
    # Checked by module so redis need not be imported here (fakeredis raises redis's too).
    return any(cls.__module__.split(".")[0] == "redis" for cls in type(exc).__mro__)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _time(value: Any) -> float | None:
    text = "" if value is None else _text(value)
    return float(text) if text else None


class RedisStore:
    """A `GameStore` in Redis (see the module docstring for the keys)."""

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = "kiothi:v1:",
        clock: Clock | None = None,
        owns_client: bool = False,
    ) -> None:
        """Use `client` (a `redis.Redis`); `owns_client=True` closes it on `close()`.

        `clock.wall()` stamps games (default: the system clock).

        Does not touch the server: a store made while Redis is down works once it is up.
        """
        if not prefix:
            raise ValueError("prefix must not be empty: the store shares its Redis database")
        self._r = client
        self.prefix = prefix
        self._wall_clock = (clock or SystemClock()).wall
        self._owns_client = owns_client
        self._lock = threading.RLock()
        self._closed = False
        self._schema_checked = False
        self.url: str | None = None

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = "kiothi:v1:",
        timeout: float = 2.0,
        clock: Clock | None = None,
    ) -> RedisStore:
        """A store on a new client for `url` (`redis://host:port/db`), closed with the store.

        Timeouts are short and retries few, so a dead server is reported within seconds
        instead of stalling the game loop.
        """
        import redis  # lazy: Redis is optional
        from redis.backoff import ExponentialBackoff
        from redis.retry import Retry

        try:
            client = redis.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 2),
            )
        except ValueError as exc:
            raise StoreError(f"bad Redis URL {url!r}: {exc}") from exc
        store = cls(client, prefix=prefix, clock=clock, owns_client=True)
        store.url = url
        return store

    # -- plumbing ---------------------------------------------------------------------------

    def _k(self, *parts: object) -> str:
        return self.prefix + ":".join(str(p) for p in parts)

    @contextmanager
    def _op(self, what: str) -> Iterator[Any]:
        with self._lock:
            if self._closed:
                raise StoreError(f"Redis game store {self.prefix!r} is closed")
            try:
                if not self._schema_checked:
                    self._check_schema()
                yield self._r
            except Exception as exc:
                if _is_redis_error(exc):
                    where = self.url or repr(self._r)
                    raise StoreError(f"Redis game store ({where}) failed {what}: {exc}") from exc
                raise

    def _check_schema(self) -> None:
        found = self._r.get(self._k("schema"))
        if found is None:
            self._r.set(self._k("schema"), SCHEMA_VERSION, nx=True)
        elif _text(found) != SCHEMA_VERSION:
            raise StoreError(
                f"Redis keys under {self.prefix!r} hold schema {_text(found)!r}, "
                f"this build reads {SCHEMA_VERSION!r}"
            )
        self._schema_checked = True

    def _status(self, r: Any, game_id: int) -> str:
        status = r.hget(self._k("game", game_id), "status")
        if status is None:
            raise UnknownGameError(f"no game with id {game_id!r}")
        return _text(status)

    # -- GameStore --------------------------------------------------------------------------

    def load_settings(self) -> dict[str, Any]:
        """The saved settings (empty when none were saved)."""
        with self._op("loading settings") as r:
            raw = r.get(self._k("settings"))
        return {} if raw is None else dict(load(raw))

    def save_settings(self, settings: dict[str, Any]) -> None:
        """Replace the saved settings."""
        text = dump(settings, "settings")
        with self._op("saving settings") as r:
            r.set(self._k("settings"), text)

    def begin_game(self, meta: dict[str, Any]) -> int:
        """Start a new current game; an unfinished previous one is marked abandoned."""
        text = dump(meta, "game meta")
        now = self._wall_clock()
        with self._op("starting a game") as r:
            previous = r.get(self._k("current"))
            game_id = int(r.incr(self._k("next_id")))
            pipe = r.pipeline(transaction=True)
            if previous is not None:
                pipe.hset(self._k("game", _text(previous)), "status", "abandoned")
            self._begin_in(pipe, game_id, text, now)
            pipe.execute()
        return game_id

    def next_game_id(self) -> int:
        """One more than the last game id handed out under this prefix."""
        with self._op("reading the next game id") as r:
            return int(r.get(self._k("next_id")) or 0) + 1

    def _begin_in(self, pipe: Any, game_id: int, text: str, now: float) -> None:
        pipe.hset(
            self._k("game", game_id),
            mapping={"status": "current", "meta": text, "started": repr(now), "finished": ""},
        )
        pipe.zadd(self._k("games"), {str(game_id): game_id})
        pipe.set(self._k("current"), str(game_id))

    def append_event(self, game_id: int, event: dict[str, Any]) -> int:
        """Append an event to the current game; returns its sequence number (1, 2, …)."""
        text = dump(event, "event")
        with self._op(f"appending to game {game_id}") as r:
            status = self._status(r, game_id)
            if status != "current":
                raise StoreUsageError(f"game {game_id!r} is {status}: cannot append {event!r:.200}")
            return int(r.rpush(self._k("game", game_id, "events"), text))

    def _events(self, r: Any, game_id: int) -> list[dict[str, Any]]:
        return [load(e) for e in r.lrange(self._k("game", game_id, "events"), 0, -1)]

    def current_game(self) -> tuple[int, dict[str, Any], list[dict[str, Any]]] | None:
        """The unfinished current game: `(id, meta, events in order)`, or None."""
        with self._op("reading the current game") as r:
            current = r.get(self._k("current"))
            if current is None:
                return None
            game_id = int(_text(current))
            meta = r.hget(self._k("game", game_id), "meta")
            if meta is None:  # a dangling pointer (keys deleted by hand): no current game
                return None
            return game_id, load(meta), self._events(r, game_id)

    def finish_game(self, game_id: int, record: dict[str, Any]) -> None:
        """Store a game's final record and close it (only the current game can be finished)."""
        text = dump(record, "game record")
        now = self._wall_clock()
        with self._op(f"finishing game {game_id}") as r:
            status = self._status(r, game_id)
            if status != "current":
                raise StoreUsageError(f"game {game_id!r} is {status}: cannot finish it again")
            pipe = r.pipeline(transaction=True)
            pipe.hset(
                self._k("game", game_id),
                mapping={"status": "finished", "finished": repr(now), "record": text},
            )
            pipe.delete(self._k("current"))
            pipe.execute()

    def _summary(self, game_id: int, h: dict[Any, Any]) -> dict[str, Any]:
        fields = {_text(k): v for k, v in h.items()}
        record = fields.get("record")
        return {
            "id": game_id,
            "status": _text(fields["status"]),
            "meta": load(fields["meta"]),
            "started": _time(fields.get("started")),
            "finished": _time(fields.get("finished")),
            "result": None if record is None else result_of(load(record)),
        }

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Summaries, newest first: id, status, meta, started, finished (epoch s), result."""
        if limit < 0 or offset < 0:
            raise StoreUsageError(f"limit and offset must be >= 0, got {limit!r}, {offset!r}")
        if limit == 0:
            return []
        with self._op("listing games") as r:
            ids = [int(_text(i)) for i in r.zrevrange(self._k("games"), offset, offset + limit - 1)]
            pipe = r.pipeline(transaction=False)
            for game_id in ids:
                pipe.hgetall(self._k("game", game_id))
            hashes = pipe.execute()
        return [self._summary(i, h) for i, h in zip(ids, hashes, strict=True) if h]

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """A finished game's record; else its summary with `events`; None if unknown."""
        with self._op(f"reading game {game_id}") as r:
            h = r.hgetall(self._k("game", game_id))
            if not h:
                return None
            summary = self._summary(game_id, h)
            record = {_text(k): v for k, v in h.items()}.get("record")
            if record is not None:
                finished: dict[str, Any] = load(record)
                return finished
            summary["events"] = self._events(r, game_id)
            return summary

    def add_counts(self, day: str, counts: dict[str, int]) -> None:
        """Add `counts` to the counters of `day` (one MULTI/EXEC)."""
        check_counts(day, counts)
        with self._op("adding counters") as r:
            pipe = r.pipeline(transaction=True)
            for key, n in counts.items():
                if n:
                    pipe.hincrby(self._k("counts", day), key, n)
            pipe.sadd(self._k("count_days"), day)
            pipe.execute()

    def commit(self, writes: Writes) -> None:
        """One step's writes in one MULTI/EXEC, or none of them."""
        if not writes:
            return
        games = game_texts(writes)
        settings = None if writes.settings is None else dump(writes.settings, "settings")
        for day, counts in writes.counts.items():
            check_counts(day, counts)
        now = self._wall_clock()
        with self._op("committing a step") as r:
            for gid, meta, _, _ in games:
                if meta is not None and r.exists(self._k("game", gid)):
                    raise StoreUsageError(f"game {gid!r} exists already: cannot begin it again")
                if meta is None and (status := self._status(r, gid)) != "current":
                    raise StoreUsageError(f"game {gid!r} is {status}: cannot write to it")
            current = r.get(self._k("current"))
            last_id = int(r.get(self._k("next_id")) or 0)
            pipe = r.pipeline(transaction=True)
            for gid, meta, events, record in games:
                if meta is not None:
                    if current is not None:  # left unfinished: abandoned, as begin_game does
                        pipe.hset(self._k("game", _text(current)), "status", "abandoned")
                    self._begin_in(pipe, gid, meta, now)
                    current, last_id = str(gid), max(gid, last_id)
                    pipe.set(self._k("next_id"), last_id)
                for _, text in events:
                    pipe.rpush(self._k("game", gid, "events"), text)
                if record is not None:
                    pipe.hset(
                        self._k("game", gid),
                        mapping={"status": "finished", "finished": repr(now), "record": record},
                    )
                    pipe.delete(self._k("current"))
                    current = None
            if settings is not None:
                pipe.set(self._k("settings"), settings)
            for day, counts in writes.counts.items():
                for key, n in counts.items():
                    if n:
                        pipe.hincrby(self._k("counts", day), key, n)
                pipe.sadd(self._k("count_days"), day)
            pipe.execute()

    def get_counts(self, first: str, last: str) -> dict[str, dict[str, int]]:
        """The counters of the days from `first` to `last` (inclusive)."""
        with self._op("reading counters") as r:
            days = sorted(d for d in map(_text, r.smembers(self._k("count_days"))))
            wanted = [d for d in days if first <= d <= last]
            pipe = r.pipeline(transaction=False)
            for day in wanted:
                pipe.hgetall(self._k("counts", day))
            found = pipe.execute() if wanted else []
        return {
            day: {_text(k): int(_text(v)) for k, v in sorted(h.items())}
            for day, h in zip(wanted, found, strict=True)
            if h
        }

    def close(self) -> None:
        """Close the client if this store created it; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._owns_client:
            self._r.close()

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._closed

    def __enter__(self) -> RedisStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RedisStore({self.url or self._r!r}, prefix={self.prefix!r})"
