"""Events out to the sessions: what the board publishes, in `seq` order, to each subscriber
(in its language), the newest LED frame at the server's pace, and the `health` report.

`EventFanout` is a mixin that `Dispatcher` (kiothi_board/api/dispatcher.py) inherits.
`publish` may be called from any thread, never blocks and never calls back into the
service, so a slow client cannot stall a game.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kiothi_board import native
from kiothi_board.api.commands import frame_to_hex
from kiothi_board.api.lines import WordedEvent
from kiothi_board.api.service import BoardService
from kiothi_board.api.session import ClientSession
from kiothi_board.clock import Clock

__all__ = ["EventFanout"]

log = logging.getLogger("kiothi_board.api.dispatcher")  # the dispatcher's lines, as before


class EventFanout:
    """The dispatcher's events and health (see the module docstring); `Dispatcher` sets
    these fields."""

    service: BoardService
    language: str
    requests: int
    errors: int
    dropped: int
    _clock: Clock
    _started: float
    _hub_lock: threading.Lock
    _sessions: dict[int, ClientSession]
    _taps: list[Callable[[str, dict[str, Any], bytes], None]]
    _health: dict[str, Callable[[], Any]]
    _seq: int
    _pending_frame: dict[str, Any] | None

    def sessions(self) -> list[ClientSession]:
        raise NotImplementedError  # the dispatcher's

    @property
    def seq(self) -> int:
        """The sequence number of the last event published."""
        return self._seq

    def wants(self, topic: str) -> bool:
        """Whether any session subscribes to `topic` (taps are not asked: the Redis bus
        takes no frames)."""
        with self._hub_lock:
            return any(topic in s.topics for s in self._sessions.values())

    def publish(self, event: dict[str, Any]) -> None:
        """Send one service event to its subscribers; never blocks, never raises.

        A `frame` event (pushed by the board after each new frame) is only kept: the
        server's pump sends the newest with `flush_frame`, at most `frame_fps` a second.
        """
        if event.get("type") == "frame":
            with self._hub_lock:
                self._pending_frame = event
            return
        self._publish(event)

    def flush_frame(self) -> bool:
        """Send the newest pushed frame to its subscribers if it is new; whether it was."""
        with self._hub_lock:
            event, self._pending_frame = self._pending_frame, None
            wanted = any("frame" in s.topics for s in self._sessions.values())
        if event is None or not wanted:
            return False
        leds = event.get("leds_per_ring", self.service.leds_per_ring)
        self._publish(
            {"type": "frame", "leds_per_ring": leds, "frame": frame_to_hex(event["frame"])}
        )
        return True

    def _publish(self, event: dict[str, Any]) -> None:
        try:
            kind = str(event.get("type", "error"))
            body = {k: v for k, v in event.items() if k != "type"}
            if "id" in body:
                # Only replies carry "id" (the request's); a game's id is "game_id" here.
                body["game_id"] = body.pop("id")
            with self._hub_lock:
                self._seq += 1
                if kind == "language":
                    self.language = str(body.get("lang", self.language))
                message = {"event": kind, "seq": self._seq, **body}
                lines = WordedEvent(message, self.language)
                # Under the lock, so every subscriber queues events in seq order.
                for session in self._sessions.values():
                    if kind in session.topics:
                        session.outbox.put(lines.get(session.lang))
                taps = list(self._taps)
            message, line = lines.board()
            for tap in taps:
                tap(kind, message, line)
        except Exception:  # a listener that raises would break the controller's emit
            log.exception("api: could not publish event %r", event.get("type"))

    def publish_health(self) -> None:
        """Push a `health` event."""
        self._publish({"type": "health", **self.health()})

    def health(self) -> dict[str, Any]:
        """Uptime, clients per transport, events and request counters, other sources."""
        counts: dict[str, int] = {}
        for s in self.sessions():
            counts[s.transport] = counts.get(s.transport, 0) + 1
        out: dict[str, Any] = {
            "status": "ok",
            "uptime": round(self._clock.now() - self._started, 3),
            "clients": counts,
            "events": self._seq,
            "requests": self.requests,
            "errors": self.errors,
            "dropped": self.dropped,
            "ai_core": {"core": native.default_core(), "why": native.describe()},
        }
        for name, source in self._health.items():
            try:
                out[name] = source()
            except Exception as exc:  # health must answer even when a part is broken
                out[name] = {"status": "error", "message": str(exc)}
        # A part that needs staff (a quarantined game, a failing disk) degrades the whole.
        degraded = [
            name
            for name in self._health
            if isinstance(out[name], dict) and out[name].get("status") in ("degraded", "error")
        ]
        if degraded:
            out["status"], out["degraded"] = "degraded", degraded
        return out
