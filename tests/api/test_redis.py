"""The Redis bus against a real redis-server that the test kills and restarts mid-game."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import redis

from kiothi_board.api import Dispatcher
from kiothi_board.api.redis_bus import RedisBus
from kiothi_board.board import Board
from tests.api.helpers import validator
from tests.conftest import RedisServer, poll_until


@pytest.fixture
def redis_proc(make_redis_server: type[RedisServer]) -> RedisServer:
    """A throwaway redis-server on its own port, without persistence."""
    return make_redis_server().start()


def _wait(pred: Any, timeout: float = 30.0) -> None:
    """Poll `pred` (state in another process cannot notify us) until true or timeout."""
    poll_until(pred, "the redis bus's state", timeout)


def test_state_events_commands_and_a_redis_restart_mid_game(
    redis_proc: RedisServer, board: Board
) -> None:
    d = Dispatcher(board)
    url = f"redis://127.0.0.1:{redis_proc.port}/0"
    peer = redis.Redis(port=redis_proc.port)
    pubsub = peer.pubsub()
    pubsub.subscribe("kiothi:v1:events")
    bus = RedisBus(d, url, backoff=(0.02, 0.2)).start()
    try:
        assert bus.synced.wait(30)
        board.call(
            "new_game",
            mode="two",
            sides="SN",
            level=3,
            pace="instant",
            variant={"V2": True, "ply_limit": 30},
        )
        board.call("move", pit=5)  # S6

        def state() -> dict[str, Any]:
            raw = peer.get("kiothi:v1:state")
            return json.loads(raw) if raw else {}

        _wait(lambda: state().get("state", {}).get("actions") == ["S6"])
        validator("redis.state").validate(state())
        got: list[dict[str, Any]] = []
        for _ in range(50):
            m = pubsub.get_message(timeout=0.2)
            if m and m["type"] == "message":
                got.append(json.loads(m["data"]))
            if any(e["event"] == "move" for e in got):
                break
        kinds = [e["event"] for e in got]
        assert kinds.index("new_game") < kinds.index("position") < kinds.index("move")
        for e in got:
            validator("event").validate(e)

        # A command through the stream; its reply on the replies stream. (Commands added
        # before the bus reads the stream are stale by design, so wait until it does.)
        assert bus.listening.wait(30)
        peer.xadd("kiothi:v1:commands", {"line": '{"id":"r1","cmd":"state"}'})
        _wait(lambda: peer.xlen("kiothi:v1:replies") >= 1)
        reply = json.loads(peer.xrange("kiothi:v1:replies")[-1][1][b"line"])
        assert reply["id"] == "r1" and reply["ok"]

        # Kill Redis mid-game: the game goes on, never waiting.
        redis_proc.kill()
        t0 = time.perf_counter()
        moves = 0
        while not board.state()["position"]["over"] and moves < 8:
            board.call("move", pit=_first(board))
            moves += 1
        assert time.perf_counter() - t0 < 0.5  # no call waited on the dead server
        _wait(lambda: bus.status == "down")
        assert d.health()["redis"]["status"] == "down"
        redis_proc.start()
        # On return: a full resync of the state, with every move made while it was away.
        peer = redis.Redis(port=redis_proc.port)
        want = board.state()["actions"]
        _wait(lambda: bus.synced.is_set() and state().get("state", {}).get("actions") == want)
        assert bus.reconnects >= 1 and bus.status == "up"
        # And it keeps mirroring after the restart.
        if not board.state()["position"]["over"]:
            board.call("move", pit=_first(board))
            want = board.state()["actions"]
            _wait(lambda: state().get("state", {}).get("actions") == want)
    finally:
        bus.close()
        d.close()


def _first(service: Board) -> int:
    from kiothi_board.rules import parse_pit

    return parse_pit(service.state()["position"]["legal"][0])
