"""The differential walk shared by the native-core tests and `bench rules --differential`:
random games across all 256 combinations of V1…V8, every position compared on both cores."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from kiothi_board.rules import Lift, OpeningAction, Position, Side, Variant, engine_for, trace_move
from kiothi_board.rules.fast import repetition_key, unpack, unpack_flags

NAMES = ("V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8")
VARIANTS = [
    Variant(**dict(zip(NAMES, flags, strict=True)))
    for flags in itertools.product((False, True), repeat=len(NAMES))
]
assert len(VARIANTS) == 256


def _opening(pos: Position, rng: random.Random) -> Position:
    """Random opening actions (R3, V1's two lifts included) until play starts."""
    while pos.phase == "opening":
        lifts = []
        board = list(pos.board)
        for _ in range(rng.randint(0, 2 if pos.variant.V1 else 1)):
            own = [p for p in pos.to_move.pits if board[p]]
            pit = rng.choice(own)
            place = tuple(rng.randrange(20) for _ in range(board[pit]))
            board[pit] = 0
            for p in place:
                board[p] += 1
            lifts.append(Lift(pit, place))
        pos = pos.open(OpeningAction(tuple(lifts)))
    return pos


def positions(count: int, seed: int) -> Iterator[tuple[Variant, int, int, int]]:
    """`count` play positions `(variant, board, sown, side)` of seeded random games, the
    games taking the 256 variants in turn."""
    rng = random.Random(seed)
    made = 0
    for game in itertools.count():
        variant = VARIANTS[game % len(VARIANTS)]
        pos = _opening(Position.initial(variant), rng)
        if pos.over:
            continue
        board, sown, side = pos.packed
        engine = engine_for(variant, "native")
        for _ in range(400):
            yield variant, board, sown, side
            made += 1
            if made >= count:
                return
            kids = engine.children(board, sown, side)
            if not kids:
                break
            _, board, sown, _ = kids[rng.randrange(len(kids))]
            side ^= 1


def compare(variant: Variant, board: int, sown: int, side: int, traced: bool = False) -> int:
    """Assert both cores agree on one position; returns how many endless moves it has."""
    py, nat = engine_for(variant, "python"), engine_for(variant, "native")
    assert nat.moves_of(board, side) == py.moves_of(board, side)
    assert nat.children(board, sown, side) == py.children(board, sown, side)
    assert nat.legal_moves(board, sown, side) == py.legal_moves(board, sown, side)
    endless = nat.endless_moves(board, sown, side)
    assert endless == py.endless_moves(board, sown, side)
    assert nat.key(board, sown, side) == py.key(board, sown, side)
    assert nat.key(board, sown, side) == repetition_key(board, sown, side)
    if traced:  # the traced path is the reference: the drop-by-drop story of each move
        cells, flags = unpack(board), unpack_flags(sown)
        for pit, b, s, g in nat.children(board, sown, side):
            trace = trace_move(cells, flags, Side(side), pit, variant)
            assert (unpack(b), g) == (trace.board_after, trace.captured)
            assert set(trace.flags_set) <= {i for i in range(20) if s >> i & 1}
    return len(endless)
