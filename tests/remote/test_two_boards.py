"""Two boards, one game over a real broker (a private mosquitto the tests start)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from kiothi_board.rules import parse_record
from tests.remote.conftest import Player, Seat, play_match, start_match

RESIGN_AFTER = 60  # actions; the soak plays whole games to their natural end


def player(seat: Seat) -> Player:
    return Player(
        seat.game,
        seat.board.call,
        lambda: seat.wire.match.local,
        lambda: seat.board.ask(lambda c: c.expected_pit()),
        seat.board.press,
    )


def test_a_whole_game_in_instant_pace_on_one_broker(seats: Callable[..., Seat]) -> None:
    a, b = seats("b1", pace="instant"), seats("b2", pace="instant")
    start_match(a, b)
    play_match([player(a), player(b)], random.Random(7), resign_after=RESIGN_AFTER)
    ga, gb = a.game(), b.game()
    assert ga is not None and gb is not None
    assert ga.position == gb.position
    ida, idb = a.board.ask(lambda c: c.session.game_id), b.board.ask(lambda c: c.session.game_id)
    ra, rb = a.store.get_game(ida), b.store.get_game(idb)
    assert ra is not None and rb is not None
    assert json.dumps(ra) == json.dumps(rb)  # byte for byte
    assert parse_record(ra).final() == ga.position
    assert a.wire.match.log == b.wire.match.log


def test_a_whole_game_in_step_pace_fake_hands_press_the_lit_pits(
    seats: Callable[..., Seat],
) -> None:
    """Each board's hand presses the pit its rings point at, pit by pit, for its own
    moves and for the other board's (the remote side's seeds moved by the local hand)."""
    a, b = seats("b1", pace="step"), seats("b2", pace="step")
    start_match(a, b)
    play_match([player(a), player(b)], random.Random(11), limit=20000, resign_after=12)
    ga, gb = a.game(), b.game()
    assert ga is not None and gb is not None and ga.position == gb.position
    ida, idb = a.board.ask(lambda c: c.session.game_id), b.board.ask(lambda c: c.session.game_id)
    ra, rb = a.store.get_game(ida), b.store.get_game(idb)
    assert json.dumps(ra) == json.dumps(rb)
    assert parse_record(ra).final() == ga.position


@pytest.mark.soak
@pytest.mark.parametrize("pace", ["instant", "step"])
def test_whole_games_to_their_natural_end(seats: Callable[..., Seat], pace: str) -> None:
    """No resignation: random play until the rules end the game (hundreds of plies)."""
    a, b = seats("b1", pace=pace), seats("b2", pace=pace)
    start_match(a, b)
    play_match([player(a), player(b)], random.Random(5), limit=200_000)
    ida, idb = a.board.ask(lambda c: c.session.game_id), b.board.ask(lambda c: c.session.game_id)
    ra, rb = a.store.get_game(ida), b.store.get_game(idb)
    assert json.dumps(ra) == json.dumps(rb)
    assert parse_record(ra).result.end not in ("resign", "abandoned")
