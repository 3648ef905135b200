"""Two boards, one game over a real broker (a private mosquitto the tests start)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from kiothi_board.rules import parse_record
from tests.remote.conftest import Player, Seat, play_match, start_match


def player(seat: Seat) -> Player:
    return Player(seat.game, seat.board.call, lambda: seat.wire.match.local)


def test_a_whole_game_in_instant_pace_on_one_broker(seats: Callable[..., Seat]) -> None:
    a, b = seats("b1", pace="instant"), seats("b2", pace="instant")
    start_match(a, b)
    play_match([player(a), player(b)], random.Random(7))
    ga, gb = a.game(), b.game()
    assert ga is not None and gb is not None
    assert ga.position == gb.position
    ida, idb = a.board.ask(lambda c: c.session.game_id), b.board.ask(lambda c: c.session.game_id)
    ra, rb = a.store.get_game(ida), b.store.get_game(idb)
    assert ra is not None and rb is not None
    assert json.dumps(ra) == json.dumps(rb)  # byte for byte
    assert parse_record(ra).final() == ga.position
    assert a.wire.match.log == b.wire.match.log
