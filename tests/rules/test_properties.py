"""Hypothesis properties of the rules engine: conservation, flags, fast == traced, round trips."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kiothi_board.errors import IllegalMoveError
from kiothi_board.rules import (
    SEEDS,
    GameRecord,
    Lift,
    OpeningAction,
    Position,
    Side,
    Variant,
    engine_for,
    format_record,
    pack,
    pack_flags,
    parse_opening,
    parse_record,
    pit_name,
    trace_move,
    unpack,
)
from kiothi_board.rules.fast import unpack_flags

variants = st.builds(
    Variant,
    V1=st.booleans(),
    V2=st.booleans(),
    V3=st.booleans(),
    V4=st.booleans(),
    V5=st.booleans(),
    V6=st.booleans(),
    V7=st.booleans(),
    V8=st.booleans(),
    ply_limit=st.one_of(st.none(), st.integers(1, 400)),
)


@st.composite
def boards(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[bool, ...], Side]:
    """Arbitrary boards (≤ 60 seeds) with arbitrary flags: far beyond reachable play."""
    counts = draw(st.lists(st.integers(0, 12), min_size=20, max_size=20))
    while sum(counts) > SEEDS:
        counts[counts.index(max(counts))] -= 1
    flags = draw(st.lists(st.booleans(), min_size=20, max_size=20))
    return tuple(counts), tuple(flags), draw(st.sampled_from(Side))


def random_game(variant: Variant, seed: int, max_plies: int) -> tuple[list[Position], list[str]]:
    """The positions and action texts of a seeded random game (random openings included)."""
    rng = random.Random(seed)
    pos = Position.initial(variant)
    out = [pos]
    actions = []
    while not pos.over and len(out) <= max_plies:
        if pos.phase == "opening":
            lifts = []
            board = list(pos.board)
            for _ in range(rng.randint(0, 2 if variant.V1 else 1)):
                own = [p for p in pos.to_move.pits if board[p]]
                pit = rng.choice(own)
                place = tuple(rng.randrange(20) for _ in range(board[pit]))
                board[pit] = 0
                for p in place:
                    board[p] += 1
                lifts.append(Lift(pit, place))
            action = OpeningAction(tuple(lifts))
            pos = pos.open(action)
            actions.append(str(action))
        else:
            pit = rng.choice(pos.legal_moves())
            pos = pos.play(pit)
            actions.append(pit_name(pit))
        out.append(pos)
    return out, actions


@settings(max_examples=300, deadline=None)
@given(boards(), variants)
def test_fast_path_equals_traced_path(
    position: tuple[tuple[int, ...], tuple[bool, ...], Side], variant: Variant
) -> None:
    board, flags, side = position
    engine = engine_for(variant)
    for pit in side.pits:
        if not board[pit]:
            continue
        fast = engine.sow(pack(board), pack_flags(flags), int(side), pit)
        try:
            trace = trace_move(board, flags, side, pit, variant)
        except IllegalMoveError:
            assert fast is None
            continue
        assert fast is not None
        assert unpack(fast[0]) == trace.board_after
        assert fast[2] == trace.captured
        expected_flags = list(flags)
        for p in trace.flags_set:
            expected_flags[p] = True
        assert unpack_flags(fast[1]) == tuple(expected_flags)


@settings(max_examples=40, deadline=None)
@given(variants, st.integers(0, 2**32))
def test_seeds_conserved_and_flags_only_become_sown(variant: Variant, seed: int) -> None:
    game, _ = random_game(variant, seed, 150)
    for before, after in itertools.pairwise(game):
        assert sum(after.board) + sum(after.captured) == SEEDS
        assert all(a or not b for b, a in zip(before.sown, after.sown, strict=True))
        assert after.captured[0] >= before.captured[0] and after.captured[1] >= before.captured[1]
        assert after.ply == before.ply + 1
    last = game[-1]
    if last.over:
        assert last.board == (0,) * 20 and last.result is not None
        assert last.result.captured == last.captured


@settings(max_examples=40, deadline=None)
@given(variants, st.integers(0, 2**32), st.booleans())
def test_record_round_trip(variant: Variant, seed: int, with_result: bool) -> None:
    game, actions = random_game(variant, seed, 60)
    result = game[-1].result if with_result else None
    record = GameRecord.from_actions(variant, actions, result)
    assert parse_record(format_record(record)) == record
    assert parse_record(record.to_json()) == record
    assert record.actions() == actions
    for action in record.opening:
        assert parse_opening(str(action)) == action
    assert [pos for _, _, pos in record.replay()] == game
