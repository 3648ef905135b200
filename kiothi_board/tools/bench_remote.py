"""`kiothi-board bench remote`: two boards over two bridged brokers on loopback.

Two private mosquittos (A bridged to B as docs/remote.md shows, without TLS on loopback),
one board on each, in step pace, each with a fake hand pressing the pit its rings light.
Measured: the time from a move's last press on one board to the first guide ring of that
move lit on the other (p50/p99), and the bytes both boards published per move.
"""

from __future__ import annotations

import argparse
import random
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kiothi_board.helptext import DefaultsFormatter

__all__ = ["main"]

PREFIX = "kiothi/v1"
BRIDGED = ("+/status", "+/lobby", "+/invite/+", "+/answer/+", "match/#")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _broker(root: Path, name: str, extra: tuple[str, ...] = ()) -> tuple[Any, int]:
    port = _free_port()
    conf = root / f"{name}.conf"
    # Nagle off (mosquitto's default is on): a move is one small packet, sent at once.
    lines = [f"listener {port} 127.0.0.1", "allow_anonymous true", "persistence false",
             "set_tcp_nodelay true", *extra]  # fmt: skip
    conf.write_text("\n".join([*lines, f"log_dest file {root / name}.log"]) + "\n")
    proc = subprocess.Popen(["mosquitto", "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, port
        time.sleep(0.05)  # a broker starting: nothing to wait on but its port
    proc.kill()
    raise SystemExit(f"bench remote: mosquitto {name} did not listen")


def _bridge(port: int) -> tuple[str, ...]:
    return (
        "connection venue-b", f"address 127.0.0.1:{port}", "bridge_protocol_version mqttv50",
        "try_private true", "cleansession true", "notifications false", "restart_timeout 1",
        *(f"topic {PREFIX}/{t} both 1" for t in BRIDGED),
    )  # fmt: skip


class _Side:
    """One board: the board loop on its thread, its wire on its own broker, its hand."""

    def __init__(self, root: Path, name: str, port: int, stamps: dict[str, Any]) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        from kiothi_board.board import Board
        from kiothi_board.clock import SystemClock
        from kiothi_board.controller.opponent import random_opponents
        from kiothi_board.hardware.fakes import FakePixelSink
        from kiothi_board.remote.opponent import MatchOpponents
        from kiothi_board.remote.wire import RemoteSettings, RemoteWire
        from kiothi_board.store.memory import MemoryStore

        clock = SystemClock()
        self.name = name
        opponents = MatchOpponents(random_opponents(random.Random(0)))
        self.board = Board(sink=FakePixelSink(), clock=clock, store=MemoryStore(),
                           opponent_factory=opponents, over_seconds=-1)  # fmt: skip
        settings = RemoteSettings(board=name, name=name, prefix=PREFIX, pace="step", beat_s=5)
        loop, ctl = self.board.loop, self.board.controller
        self.wire = RemoteWire(settings, call=self.board.call, opponents=opponents, clock=clock,
                               poke=lambda: loop.call(ctl.tick))  # fmt: skip
        self.board.add_notice_listener(lambda n: _stamp(self, n, stamps))
        self.board.add_notice_listener(self.wire.notice)
        self.board.start()
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{name}-{uuid.uuid4().hex}",
                             protocol=mqtt.MQTTv5)  # fmt: skip
        status = f"{PREFIX}/{name}/status"
        client.will_set(status, "offline", qos=1, retain=True)

        def connected(c: Any, *_: Any) -> None:
            c.publish(status, "online", qos=1, retain=True)
            self.wire.connected(c)

        client.on_connect = connected
        self.wire.attach(client)
        client.connect("127.0.0.1", port, keepalive=10)
        client.loop_start()
        self.client = client

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
        self.wire.close()
        self.board.close()


def _stamp(side: _Side, notice: Any, stamps: dict[str, Any]) -> None:
    """A move's last press here (`sent`), or its first guide ring lit here (`lit`)."""
    from kiothi_board.controller.events import OpenGuided, Select
    from kiothi_board.controller.notices import Applied

    if not isinstance(notice, Applied) or side.wire.match is None:
        return
    local = side.wire.match.local
    old, new = notice.old, notice.new
    if len(new.actions) > len(old.actions) and new.movers[-1] is local:
        stamps["sent"][len(new.actions)] = time.perf_counter()
    elif isinstance(notice.event, Select | OpenGuided) and old.mover is not local:
        stamps["lit"].setdefault(len(old.actions) + 1, time.perf_counter())


def _hand(side: _Side, rng: random.Random) -> bool:
    """Press the lit pit, or play this board's own move; whether the hand did something."""
    from kiothi_board.rules import pit_name

    match = side.wire.match
    pit = side.board.ask(lambda c: c.expected_pit())
    if pit is not None:
        side.board.press(pit)
        return True
    game = side.board.ask(lambda c: c.session.game)
    if match is None or game is None or game.stage == "over" or game.mover is not match.local:
        return False
    if game.stage == "open":
        side.board.call("opening", action="pass")
    elif game.stage == "turn":
        side.board.call("move", pit=pit_name(rng.choice(game.position.legal_moves())))
    else:
        return False
    return True


def _over(side: _Side) -> bool:
    game = side.board.ask(lambda c: c.session.game)
    return game is not None and game.stage == "over"


def _finish(sides: list[_Side], rng: random.Random) -> None:
    """The hands finish what is still being guided (a game's last move) on both boards."""

    def over() -> bool:
        if all(s.wire.free and _over(s) for s in sides):
            return True
        for s in sides:
            _hand(s, rng)
        return False

    _wait(over, "both games over")


def _playing(side: _Side) -> bool:
    game = side.board.ask(lambda c: c.session.game)
    return side.wire.match is not None and game is not None and game.stage != "over"


def _match(a: _Side, b: _Side) -> None:
    a.wire.invite(b.name, side="S")
    _wait(lambda: a.name in b.wire.invitations, "the invitation")
    b.wire.accept()
    _wait(lambda: all(_playing(s) for s in (a, b)), "both games")


def _wait(pred: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench remote: waited {timeout:g} s in vain for {what}")
        time.sleep(0.002)  # polling another thread's state: the bench has no event for it


def run(moves: int, seed: int) -> dict[str, float]:
    """Play until `moves` moves crossed; the figures."""
    if shutil.which("mosquitto") is None:
        raise SystemExit("bench remote: needs mosquitto (scripts/setup-system.sh)")
    root = Path(tempfile.mkdtemp(prefix="kiothi-bench-remote-"))
    far, far_port = _broker(root, "b")
    near, near_port = _broker(root, "a", _bridge(far_port))
    latencies: list[float] = []
    sides: list[_Side] = []
    rng = random.Random(seed)
    try:
        stamps: dict[str, Any] = {"sent": {}, "lit": {}}
        sides = [_Side(root, "hall-a", near_port, stamps), _Side(root, "hall-b", far_port, stamps)]
        _wait(lambda: "hall-b" in sides[0].wire.lobby and "hall-a" in sides[1].wire.lobby,
              "the lobby cards")  # fmt: skip
        while len(latencies) < moves:
            stamps["sent"], stamps["lit"] = {}, {}
            _match(*sides)
            while (
                not all(s.wire.free for s in sides)
                and len(latencies) + len(set(stamps["sent"]) & set(stamps["lit"])) < moves
            ):
                if not any(_hand(s, rng) for s in sides):
                    time.sleep(0.001)  # the other board has not lit the move yet
            done = set(stamps["sent"]) & set(stamps["lit"])
            latencies += [stamps["lit"][k] - stamps["sent"][k] for k in sorted(done)]
            for s in sides:
                match = s.wire.match
                if match is not None and not s.wire.free:
                    s.board.call("resign", side=match.local.letter)
                    break
            _finish(sides, rng)
        sent = sum(s.wire.sent_bytes for s in sides)
    finally:
        for s in sides:
            s.close()
        for proc in (near, far):
            proc.kill()
            proc.wait(10)
        shutil.rmtree(root, ignore_errors=True)
    ms = sorted(x * 1000 for x in latencies[:moves])
    return {
        "moves": len(ms),
        "p50": statistics.median(ms),
        "p99": ms[min(len(ms) - 1, int(len(ms) * 0.99))],
        "max": ms[-1],
        "bytes": sent / max(1, len(latencies)),
    }


def main(argv: Sequence[str]) -> int:
    """Run the benchmark and print its figures."""
    p = argparse.ArgumentParser(
        prog="kiothi-board bench remote",
        description=__doc__.split("\n")[0],
        formatter_class=DefaultsFormatter,
    )
    p.add_argument("--moves", type=int, default=500, help="moves measured")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    f = run(args.moves, args.seed)
    print(f"bench remote: two boards, two brokers bridged on loopback, {f['moves']:.0f} moves")
    print(f"  last press on one board -> first guide ring on the other: p50 {f['p50']:.1f} ms, "
          f"p99 {f['p99']:.1f} ms, max {f['max']:.1f} ms (goal: p99 <= 50 ms)")  # fmt: skip
    print(f"  bytes on the bus per move (topics and payloads both boards published): "
          f"{f['bytes']:.0f}")  # fmt: skip
    return 0
