"""The optional MQTT adapter: one board on a venue's broker, beside the other doors.

Topics, under `{prefix}/{board}/` (prefix `kiothi/v1` by default):

- `status`  `online` / `offline`, retained; the broker publishes `offline` as our last
  will when the board vanishes without saying goodbye;
- `state`   `{"seq", "state"}` (position and guide cue), retained;
- `events`  every API event line but the LED frames;
- `health`, `stats`  retained, refreshed every `periodic` seconds;
- `info`    retained: version, board id, where the board's own web twin is;
- `cmd/<user>`  request lines from broker user `<user>`, run by the same dispatcher as
  every other door; the replies go to `reply/<user>`. A *retained* request is never run
  (subscribed with MQTT 5's retain handling 2, and a retained message that comes anyway is
  counted in `health.mqtt.retained` and dropped): it would run again at every reconnect.

The broker's ACL (`kiothi_board/fleet/kiothi.acl`) lets each user write only `cmd/<its own
name>` and read only `reply/<its own name>`; the board gives `mqtt.staff_users` control and
everyone else a spectator's role, and takes no secret on the bus (`api/mqtt_sessions.py`).
The game never waits for the broker: the dispatcher's tap only puts lines on a bounded
queue; one worker thread publishes. Paho's own network thread
reconnects with backoff; after every (re)connect the retained topics are written again.
paho-mqtt is imported lazily (house rule 2); a client factory may be injected.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import secrets
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from kiothi_board import __version__
from kiothi_board.api.dispatcher import Dispatcher
from kiothi_board.api.mqtt_sessions import MqttSessions
from kiothi_board.api.mqtt_settings import (
    BOARD_ID,
    MqttSettings,
    check_board_id,
    mqtt_settings,
    parse_broker_url,
)
from kiothi_board.clock import Clock
from kiothi_board.errors import ConfigError

__all__ = ["BOARD_ID", "MqttAdapter", "MqttSettings", "mqtt_settings", "parse_broker_url"]

log = logging.getLogger(__name__)

_STATE_EVENTS = frozenset({"position", "guide", "new_game", "game_over", "settings"})


class MqttAdapter:
    """Mirror the API onto an MQTT broker and take commands from it; `start()`, `close()`."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        settings: MqttSettings,
        *,
        clock: Clock,
        state: Callable[[], dict[str, Any]],
        stats: Callable[[], dict[str, Any]] | None = None,
        client_factory: Callable[[MqttSettings], Any] | None = None,
    ) -> None:
        """Publish `dispatcher`'s events; `state()` and `stats()` feed the retained topics."""
        check_board_id(settings.board_id)
        self.settings = settings
        self._dispatcher = dispatcher
        self._clock = clock
        self._state = state
        self._stats = stats
        self._factory = client_factory or _paho_client
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue(settings.queue_size)
        self.sessions = MqttSessions(
            dispatcher,
            staff_users=settings.staff_users,
            max_clients=settings.max_clients,
            wake=lambda user: self._enqueue(("drain", user)),
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self.connected = threading.Event()
        self.status = "connecting"
        self.published = 0
        self.dropped = 0
        self.reconnects = 0
        self.commands = 0
        self.refused = 0
        self.retained = 0  # retained requests dropped (they would run at every reconnect)
        self.takeovers = 0  # another client connected with our client id (docs/fleet.md)
        self._lost_at: float | None = None  # when a live connection was last lost
        self._next_periodic = 0.0
        self._last_error: str | None = None
        self._hooks: list[Callable[[Any], None]] = []

    def add_connect_hook(self, hook: Callable[[Any], None]) -> None:
        """Call `hook(client)` after every (re)connect, and now if connected (remote play
        shares the board's one connection: its broker user, its last will)."""
        self._hooks.append(hook)
        if self.connected.is_set() and self._client is not None:
            hook(self._client)

    # ------------------------------------------------------------------ topics
    def topic(self, name: str) -> str:
        """`kiothi/v1/<board>/<name>`."""
        return f"{self.settings.base}/{name}"

    # ------------------------------------------------------------------ life cycle
    def start(self) -> MqttAdapter:
        """Connect in the background (the daemon never waits for the broker) and tap events."""
        s = self.settings
        host, port, _tls = parse_broker_url(s.url)
        client = self._factory(s)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.will_set(self.topic("status"), "offline", qos=1, retain=True)
        client.reconnect_delay_set(min_delay=1, max_delay=30)
        self._client = client
        self._dispatcher.add_tap(self._tap)
        self._dispatcher.add_health("mqtt", self.health)
        options = (
            _connect_options(self._dispatcher.max_line) if self._factory is _paho_client else {}
        )
        client.connect_async(host, port, keepalive=s.keepalive, **options)
        client.loop_start()
        self._thread = threading.Thread(target=self._publish_loop, name="api-mqtt", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Say `offline`, disconnect, stop the threads; idempotent."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._dispatcher.remove_tap(self._tap)
        if self._thread is not None:
            self._thread.join(timeout=3.0)
        client = self._client
        if client is not None:
            if self.connected.is_set():
                with contextlib.suppress(Exception):  # best effort: the will covers a failure
                    info = client.publish(self.topic("status"), "offline", qos=1, retain=True)
                    info.wait_for_publish(timeout=1.0)
            with contextlib.suppress(Exception):
                client.disconnect()
            client.loop_stop()
        self.sessions.close()
        self.status = "closed"

    def __enter__(self) -> MqttAdapter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def health(self) -> dict[str, Any]:
        """Status for the API's `health`."""
        out: dict[str, Any] = {
            "status": self.status,
            "broker": _redacted(self.settings.url),
            "published": self.published,
            "dropped": self.dropped,
            "reconnects": self.reconnects,
            "commands": self.commands,
            "refused": self.refused,
            "retained": self.retained,
            "takeovers": self.takeovers,
        }
        if self._last_error:
            out["error"] = self._last_error
        return out

    # ------------------------------------------------------------------ paho callbacks
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            self.status = "refused"
            self._last_error = f"broker refused the connection: {reason}"
            log.warning("mqtt: %s", self._last_error)
            return
        if self._factory is _paho_client:
            client.subscribe(self.topic("cmd/+"), options=_no_retained())
        else:
            client.subscribe(self.topic("cmd/+"), qos=1)
        self._last_error = None
        if self._lost_at is not None and self._clock.now() - self._lost_at <= _TAKEOVER_S:
            self._taken_over()  # mosquitto 2.0 closes a taken connection without a word
        self._lost_at = None
        self.status = "up"
        self.connected.set()
        log.info(
            "mqtt: connected to %s as board %s",
            _redacted(self.settings.url),
            self.settings.board_id,
        )
        self._enqueue(("resync", None))
        for hook in list(self._hooks):
            try:
                hook(client)
            except Exception:  # a part's hook must not take paho's thread down
                log.exception("mqtt: a connect hook failed")

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if getattr(reason, "value", None) == _TAKEN_OVER and not self._stop.is_set():
            self._taken_over()  # an MQTT 5 broker that says so
        elif self.connected.is_set() and not self._stop.is_set():
            self._lost_at = self._clock.now()  # a live broker that takes us back at once:
            log.warning("mqtt: broker connection lost (%s); reconnecting", reason)
        if self.connected.is_set() and not self._stop.is_set():
            self.reconnects += 1
        self.connected.clear()
        if not self._stop.is_set():
            self.status = "down"

    def _taken_over(self) -> None:
        """Another client connected with our client id: a board with the same id and user,
        or an account the broker let choose any id (ship use_username_as_clientid)."""
        self.takeovers += 1
        self._last_error = "another client connected with this board's client id"
        log.warning("mqtt: %s (%d times)", self._last_error, self.takeovers)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        """A request line on `cmd/<user>` (paho's network thread)."""
        topic: str = message.topic
        prefix = self.topic("cmd/")
        user = topic[len(prefix) :] if topic.startswith(prefix) else ""
        if not BOARD_ID.match(user):
            self.refused += 1
            return
        if getattr(message, "retain", False):
            self.retained += 1  # an old request kept by the broker, not one sent now
            return
        self.commands += 1
        self._dispatcher.handle_line(self.sessions.session(user), bytes(message.payload))

    # ------------------------------------------------------------------ tap (game thread)
    def _tap(self, kind: str, message: dict[str, Any], line: bytes) -> None:
        if kind == "frame":
            return  # 15 frames a second are for the page, not for the venue's broker
        self._enqueue(("event", (kind, line)))

    def _enqueue(self, item: tuple[str, Any]) -> None:
        """Never block the caller: when the queue is full, the oldest item goes."""
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            with contextlib.suppress(queue.Empty):
                self._queue.get_nowait()
            self.dropped += 1
            with contextlib.suppress(queue.Full):
                self._queue.put_nowait(item)

    # ------------------------------------------------------------------ publisher thread
    def _publish_loop(self) -> None:
        while not self._stop.is_set():
            try:
                first = self._queue.get(timeout=0.2)
            except queue.Empty:
                first = None
            batch = [] if first is None else [first]
            while first is not None and len(batch) < 256:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._publish_batch(batch)
                if self.connected.is_set() and self._clock.now() >= self._next_periodic:
                    self._publish_periodic()
            except Exception:  # a bug here must not end the thread: the board goes on
                log.exception("mqtt: publishing failed")

    def _publish_batch(self, batch: list[tuple[str, Any]]) -> None:
        state_changed = False
        for what, body in batch:
            if what == "resync":
                self._publish_retained()
            elif what == "drain":
                self._drain(body)
            elif not self.connected.is_set():
                self.dropped += 1  # the retained topics are rewritten on reconnect
            else:
                kind, line = body
                self._publish(self.topic("events"), line[:-1])
                state_changed = state_changed or kind in _STATE_EVENTS
        if state_changed:
            self._publish_state()

    def _drain(self, name: str) -> None:
        session = self.sessions.get(name)
        if session is None:
            return
        for line in session.outbox.take():
            if self.connected.is_set():
                self._publish(self.topic(f"reply/{name}"), line[:-1])
            else:
                self.dropped += 1

    def _publish_retained(self) -> None:
        """After every (re)connect: everything a newcomer to the broker should find."""
        s = self.settings
        self._publish(self.topic("status"), b"online", retain=True, qos=1)
        info = {"board": s.board_id, "version": __version__, "web": s.web_url, "protocol": 1}
        self._publish(self.topic("info"), _json(info), retain=True, qos=1)
        self._publish_state()
        self._publish_periodic()
        if s.discovery:
            from kiothi_board.api.mqtt_discovery import discovery_messages

            for topic, payload in discovery_messages(s):
                self._publish(topic, payload, retain=True, qos=1)

    def _publish_state(self) -> None:
        doc = {"seq": self._dispatcher.seq, "state": self._state()}
        self._publish(self.topic("state"), _json(doc), retain=True, qos=1)

    def _publish_periodic(self) -> None:
        self._next_periodic = self._clock.now() + self.settings.periodic
        self._publish(self.topic("health"), _json(self._dispatcher.health()), retain=True)
        if self._stats is not None:
            self._publish(self.topic("stats"), _json(self._stats()), retain=True)

    def _publish(self, topic: str, payload: bytes, *, retain: bool = False, qos: int = 0) -> None:
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if getattr(info, "rc", 0) == 0:
            self.published += 1
        else:
            self.dropped += 1


def _json(doc: Any) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


def _redacted(url: str) -> str:
    """The broker URL without a password, for logs and health."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return parts._replace(netloc=netloc).geturl()


_TOPIC_ROOM = 1024  # a command's topic and MQTT headers, beside its max_line payload
_TAKEN_OVER = 142  # MQTT 5 DISCONNECT reason "Session taken over"
_TAKEOVER_S = 3.0  # lost, then taken back this soon: the broker was up and dropped us


def _connect_options(max_line: int) -> dict[str, Any]:
    """MQTT 5 CONNECT options: a clean start and a Maximum Packet Size of one request line,
    so the broker refuses to send us a 30 MiB command (it was buffered whole before)."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    props.MaximumPacketSize = max_line + _TOPIC_ROOM
    return {"clean_start": True, "properties": props}


def _no_retained() -> Any:
    """Subscribe options: QoS 1, and retained messages not sent (MQTT 5 retain handling 2)."""
    from paho.mqtt.subscribeoptions import SubscribeOptions

    return SubscribeOptions(qos=1, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND)


def _paho_client(s: MqttSettings) -> Any:
    """A paho-mqtt 2 client for `s` (imported lazily: MQTT is optional)."""
    try:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion
    except ImportError as exc:
        raise ConfigError(
            "mqtt.url is set but paho-mqtt is not installed (pip install 'kiothi-board[mqtt]')"
        ) from exc
    # MQTT 5: its Maximum Packet Size lets the broker drop an oversized command for us.
    # A random suffix: an account that knows the board id cannot take its connection by
    # connecting with the same client id (the broker drops the older of two).
    client_id = f"kiothi-board-{s.board_id}-{secrets.token_hex(8)}"
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    # Bounded: paho keeps unsent QoS 1 messages in memory while the broker is away.
    client.max_queued_messages_set(s.queue_size)
    user = s.username or urlsplit(s.url).username
    password = s.password or urlsplit(s.url).password
    if user:
        client.username_pw_set(user, password)
    _host, _port, tls = parse_broker_url(s.url)
    if tls or s.tls_ca:
        client.tls_set(ca_certs=s.tls_ca)
    return client
