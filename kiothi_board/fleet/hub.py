"""The fleet hub: what the broker says about every board, kept as one table.

It subscribes to `<prefix>/+/#` and folds each board's retained topics (`status`, `info`,
`state`, `health`, `stats`) and its `events` into a `BoardView`. Listeners (the dashboard's
WebSocket clients) get every change as a small JSON-able update. Alerts are derived, never
stored: offline, an input fault, the co-processor link down, a hot CPU, a silent board.

Staff actions go back to a board as request lines on `<prefix>/<board>/cmd/<user>`, where
`<user>` is the hub's own broker user: the broker's ACL lets only that user write there,
and a board gives control to the users in its `mqtt.staff_users`. No token ever goes on
the bus (anyone allowed to read it would have it). paho-mqtt is imported lazily.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from kiothi_board.api.bounded import JsonLimits, PayloadError, loads
from kiothi_board.api.mqtt_settings import BOARD_ID, parse_broker_url
from kiothi_board.clock import Clock
from kiothi_board.listeners import Listeners

__all__ = ["HOT_CELSIUS", "BoardView", "FleetHub"]

log = logging.getLogger(__name__)

HOT_CELSIUS = 75.0
"""A Pi throttles at 80 °C; warn the staff a little before."""

_RETAINED = ("status", "info", "state", "health", "stats")

LIMITS = JsonLimits(max_bytes=64 * 1024, max_depth=32)
"""What one board message may be: a real `state` is about 2 KB, `health` 1.5 KB."""

MAX_PACKET = LIMITS.max_bytes + 1024
"""The hub's MQTT 5 Maximum Packet Size (payload, topic and headers): the broker drops a
bigger message for us instead of sending it, so 20 MB never reaches this process."""

EVENT_BYTES = 8 * 1024
"""An event line a tile keeps (a real one is under 1 KB); the tile keeps the last 20."""

_LOG_EVERY = 60.0  # seconds between log lines about dropped messages


@dataclass
class BoardView:
    """What the dashboard knows of one board."""

    board: str
    status: str = "unknown"
    info: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    health: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    events: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=20))
    seen: float = 0.0
    known: float = 0.0
    changes: int = 0

    def alerts(self, now: float, silent_after: float) -> list[str]:
        """Why the staff should look at this board now (empty: all is well)."""
        out: list[str] = []
        if self.status == "offline":
            out.append("offline")
        elif self.status == "online" and now - (self.seen or self.known) > silent_after:
            out.append("silent")
        exhibit = self.health.get("exhibit")
        exhibit = exhibit if isinstance(exhibit, dict) else {}
        faults = exhibit.get("input_faults")
        if isinstance(faults, int) and not isinstance(faults, bool) and faults > 0:
            out.append(f"input faults: {faults}")
        link = exhibit.get("link")
        if isinstance(link, dict) and link.get("state") not in (None, "up"):
            out.append(f"link {link.get('state')}")
        temp = _cpu_temp(self.health)
        if temp is not None and temp >= HOT_CELSIUS:
            out.append(f"hot CPU {temp:.0f} °C")
        return out

    def to_json(self, now: float, silent_after: float) -> dict[str, Any]:
        """The tile's data."""
        state = self.state.get("state", {}) if isinstance(self.state, dict) else {}
        return {
            "board": self.board,
            "status": self.status,
            "info": self.info,
            "state": state,
            "health": self.health,
            "stats": self.stats,
            "events": list(self.events),
            "alerts": self.alerts(now, silent_after),
            "age": None if not self.seen else round(now - self.seen, 1),
        }


def _cpu_temp(health: dict[str, Any]) -> float | None:
    exhibit = health.get("exhibit")
    if isinstance(exhibit, dict):
        temp = exhibit.get("cpu_temperature")
        if isinstance(temp, int | float) and not isinstance(temp, bool):
            return float(temp)
    return None


