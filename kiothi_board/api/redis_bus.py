"""The optional Redis bus: state mirror, event channel and a command stream.

- `{prefix}:state` (a string key) holds `{"seq": n, "state": {...}}`, the latest snapshot;
- `{prefix}:events` (a pub/sub channel) carries every event line but the LED frames;
- `{prefix}:commands` (a stream) takes requests: each entry's field `line` is one request
  line; replies are added to the stream `{prefix}:replies` (field `line`, capped at about
  1000 entries) with the same `id`.

The game never waits for Redis: the dispatcher's tap only puts lines on a bounded queue,
and a worker thread talks to Redis. When Redis goes away the worker drops what it cannot
send (pub/sub keeps no history anyway), reconnects with exponential backoff, and on
return writes the full state again before anything else (a resync). redis-py is imported
lazily (house rule 2); a client factory may be injected (fakeredis in tests).
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from kiothi_board.api.dispatcher import Dispatcher
from kiothi_board.errors import ConfigError

__all__ = ["RedisBus", "check_redis_url", "shown_url"]

log = logging.getLogger(__name__)

_STATE_EVENTS = frozenset({"position", "guide", "new_game", "game_over", "settings"})


def shown_url(url: str) -> str:
    """The URL with any password replaced (it goes into logs and errors)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def check_redis_url(url: str, key: str = "api.redis_url") -> None:
    """Raise `ConfigError` naming `key` if `url` is not a Redis URL redis-py can use."""
    shown = shown_url(url)
    if urlsplit(url).scheme not in ("redis", "rediss", "unix"):
        raise ConfigError(f"{key} = {shown!r}: must start with redis://, rediss:// or unix://")
    try:
        from redis.connection import parse_url  # lazily: Redis is optional
    except ImportError as exc:
        raise ConfigError(f"{key}: the redis package is not installed") from exc
    try:
        parse_url(url)  # type: ignore[no-untyped-call]
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{key} = {shown!r}: malformed: {exc}") from None


