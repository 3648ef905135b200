"""Master says `exact` where its search proves the ending, with the proven value and a
reason that says so (issue 36: `exact` was set once in 220 endings it played perfectly)."""

from __future__ import annotations

import random
from collections import Counter

from kiothi_board import native
from kiothi_board.ai import make_player
from kiothi_board.i18n import Msg
from kiothi_board.rules import Position
from tests.ai.test_ai_search import exact_value, make


def small_endings(count: int, seed: int) -> list[tuple[Position, float]]:
    """Play positions of 2–6 seeds whose R10/R11 value brute force finds (margin for the mover)."""
    rng = random.Random(seed)
    out: list[tuple[Position, float]] = []
    while len(out) < count:
        board = [0] * 20
        for _ in range(rng.randrange(2, 7)):
            board[rng.randrange(20)] += 1
        if not any(board[:10]):
            continue
        left = sum(board)
        south = rng.randrange(0, 60 - left + 1)
        pos = make(board, [i for i in range(20) if rng.random() < 0.6], (south, 60 - left - south))
        b, s, side = pos.packed
        truth = exact_value(b, s, side, Counter({pos.key: 1}))
        if truth is not None:
            out.append((pos, south - (60 - left - south) + truth / 100))
    return out


def test_master_proves_small_endings_with_the_right_value() -> None:
    for pos, margin in small_endings(10, seed=36):
        for core in sorted({native.default_core(), "python"}):  # both, unless forced to one
            player = make_player(f"level:9,core={core}", seed=1)
            try:
                hint = player.choose(pos)
            finally:
                player.close()
            assert hint.exact, (core, pos.board)
            assert hint.score == margin, (core, pos.board, hint.score, margin)
            assert isinstance(hint.explanation, Msg)
            verdict = "wins" if margin > 0 else "draw" if margin == 0 else "loses"
            assert "proven" in hint.explanation and verdict in hint.explanation, hint.explanation


def test_an_unproven_move_does_not_claim_a_proof() -> None:
    pos = Position.initial().open("pass").open("pass")
    player = make_player("level:9", seed=1)
    try:
        hint = player.choose(pos)
    finally:
        player.close()
    assert not hint.exact
    assert "proven" not in hint.explanation
