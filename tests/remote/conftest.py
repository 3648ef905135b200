"""Remote-play fixtures: two boards in-process, each with its wire on a real broker."""

from __future__ import annotations

import contextlib
import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from kiothi_board.board import Board
from kiothi_board.clock import SystemClock
from kiothi_board.controller.game import Game
from kiothi_board.controller.opponent import random_opponents
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.remote.doors import guard
from kiothi_board.remote.opponent import MatchOpponents
from kiothi_board.remote.wire import RemoteSettings, RemoteWire
from kiothi_board.rules import Lift, OpeningAction, pit_name
from kiothi_board.store.sqlite import SqliteStore
from tests.conftest import Mosquitto, poll_until


def client_for(
    port: int, board: str, wire: RemoteWire, prefix: str, password: str | None = None
) -> Any:
    """A paho client as the MQTT adapter makes one: the board's user, the status will."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2, client_id=f"{board}-{uuid.uuid4().hex[:6]}",
        protocol=mqtt.MQTTv5,
    )  # fmt: skip
    client.username_pw_set(board, password or f"{board}-pass")
    status = f"{prefix}/{board}/status"
    client.will_set(status, "offline", qos=1, retain=True)

    def connected(c: Any, *_: Any) -> None:
        c.publish(status, "online", qos=1, retain=True)
        wire.connected(c)

    client.on_connect = connected
    wire.attach(client)
    client.connect_async("127.0.0.1", port, keepalive=5)
    client.loop_start()
    return client


@dataclass
class Seat:
    """One board of a match: the board, its wire, its store, its paho client."""

    board: Board
    wire: RemoteWire
    store: SqliteStore
    client: Any

    def game(self) -> Game | None:
        return self.board.ask(lambda c: c.session.game)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
        self.wire.close()
        self.board.close()
        self.store.close()


def make_seat(
    tmp: Path, port: int, board: str, prefix: str, password: str | None = None, **kw: Any
) -> Seat:
    clock = SystemClock()
    store = SqliteStore(str(tmp / f"{board}.db"))
    opponents = MatchOpponents(random_opponents(random.Random(0)))
    b = Board(sink=FakePixelSink(), clock=clock, store=store, opponent_factory=opponents,
              over_seconds=-1)  # fmt: skip
    settings = RemoteSettings(board=board, name=f"Hall {board[-1]}", prefix=prefix, **kw)
    wire = RemoteWire(settings, call=b.call, opponents=opponents, clock=clock)
    b.add_notice_listener(wire.notice)
    guard(b.session, wire)
    b.start()
    return Seat(b, wire, store, client_for(port, board, wire, prefix, password))


USERS = {name: f"{name}-pass" for name in ("b1", "b2", "b3", "display", "visitor")}


def plain_client(port: int, user: str) -> Any:
    """A broker user's own paho client (MQTT 5: the broker says when it refuses; the
    reason codes of its PUBACKs are kept in `client.acks`, by message id)."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv5)
    client.username_pw_set(user, USERS[user])
    client.acks = {}
    client.on_publish = lambda c, u, mid, rc, props: client.acks.__setitem__(mid, str(rc))
    client.connect("127.0.0.1", port, keepalive=10)
    client.loop_start()
    return client


def published(client: Any, topic: str, payload: str) -> str:
    """Publish at QoS 1 and return the broker's answer ("Success", "Not authorized")."""
    info = client.publish(topic, payload, qos=1)
    info.wait_for_publish(10)
    return str(poll_until(lambda: client.acks.get(info.mid), f"the PUBACK of {topic}"))


def start_match(a: Seat, b: Seat) -> None:
    """`a` invites `b` (a plays South), `b` accepts, both games begin."""
    them, me = b.wire.settings.board, a.wire.settings.board
    poll_until(lambda: them in a.wire.lobby and me in b.wire.lobby, "the lobby cards")
    a.wire.invite(them, side="S")
    poll_until(lambda: me in b.wire.invitations, "the invitation")
    b.wire.accept()
    poll_until(lambda: a.wire.match is not None and b.wire.match is not None, "both matches")
    poll_until(lambda: a.game() is not None and b.game() is not None, "both games")


@pytest.fixture
def acl_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A broker with the boards' users and the fleet's ACL (`fleet --print-acl b1 b2 b3`)."""
    from kiothi_board.fleet.acl import fleet_acl
    from tests.fleet.conftest import shipped_policy

    broker = Mosquitto(tmp_path / "acl-broker", USERS, fleet_acl(("b1", "b2", "b3")),
                       shipped_policy()).start()  # fmt: skip
    yield broker
    broker.kill()


@pytest.fixture
def acl_seats(tmp_path: Path, acl_broker: Mosquitto) -> Iterator[Callable[..., Seat]]:
    """Boards on the ACL broker, under the shipped prefix, each as its own broker user."""
    made: list[Seat] = []

    def make(board: str, **kw: Any) -> Seat:
        seat = make_seat(tmp_path, acl_broker.port, board, "kiothi/v1", USERS[board], **kw)
        made.append(seat)
        return seat

    yield make
    for seat in made:
        seat.close()


@pytest.fixture
def seats(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[Callable[..., Seat]]:
    made: list[Seat] = []
    prefix = f"kt-{uuid.uuid4().hex[:8]}/v1"

    def make(board: str, **kw: Any) -> Seat:
        seat = make_seat(tmp_path, mosquitto.port, board, prefix, **kw)
        made.append(seat)
        return seat

    yield make
    for seat in made:
        seat.close()


def scripted_action(game: Game, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """The local side's command now (random openings and moves), or None."""
    pos = game.position
    if game.stage == "open" and game.lifted is None and not game.lifts:
        if rng.random() < 0.5:
            return "opening", {"action": "pass"}
        pit = rng.choice(pos.legal_moves())
        place = tuple(rng.randrange(20) for _ in range(pos.board[pit]))
        return "opening", {"action": str(OpeningAction((Lift(pit, place),)))}
    if game.stage == "turn":
        return "move", {"pit": pit_name(rng.choice(pos.legal_moves()))}
    return None


