"""Presence and claims: a claim before `remote.gone_s` of absence is refused, after it the
present board wins (or draws); a board back before a claim simply goes on."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from kiothi_board.errors import ConflictError
from kiothi_board.rules import Side
from tests.conftest import poll_until
from tests.remote.conftest import Seat, cut, heal, start_match

GONE = 5.0  # far beyond the lag between the last will and the refused claim, even loaded


def test_a_claim_is_refused_before_gone_s_and_wins_after_it(seats: Callable[..., Seat]) -> None:
    a, b = seats("b1", pace="instant", gone_s=GONE), seats("b2", pace="instant", gone_s=GONE)
    start_match(a, b)
    a.board.call("opening", action="pass")
    poll_until(lambda: len(b.wire.match.log) == 1, "the opening across")
    poll_until(lambda: "Waiting for Hall 1" in b.board.ask(lambda c: c.instruction()) or
               b.game().mover is Side.N, "North's turn on b2")  # fmt: skip
    assert "Waiting for Hall 2's move (online)" in a.board.ask(lambda c: c.instruction())
    cut(b)
    poll_until(lambda: a.wire.who()[1] == "offline", "b2 offline on b1")
    assert "Waiting for Hall 2's move (offline)" in a.board.ask(lambda c: c.instruction())
    with pytest.raises(ConflictError, match="not been gone"):
        a.wire.claim("win")
    poll_until(lambda: (a.wire.gone_for() or 0) >= GONE, "gone_s of absence")
    assert a.wire.claim("win")["claim"] == "win"
    poll_until(lambda: (g := a.game()) is not None and g.stage == "over", "b1's game over")
    heal(b)  # back too late: it replays the log, claim included
    poll_until(lambda: (g := b.game()) is not None and g.stage == "over", "b2's game over")
    ga, gb = a.game(), b.game()
    assert ga is not None and gb is not None and ga.position == gb.position
    result = ga.position.result
    assert result is not None and result.winner is Side.S and result.by is Side.N
    ida = a.board.ask(lambda c: c.session.game_id)
    idb = b.board.ask(lambda c: c.session.game_id)
    assert json.dumps(a.store.get_game(ida)) == json.dumps(b.store.get_game(idb))


def test_a_board_back_before_a_claim_goes_on(seats: Callable[..., Seat]) -> None:
    a, b = seats("b1", pace="instant", gone_s=GONE), seats("b2", pace="instant", gone_s=GONE)
    start_match(a, b)
    cut(b)
    poll_until(lambda: a.wire.who()[1] == "offline", "b2 offline on b1")
    a.board.call("opening", action="pass")  # played while b2 is away
    heal(b)
    poll_until(lambda: a.wire.who()[1] == "online", "b2 online again on b1")
    with pytest.raises(ConflictError):
        a.wire.claim("draw")
    poll_until(lambda: len(b.wire.match.log) == 1, "the opening replayed on b2")
    poll_until(lambda: (g := b.game()) is not None and g.mover is Side.N, "North to open")
    b.board.call("opening", action="pass")
    poll_until(lambda: len(a.wire.match.log) == 2, "North's opening on b1")
    assert a.wire.match.log == b.wire.match.log
    poll_until(lambda: a.game().stage == b.game().stage == "turn", "South to move on both")


def test_undo_is_refused_and_end_offers_the_other_board(seats: Callable[..., Seat]) -> None:
    """A visitor's undo chord in a match would put the boards out of step: refused; the
    agreement chord offers, and the other board's one accepts."""
    a, b = seats("b1", pace="instant"), seats("b2", pace="instant")
    start_match(a, b)
    a.board.call("opening", action="pass")
    poll_until(lambda: len(b.wire.match.log) == 1, "the opening across")
    with pytest.raises(ConflictError, match="cannot be taken back"):
        a.board.call("undo")
    assert a.game().actions == ("pass",)
    a.board.call("end")  # an offer, not the end
    poll_until(lambda: b.wire.match.offer == (Side.S, "agreement"), "the offer across")
    assert a.game().stage != "over"
    b.board.call("end")  # accepts
    poll_until(lambda: a.game().stage == b.game().stage == "over", "ended by agreement")
    assert a.game().position.result.end == "agreement"
