"""Who may act in a match: a third board, a display account and a visitor account cannot
inject a move, a resign or a claim, nor replay an old message (the broker's ACL, or the
board's check), on a broker with the fleet's users and ACL."""

from __future__ import annotations

from collections.abc import Callable

from kiothi_board.remote.actions import Action, position_hash
from kiothi_board.rules import Position, Side
from tests.conftest import Mosquitto, poll_until
from tests.remote.conftest import Seat, plain_client, published, start_match

P = "kiothi/v1"


def forged(mid: str, seq: int) -> list[Action]:
    """A move, a resign and a claim in South's name, each with the right hash."""
    pos = Position.initial()
    return [
        Action(mid, seq, "opening", Side.S, "pass", position_hash(pos.open("pass"))),
        Action(mid, seq, "resign", Side.S, "", position_hash(pos.resign(Side.S))),
        Action(mid, seq, "claim", Side.N, "win", position_hash(pos.resign(Side.S))),
    ]


def test_only_the_two_boards_of_a_match_act_in_it(
    acl_seats: Callable[..., Seat], acl_broker: Mosquitto
) -> None:
    a, b = acl_seats("b1", pace="instant"), acl_seats("b2", pace="instant")
    start_match(a, b)
    mid = a.wire.match.spec.match
    for user in ("b3", "display", "visitor"):
        intruder = plain_client(acl_broker.port, user)
        try:
            for action in forged(mid, 0):
                for writer in ("b1", "b2"):  # in a board's name: the broker refuses
                    topic = f"{P}/match/{mid}/{writer}/a/0"
                    assert published(intruder, topic, action.dumps()) == "Not authorized"
                own = f"{P}/match/{mid}/{user}/a/0"  # in its own name
                answer = published(intruder, own, action.dumps())
                assert answer == ("Success" if user == "b3" else "Not authorized")
        finally:
            intruder.loop_stop()
            intruder.disconnect()
    # A third board may write its own part of any match: both boards refuse it (not a board
    # of the match), and nothing was applied.
    poll_until(lambda: a.wire.refused >= 3 and b.wire.refused >= 3, "the third board refused")
    assert a.wire.match.log == b.wire.match.log == []
    # The match goes on; an old message sent again is a duplicate, ignored.
    a.board.call("opening", action="pass")
    poll_until(lambda: len(b.wire.match.log) == 1, "South's opening across")
    old = a.wire.match.log[0]
    a.client.publish(f"{P}/match/{mid}/b1/a/0", old.dumps(), qos=1).wait_for_publish(10)
    poll_until(lambda: b.wire.duplicates >= 1, "the replayed message ignored")
    assert b.wire.match.log == [old] and b.wire.match.stopped is None
    # The third board replays b1's old action under its own name: refused.
    intruder = plain_client(acl_broker.port, "b3")
    try:
        refused = b.wire.refused
        assert published(intruder, f"{P}/match/{mid}/b3/a/0", old.dumps()) == "Success"
        poll_until(lambda: b.wire.refused > refused, "the copied message refused")
    finally:
        intruder.loop_stop()
        intruder.disconnect()
    assert b.wire.match.log == [old]