@dataclass
class Player:
    """One board's scripted side: how to read its game, run its commands, and its side."""

    game: Callable[[], Game | None]
    call: Callable[..., Any]
    side: Callable[[], Any]
    lit: Callable[[], int | None] = lambda: None  # the pit the guide points the hand at
    press: Callable[[int], None] = lambda pit: None


def play_match(
    players: list[Player],
    rng: random.Random,
    limit: int = 3000,
    resign_after: int | None = None,
    *,
    to_the_end: bool = True,
) -> None:
    """Each board's scripted side plays when its turn comes (the other side is remote),
    until both games are over; with `resign_after`, the side to move resigns once that many
    actions were played (a short game for `make test`; a whole game can last 1000 plies)."""

    def ready() -> tuple[Player, tuple[str, dict[str, Any]]] | str | None:
        games = [p.game() for p in players]
        if all(g is not None and g.stage == "over" for g in games):
            return "over"
        for p in players:  # a fake hand presses the lit pit (either side's move)
            pit = p.lit()
            if pit is not None:
                return p, ("press", {"pit": pit})
        for p, g in zip(players, games, strict=True):
            if g is not None and g.stage != "over" and g.mover is p.side():
                late = resign_after is not None and len(g.actions) >= resign_after
                if late and g.stage == "turn":
                    return p, ("resign", {"side": g.mover.letter})
                todo = scripted_action(g, rng)
                if todo is not None:
                    return p, todo
        return None

    for _ in range(limit):
        got = poll_until(ready, "a side to play, or both games over", 30)
        if got == "over":
            return
        assert not isinstance(got, str)
        player, (cmd, args) = got
        if cmd == "press":
            player.press(args["pit"])
        else:
            player.call(cmd, **args)
    if to_the_end:
        raise AssertionError("the match did not end")


def cut(seat: Seat) -> None:
    """The board's connection drops without a goodbye: the broker sends its last will."""
    seat.client.loop_stop()
    sock = seat.client.socket()
    if sock is not None:
        sock.close()


def heal(seat: Seat) -> None:
    """The board reconnects (it says `online` and replays the match's retained log)."""
    seat.client.reconnect()
    seat.client.loop_start()


class Cutter:
    """A TCP relay on loopback between a bridge and the far broker, to cut and heal the
    bridge as a venue's network would (both ends see the connection drop)."""

    def __init__(self, port: int) -> None:
        import socket
        import threading

        self._target = port
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._open = threading.Event()
        self._open.set()
        self._socks: list[Any] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                near, _ = self._server.accept()
            except OSError:
                return
            if not self._open.is_set():
                near.close()
                continue
            try:
                far = socket.create_connection(("127.0.0.1", self._target))
            except OSError:
                near.close()
                continue
            with self._lock:
                self._socks += [near, far]
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: Any, dst: Any) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(2)

    def cut(self) -> None:
        """Drop every connection through the relay, and refuse new ones until `heal`."""
        self._open.clear()
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(2)
            s.close()

    def heal(self) -> None:
        """Let the bridge connect again."""
        self._open.set()

    def close(self) -> None:
        self.cut()
        self._server.close()


BRIDGED = (
    "{prefix}/+/status", "{prefix}/+/lobby", "{prefix}/+/invite/+", "{prefix}/+/answer/+",
    "{prefix}/match/#",
)  # fmt: skip


def bridge_lines(port: int, prefix: str) -> tuple[str, ...]:
    """Broker A's bridge to broker B on loopback, as docs/remote.md gives it (without TLS:
    the test's brokers listen on loopback only)."""
    return (
        "connection venue-b",
        f"address 127.0.0.1:{port}",
        "bridge_protocol_version mqttv50",
        "try_private true",
        "cleansession true",
        "notifications false",
        "restart_timeout 1",
        "keepalive_interval 2",
        *(f"topic {t.format(prefix=prefix)} both 1" for t in BRIDGED),
    )


@pytest.fixture
def bridged(tmp_path: Path) -> Iterator[tuple[Mosquitto, Mosquitto, Cutter]]:
    """Two brokers, A bridged to B through a relay that can cut the bridge."""
    far = Mosquitto(tmp_path / "broker-b").start()
    relay = Cutter(far.port)
    near = Mosquitto(tmp_path / "broker-a", extra=bridge_lines(relay.port, "kiothi/v1"))
    near.start()
    yield near, far, relay
    relay.close()
    near.kill()
    far.kill()
