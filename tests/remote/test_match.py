"""The remote match's checker: sender, sequence, legality and hash (kiothi_board/remote)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kiothi_board.errors import IllegalMoveError
from kiothi_board.remote.actions import Action, BadActionError, position_hash
from kiothi_board.remote.match import (
    Checked,
    Desync,
    Duplicate,
    Gap,
    Match,
    MatchSpec,
    Refused,
)
from kiothi_board.rules import Lift, OpeningAction, Position, Side

SPEC = MatchSpec("m1", "hall1", "hall2")


def pair() -> tuple[Match, Match]:
    return Match(SPEC, Side.S), Match(SPEC, Side.N)


def random_action(match: Match, rng: random.Random) -> tuple[str, str]:
    """A legal game action for the side to move (random openings and moves)."""
    pos = match.position
    if pos.phase == "opening":
        if rng.random() < 0.5:
            return "opening", str(OpeningAction())
        pit = rng.choice(pos.legal_moves())
        place = tuple(rng.randrange(20) for _ in range(pos.board[pit]))
        return "opening", str(OpeningAction((Lift(pit, place),)))
    from kiothi_board.rules import pit_name

    return "move", pit_name(rng.choice(pos.legal_moves()))


def play_out(seed: int, limit: int = 400) -> tuple[Match, Match, list[Action]]:
    rng = random.Random(seed)
    south, north = pair()
    sent: list[Action] = []
    boards = {Side.S: south, Side.N: north}
    while not south.over and len(sent) < limit:
        mover = boards[south.position.to_move]
        other = boards[mover.local.other]
        action = mover.play(*random_action(mover, rng))
        assert other.receive(action, SPEC.board(mover.local)) == Checked(action)
        sent.append(action)
    return south, north, sent


def test_a_whole_game_keeps_both_boards_at_one_position() -> None:
    south, north, sent = play_out(1)
    assert south.position == north.position
    assert south.log == north.log == sent
    assert [a.seq for a in sent] == list(range(len(sent)))
    assert sent[-1].hash == position_hash(south.position)


def test_the_sender_must_play_the_actions_side() -> None:
    south, north = pair()
    action = south.play("opening", "pass")
    for sender in ("hall3", "display", "visitor", "hall2"):
        assert isinstance(north.receive(action, sender), Refused)
    assert north.log == []
    assert north.receive(action, "hall1") == Checked(action)


def test_another_match_is_refused() -> None:
    south, north = pair()
    action = replace(south.play("opening", "pass"), match="m2")
    assert isinstance(north.receive(action, "hall1"), Refused)


def test_a_duplicate_is_ignored_and_a_replayed_old_message_too() -> None:
    _south, north, sent = play_out(2, limit=6)
    assert north.receive(sent[0], "hall1") == Duplicate(sent[0])
    assert north.receive(sent[-1], SPEC.board(sent[-1].side)) == Duplicate(sent[-1])
    assert north.log == sent


def test_a_gap_asks_again_from_what_it_has() -> None:
    _south, _north, sent = play_out(4, limit=5)
    late = Match(SPEC, Side.N)
    assert late.receive(sent[2], SPEC.board(sent[2].side)) == Gap(0)
    assert late.receive(sent[0], SPEC.board(sent[0].side)) == Checked(sent[0])
    assert late.receive(sent[2], SPEC.board(sent[2].side)) == Gap(1)


def test_a_hash_mismatch_stops_the_match() -> None:
    south, north = pair()
    action = south.play("opening", "pass")
    verdict = north.receive(replace(action, hash="0" * 16), "hall1")
    assert isinstance(verdict, Desync) and "hash" in verdict.reason
    assert north.stopped is not None and north.over
    assert isinstance(north.receive(action, "hall1"), Refused)  # stopped: nothing more


def test_an_illegal_action_from_the_rightful_board_is_a_desync() -> None:
    _south, north = pair()
    forged = Action("m1", 0, "move", Side.S, "S3", position_hash(Position.initial()))
    assert isinstance(north.receive(forged, "hall1"), Desync)


def test_another_action_at_a_used_number_is_a_desync() -> None:
    south, north, sent = play_out(3, limit=4)
    other = replace(sent[1], value="N1" if sent[1].value != "N1" else "N2")
    assert isinstance(south.receive(other, SPEC.board(other.side)), (Desync, Refused))
    assert isinstance(north.receive(replace(sent[0], hash="1" * 16), "hall1"), Desync)


def test_own_action_out_of_turn_is_illegal() -> None:
    _south, north = pair()
    with pytest.raises(IllegalMoveError):
        north.play("opening", "pass")  # South opens first


def test_resign_agreement_and_claims_end_the_game_on_both_boards() -> None:
    for kinds, end in (
        ([("resign", "")], "resign"),
        ([("offer", ""), ("accept", "")], "agreement"),
        ([("claim", "win")], "resign"),
        ([("claim", "draw")], "abandoned"),
    ):
        south, north = pair()
        boards = [south, north]
        for i, (kind, value) in enumerate(kinds):
            me, other = boards[i % 2], boards[1 - i % 2]
            action = me.play(kind, value)  # type: ignore[arg-type]
            assert other.receive(action, SPEC.board(me.local)) == Checked(action)
        assert south.over and north.over
        assert south.position == north.position
        assert south.position.result is not None and south.position.result.end == end


def test_accept_needs_the_other_sides_offer() -> None:
    south, _north = pair()
    south.play("offer")
    with pytest.raises(IllegalMoveError):
        south.play("accept")  # one's own offer


def test_a_takeback_puts_the_offerer_to_move_again() -> None:
    south, north = pair()
    for action in (south.play("opening", "pass"),):
        north.receive(action, "hall1")
    before = north.position
    a = north.play("opening", "pass")
    south.receive(a, "hall2")
    offer = north.play("takeback")
    assert south.receive(offer, "hall2") == Checked(offer)
    accept = south.play("takeback_accept")
    assert north.receive(accept, "hall1") == Checked(accept)
    assert north.position == south.position == before
    assert north.position.to_move is Side.N


def test_an_action_reads_back_from_its_line() -> None:
    action = Action("m1", 7, "move", Side.N, "N7", "0123456789abcdef")
    assert Action.loads(action.dumps()) == action
    for bad in ("[]", "{}", "nope", action.dumps().replace('"N"', '"X"')):
        with pytest.raises(BadActionError):
            Action.loads(bad)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), noise=st.integers(0, 10**6))
def test_redelivery_and_reordering_never_apply_twice_nor_lose(seed: int, noise: int) -> None:
    """Whatever the broker redelivers, in whatever order (a board asks again on a gap),
    the receiver ends with exactly the sender's log."""
    south, _north, sent = play_out(seed, limit=60)
    rng = random.Random(noise)
    receiver = Match(SPEC, Side.N)
    mine = [a for a in sent if a.side is Side.S]
    theirs = [a for a in sent if a.side is Side.N]
    pending = list(sent)
    for _ in range(len(sent) * 3):
        if not pending:
            break
        action = rng.choice(pending + mine[:3] + theirs[:3])
        verdict = receiver.receive(action, SPEC.board(action.side))
        assert not isinstance(verdict, (Desync, Refused))
        if isinstance(verdict, Gap):
            action = sent[verdict.have]  # asked again: the missing one comes
            assert receiver.receive(action, SPEC.board(action.side)) == Checked(action)
        pending = sent[len(receiver.log) :]
    while pending:
        receiver.receive(pending.pop(0), SPEC.board(sent[len(receiver.log)].side))
    assert receiver.log == sent
    assert receiver.position == south.position


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), at=st.integers(0, 59), flip=st.integers(0, 15))
def test_any_changed_hash_stops_the_match(seed: int, at: int, flip: int) -> None:
    _south, _north, sent = play_out(seed, limit=60)
    at %= len(sent)
    receiver = Match(SPEC, Side.N)
    for action in sent[:at]:
        receiver.receive(action, SPEC.board(action.side))
    digit = "0123456789abcdef"[flip]
    bad = sent[at].hash[:-1] + (digit if digit != sent[at].hash[-1] else "x")
    verdict = receiver.receive(replace(sent[at], hash=bad), SPEC.board(sent[at].side))
    assert isinstance(verdict, Desync)
    assert len(receiver.log) == at
