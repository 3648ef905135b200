"""The native core's search equals the Python path's: the same move, score, depth, node
count, principal variation and root scores at a fixed depth, under node caps, with game
histories, ply limits and other weights; the same evaluation; and levels 1–8 play the same
games on both cores (the whole games are `soak`; the suite plays their first moves)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import astuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kiothi_board import native
from kiothi_board.ai import BASELINE, TUNED, Searcher, Weights, make_player
from kiothi_board.ai.search import SearchResult
from kiothi_board.rules import Position, Variant
from kiothi_board.tools.bench_ai import suite
from tests.rules.differential import VARIANTS, positions

pytestmark = pytest.mark.skipif(
    not native.native_available(), reason=f"no native core: {native.describe()}"
)

SUITE = suite(12)


def same(a: SearchResult, b: SearchResult) -> None:
    """Everything but the elapsed times."""
    assert (a.move, a.score, a.depth, a.nodes, a.pv, a.exact, a.root_scores) == (
        b.move,
        b.score,
        b.depth,
        b.nodes,
        b.pv,
        b.exact,
        b.root_scores,
    )
    assert [(i.depth, i.move, i.score, i.nodes, i.pv) for i in a.iterations] == [
        (i.depth, i.move, i.score, i.nodes, i.pv) for i in b.iterations
    ]


def both(pos: Position, **kwargs: object) -> tuple[SearchResult, SearchResult]:
    weights = kwargs.pop("weights", TUNED)
    extensions = kwargs.pop("extensions", 2)
    out = []
    for core in ("python", "native"):
        s = Searcher(pos.variant, core=core, weights=weights, extensions=extensions)  # type: ignore[arg-type]
        out.append(s.search(*pos.packed, **kwargs))  # type: ignore[arg-type]
    return out[0], out[1]


@pytest.mark.parametrize("index", range(len(SUITE)))
def test_fixed_depth_search_is_the_same(index: int) -> None:
    pos = SUITE[index]
    same(*both(pos, max_depth=6, game_history=Counter(pos.history)))


def test_node_caps_ply_limits_and_repetitions_count_the_same() -> None:
    for pos in SUITE[:6]:
        same(*both(pos, max_nodes=5_000))
        same(*both(pos, max_depth=5, plies_left=7))
        same(*both(pos, max_depth=5, rep_limit=2, game_history={pos.key: 2}))
        same(*both(pos, max_depth=4, weights=BASELINE, extensions=0))


def test_tables_kept_between_searches_stay_the_same() -> None:
    """A searcher keeps its table across moves (as a game does): both cores stay in step."""
    cores = [Searcher(core="python"), Searcher(core="native")]
    for pos in SUITE[:5]:
        a, b = (s.search(*pos.packed, max_depth=5) for s in cores)
        same(a, b)
    assert cores[0].tree.tt_len() == cores[1].tree.tt_len()
    assert cores[0].tree.hist == cores[1].tree.hist  # type: ignore[attr-defined]


weights = st.builds(
    Weights,
    row=st.integers(-300, 300),
    safe=st.integers(-300, 300),
    mobility=st.integers(-300, 300),
    last_pit=st.integers(-500, 500),
    chain=st.integers(-300, 300),
    pile=st.integers(-300, 300),
    pile_size=st.integers(0, 61),
    tempo=st.integers(-100, 100),
)


@settings(max_examples=60, deadline=None)
@given(weights, st.integers(0, 10**6))
def test_the_evaluation_is_the_same(w: Weights, seed: int) -> None:
    py = Searcher(core="python", weights=w)
    nat = Searcher(core="native", weights=w)
    for _variant, board, sown, side in positions(40, seed):
        assert nat.evaluate(board, sown, side) == py.evaluate(board, sown, side), astuple(w)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 10**6), st.integers(1, 4))
def test_searches_in_every_variant_are_the_same(variant: Variant, seed: int, depth: int) -> None:
    rng = random.Random(seed)
    pos = Position.initial(variant)
    while pos.phase == "opening":
        pos = pos.open("pass")
    for _ in range(rng.randrange(0, 40)):
        if pos.over:
            return
        pos = pos.play(rng.choice(pos.legal_moves()))
    if not pos.over:
        same(*both(pos, max_depth=depth, game_history=Counter(pos.history)))


def play(level: int, core: str, plies: int, seed: int) -> list[str]:
    """A game of `level` against itself on one core, its own openings included."""
    players = [make_player(f"level:{level},core={core}", seed=seed + i) for i in range(2)]
    pos = Position.initial(Variant(ply_limit=plies))
    actions = []
    while not pos.over:
        hint = players[int(pos.to_move)].choose(pos)
        pos = pos.apply(hint.action)
        actions.append(f"{hint.action}/{hint.nodes}/{hint.depth}")
    return actions


@pytest.mark.parametrize("level", range(1, 9))
def test_levels_play_the_same_openings_and_first_moves(level: int) -> None:
    assert play(level, "native", 10, 5) == play(level, "python", 10, 5)


@pytest.mark.soak
@pytest.mark.parametrize("level", range(1, 9))
def test_levels_play_the_same_games(level: int) -> None:
    for seed in (1, 2):
        assert play(level, "native", 150, seed) == play(level, "python", 150, seed)
