"""Two venues: each board on its own broker, the brokers joined by a real Mosquitto bridge
on loopback (the config of docs/remote.md); the bridge is cut and healed mid-game."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiothi_board.rules import parse_record
from tests.conftest import Mosquitto, poll_until
from tests.remote.conftest import Cutter, Player, Seat, make_seat, play_match, start_match

KEEPALIVE = 2  # the boards' beat; presence must be right within KEEPALIVE * 1.5 + 2 s


@pytest.fixture
def venues(
    tmp_path: Path, bridged: tuple[Mosquitto, Mosquitto, Cutter]
) -> Iterator[tuple[Seat, Seat, Cutter]]:
    near, far, relay = bridged
    a = make_seat(tmp_path, near.port, "b1", "kiothi/v1", pace="instant", beat_s=KEEPALIVE)
    b = make_seat(tmp_path, far.port, "b2", "kiothi/v1", pace="instant", beat_s=KEEPALIVE)
    yield a, b, relay
    a.close()
    b.close()


def _player(seat: Seat) -> Player:
    return Player(seat.game, seat.board.call, lambda: seat.wire.match.local)


def test_a_match_across_a_bridge_survives_cuts(venues: tuple[Seat, Seat, Cutter]) -> None:
    a, b, relay = venues
    start_match(a, b)
    rng = random.Random(21)
    for _ in range(2):  # play a little, cut, check presence on both sides, heal
        play_match([_player(a), _player(b)], rng, limit=6, to_the_end=False)
        relay.cut()
        limit = KEEPALIVE * 1.5 + 2
        poll_until(lambda: a.wire.who()[1] == "offline", "b2 offline on b1", limit)
        poll_until(lambda: b.wire.who()[1] == "offline", "b1 offline on b2", limit)
        relay.heal()
        poll_until(lambda: a.wire.who()[1] == "online", "b2 online on b1", limit)
        poll_until(lambda: b.wire.who()[1] == "online", "b1 online on b2", limit)
    play_match([_player(a), _player(b)], rng, resign_after=40)
    assert a.wire.match.log == b.wire.match.log
    ida, idb = a.board.ask(lambda c: c.session.game_id), b.board.ask(lambda c: c.session.game_id)
    ra, rb = a.store.get_game(ida), b.store.get_game(idb)
    assert json.dumps(ra) == json.dumps(rb)
    assert parse_record(ra).final() == a.game().position