class RedisBus:
    """Mirror the API onto Redis; `start()` it, `close()` it."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "kiothi:v1",
        queue_size: int = 1000,
        backoff: tuple[float, float] = (0.05, 2.0),
        client_factory: Callable[[], Any] | None = None,
    ) -> None:
        """Publish `dispatcher`'s events to the Redis at `url` (or from `client_factory`)."""
        self._dispatcher = dispatcher
        self._url = url
        self.state_key = f"{prefix}:state"
        self.events_channel = f"{prefix}:events"
        self.commands_stream = f"{prefix}:commands"
        self.replies_stream = f"{prefix}:replies"
        self._factory = client_factory or self._default_factory
        self._queue: queue.Queue[tuple[str, bytes]] = queue.Queue(queue_size)
        self._backoff = backoff
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.connected = threading.Event()
        self.synced = threading.Event()  # set after each (re)sync of the state key
        self.listening = threading.Event()  # set once the command stream is being read
        self.status = "connecting"
        self.published = 0
        self.dropped = 0
        self.reconnects = 0
        self.commands = 0
        self.error: str | None = None  # why the last connection attempt failed
        self.unreachable = threading.Event()  # set when an attempt to connect fails
        self._warned = False

    def _default_factory(self) -> Any:
        import redis  # lazily: Redis is optional

        # Short timeouts: a dead server must be noticed in about a second, not minutes.
        return redis.Redis.from_url(self._url, socket_timeout=1.0, socket_connect_timeout=1.0)

    def start(self) -> RedisBus:
        """Tap the dispatcher and start the publisher and command threads."""
        self._dispatcher.add_tap(self._tap)
        self._dispatcher.add_health("redis", self.health)
        for target, name in ((self._publish_loop, "pub"), (self._command_loop, "cmd")):
            t = threading.Thread(target=target, name=f"api-redis-{name}", daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def health(self) -> dict[str, Any]:
        """Status for `health`."""
        out: dict[str, Any] = {
            "status": self.status,
            "published": self.published,
            "dropped": self.dropped,
            "reconnects": self.reconnects,
            "commands": self.commands,
        }
        if self.error is not None and self.status != "up":
            out["error"] = self.error
        return out

    # ------------------------------------------------------------------ tap (game thread)
    def _tap(self, kind: str, message: dict[str, Any], line: bytes) -> None:
        if kind == "frame":
            return  # frames are for the page; a bus at 15 Hz would be noise
        try:
            self._queue.put_nowait((kind, line))
        except queue.Full:
            # Never block the game: drop the oldest; the state key will be resynced.
            with contextlib.suppress(queue.Empty):
                self._queue.get_nowait()
            self.dropped += 1
            try:
                self._queue.put_nowait((kind, line))
            except queue.Full:
                self.dropped += 1

    # ------------------------------------------------------------------ publisher thread
    def _connect(self) -> Any | None:
        delay = self._backoff[0]
        while not self._stop.is_set():
            try:
                client = self._factory()
                client.ping()
                self.error = None
                self._warned = False
                return client
            except Exception as exc:  # ConnectionError, TimeoutError, OSError: retry later
                self.error = f"cannot reach {shown_url(self._url)}: {exc}"
                if self.status == "connecting":
                    self.status = "down"
                self.unreachable.set()
                if not self._warned:  # once per outage, not once per retry
                    self._warned = True
                    log.warning("api: api.redis_url: %s; retrying in the background", self.error)
                log.debug("api: redis not reachable (%s); retry in %.2f s", exc, delay)
                self._stop.wait(delay)
                delay = min(delay * 2, self._backoff[1])
        return None

    def _write_state(self, client: Any) -> None:
        state = self._dispatcher.service.state()
        doc = {"seq": self._dispatcher.seq, "state": state}
        client.set(self.state_key, json.dumps(doc, separators=(",", ":")))

    def _publish_loop(self) -> None:
        client: Any = None
        while not self._stop.is_set():
            if client is None:
                self.status = "connecting" if self.reconnects == 0 else "down"
                client = self._connect()
                if client is None:
                    return
                try:
                    self._drain_stale()
                    self._write_state(client)  # the full resync after every (re)connect
                except Exception as exc:
                    log.warning("api: redis resync failed: %s", exc)
                    self._lost(client)
                    client = None
                    continue
                self.status = "up"
                self.connected.set()
                self.synced.set()
                log.info("api: redis connected, state synced")
                self._dispatcher.publish_health()
            try:
                first = self._queue.get(timeout=0.25)
            except queue.Empty:
                continue
            batch = [first]
            while len(batch) < 256:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                pipe = client.pipeline(transaction=False)
                for _, line in batch:
                    pipe.publish(self.events_channel, line[:-1])
                if any(kind in _STATE_EVENTS for kind, _ in batch):
                    state = self._dispatcher.service.state()
                    doc = {"seq": self._dispatcher.seq, "state": state}
                    pipe.set(self.state_key, json.dumps(doc, separators=(",", ":")))
                pipe.execute()
                self.published += len(batch)
            except Exception as exc:
                log.warning("api: redis went away (%s); reconnecting", exc)
                self.dropped += len(batch)
                self._lost(client)
                client = None

    def _drain_stale(self) -> None:
        """Events queued while Redis was away are dropped: the resync replaces them."""
        while True:
            try:
                self._queue.get_nowait()
                self.dropped += 1
            except queue.Empty:
                return

    def _lost(self, client: Any) -> None:
        self.status = "down"
        self.connected.clear()
        self.synced.clear()
        self.reconnects += 1
        try:
            client.close()
        except Exception as exc:  # the connection is already dead
            log.debug("api: closing redis client: %s", exc)
        self._dispatcher.publish_health()
        return None

    # ------------------------------------------------------------------ command thread
    def _command_loop(self) -> None:
        client: Any = None
        last_id = "$"  # commands written before we started are stale: not ours to obey
        session = self._dispatcher.open_session("redis", self._url, trusted=True, wake=lambda: None)
        delay = self._backoff[0]
        try:
            while not self._stop.is_set():
                if client is None:
                    client = self._connect()
                    if client is None:
                        return
                    if last_id == "$":
                        # Pin the position now, so a command added before the first XREAD
                        # is still read.
                        newest = client.xrevrange(self.commands_stream, count=1)
                        last_id = newest[0][0] if newest else "0-0"
                        if isinstance(last_id, bytes):
                            last_id = last_id.decode()
                        self.listening.set()
                    delay = self._backoff[0]
                try:
                    got = client.xread({self.commands_stream: last_id}, count=64, block=250)
                except Exception as exc:
                    log.debug("api: redis command stream: %s", exc)
                    try:
                        client.close()
                    except Exception as close_exc:  # already dead
                        log.debug("api: %s", close_exc)
                    client = None
                    self._stop.wait(delay)
                    delay = min(delay * 2, self._backoff[1])
                    continue
                for _stream, entries in got or []:
                    for entry_id, fields in entries:
                        last_id = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
                        raw = fields.get(b"line", fields.get("line", b""))
                        line = raw if isinstance(raw, bytes) else str(raw).encode()
                        self.commands += 1
                        self._dispatcher.handle_line(session, line)
                        replies = session.outbox.take()
                        try:
                            for reply in replies:
                                client.xadd(
                                    self.replies_stream,
                                    {"line": reply[:-1]},
                                    maxlen=1000,
                                    approximate=True,
                                )
                        except Exception as exc:  # the reply is lost; the command ran
                            log.warning("api: redis reply lost: %s", exc)
        finally:
            self._dispatcher.close_session(session)

    # ------------------------------------------------------------------ close
    def close(self) -> None:
        """Stop the threads and untap; idempotent."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._dispatcher.remove_tap(self._tap)
        for t in self._threads:
            t.join(timeout=3.0)
        self.status = "closed"

    def __enter__(self) -> RedisBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