class FleetHub:
    """Subscribe to a broker and keep every board's view; `start()`, `close()`."""

    def __init__(
        self,
        url: str,
        *,
        clock: Clock,
        prefix: str = "kiothi/v1",
        username: str | None = None,
        password: str | None = None,
        tls_ca: str | None = None,
        silent_after: float = 120.0,
        max_boards: int = 200,
        client_factory: Callable[[], Any] | None = None,
    ) -> None:
        """Watch boards under `prefix` on the broker at `url`."""
        self.url = url
        self.prefix = prefix
        self._clock = clock
        self._user = username or urlsplit(url).username
        self._password = password or urlsplit(url).password
        self._tls_ca = tls_ca
        self.silent_after = silent_after
        self._max_boards = max_boards
        self._factory = client_factory
        self._lock = threading.Lock()
        self._boards: dict[str, BoardView] = {}
        self.listeners: Listeners[dict[str, Any]] = Listeners("fleet")
        self.connected = threading.Event()
        self._client: Any = None
        self._ids = itertools.count(1)
        self.messages = 0
        self.ignored = 0
        self.dropped: dict[str, int] = {"too_large": 0, "too_deep": 0, "not_json": 0, "error": 0}
        self._next_log = 0.0

    # ------------------------------------------------------------------ life cycle
    def start(self) -> FleetHub:
        """Connect in the background; boards appear as their retained topics arrive."""
        host, port, tls = parse_broker_url(self.url)
        client = self._factory() if self._factory else self._paho(tls)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.reconnect_delay_set(min_delay=1, max_delay=10)
        client.connect_async(host, port, keepalive=30, **self._connect_options())
        client.loop_start()
        self._client = client
        return self

    def _paho(self, tls: bool) -> Any:
        import secrets

        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"kiothi-fleet-{secrets.token_hex(4)}",
            protocol=mqtt.MQTTv5,
        )
        if self._user:
            client.username_pw_set(self._user, self._password)
        if tls or self._tls_ca:
            client.tls_set(ca_certs=self._tls_ca)
        return client

    def _connect_options(self) -> dict[str, Any]:
        """MQTT 5's Maximum Packet Size: the broker keeps what we would drop anyway."""
        if self._factory is not None:
            return {}
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.MaximumPacketSize = MAX_PACKET
        return {"clean_start": True, "properties": props}

    def close(self) -> None:
        """Disconnect; idempotent."""
        client, self._client = self._client, None
        if client is not None:
            client.disconnect()
            client.loop_stop()

    # ------------------------------------------------------------------ reading
    def boards(self) -> list[dict[str, Any]]:
        """Every board's tile data, by name."""
        now = self._clock.now()
        with self._lock:
            return [self._boards[b].to_json(now, self.silent_after) for b in sorted(self._boards)]

    def board(self, name: str) -> dict[str, Any] | None:
        """One board's data, or None."""
        with self._lock:
            view = self._boards.get(name)
            return None if view is None else view.to_json(self._clock.now(), self.silent_after)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("fleet: broker refused the connection: %s", reason)
            return
        client.subscribe(f"{self.prefix}/+/#", qos=1)
        self.connected.set()
        self.listeners.emit({"type": "boards", "boards": self.boards(), "broker": True})
        log.info("fleet: watching %s/+/# on %s", self.prefix, self.url.split("@")[-1])

    def _on_disconnect(self, *args: Any) -> None:
        """Without the broker nothing is known: every board is `unknown` until it speaks."""
        if not self.connected.is_set():
            return
        self.connected.clear()
        log.warning("fleet: lost the broker; reconnecting")
        with self._lock:
            for view in self._boards.values():
                view.status = "unknown"
        self.listeners.emit({"type": "boards", "boards": self.boards(), "broker": False})

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        """One message (paho's network thread): nothing in it may end that thread."""
        try:
            self._message(message.topic, message.payload, getattr(message, "retain", False))
        except Exception:  # a bug must not freeze every tile: count it, log now and then
            self._drop("error", "fleet: a message from the broker failed", exc_info=True)

    def _message(self, topic_name: str, payload: bytes, stored: bool = False) -> None:
        rest = topic_name[len(self.prefix) + 1 :].split("/", 1)
        if not topic_name.startswith(self.prefix + "/") or len(rest) != 2:
            self.ignored += 1
            return
        board, topic = rest
        if not BOARD_ID.match(board) or not (topic in _RETAINED or topic == "events"):
            self.ignored += 1  # cmd/ and reply/ traffic, or a stranger's topics
            return
        if topic == "status" and not payload:
            self.forget(board, online_too=True)  # its retained status cleared: retired
            return
        update = self._fold(board, topic, payload, stored)
        if update is not None:
            self.messages += 1
            self.listeners.emit(update)

    def _drop(self, reason: str, message: str, *, exc_info: bool = False) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        now = self._clock.now()
        if now >= self._next_log:
            self._next_log = now + _LOG_EVERY
            log.warning("%s (dropped so far: %s)", message, self.dropped, exc_info=exc_info)

    def _fold(
        self, board: str, topic: str, payload: bytes, stored: bool = False
    ) -> dict[str, Any] | None:
        """Fold one message into the board's view; the update to push, or None.

        `seen` is when the board itself last spoke: not the broker's last will (`offline`
        after the board vanished) nor a copy the broker kept (`stored`, a retained message
        replayed at our subscription, of unknown age)."""
        if topic == "events" and len(payload) > EVENT_BYTES:
            self._drop("too_large", f"fleet: dropped {board}/events: {len(payload)} bytes")
            return None
        if topic == "status":
            value: Any = bytes(payload[:32]).decode("utf-8", "replace")
        else:
            try:
                value = loads(payload, LIMITS) if payload else {}
            except PayloadError as exc:
                self._drop(exc.reason, f"fleet: dropped {board}/{topic}: {exc}")
                return None
            if not isinstance(value, dict):
                self.ignored += 1
                return None
        now = self._clock.now()
        with self._lock:
            view = self._boards.get(board)
            if view is None and not payload:
                return None  # a cleared retained topic of a forgotten board: keep it gone
            if view is None:
                if not payload or len(self._boards) >= self._max_boards:  # cleared: forgotten
                    self.ignored += 1
                    return None
                view = self._boards[board] = BoardView(board, known=now)
            if topic == "events":
                view.events.append(value)
            else:
                setattr(view, topic, value)
            if not stored and not (topic == "status" and value == "offline"):
                view.seen = now
            view.changes += 1
            return {"type": "board", "board": view.to_json(now, self.silent_after)}

    def forget(self, name: str, *, online_too: bool = False) -> bool:
        """Drop a retired board from the table; whether it was there.

        Staff forget a board that is not online; its retained topics stay on the broker, so
        it comes back at the next reconnect unless they are cleared there too, and a cleared
        retained `status` forgets it whatever it last said (docs/fleet.md)."""
        with self._lock:
            view = self._boards.get(name)
            if view is None or (view.status == "online" and not online_too):
                return False
            del self._boards[name]
        self.listeners.emit({"type": "boards", "boards": self.boards()})
        return True

    # ------------------------------------------------------------------ staff actions
    def command(self, board: str, cmd: str, args: dict[str, Any]) -> None:
        """Send one request to `board` as the hub's broker user (no secret on the bus)."""
        if not BOARD_ID.match(board):
            raise ValueError(f"bad board name {board!r}")
        if self._client is None:
            raise RuntimeError("the fleet hub is not connected")
        if not self._user or not BOARD_ID.match(self._user):
            raise RuntimeError(
                "the dashboard has no broker user (--username): a board cannot tell who asks"
            )
        topic = f"{self.prefix}/{board}/cmd/{self._user}"
        line = {"id": next(self._ids), "cmd": cmd, "args": args}
        self._client.publish(topic, json.dumps(line, separators=(",", ":")), qos=1)
