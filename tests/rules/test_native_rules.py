"""The native core's rules equal the Python path's: sowing results, legal moves, endless
moves (R6) and R11 keys, on random games across all 256 variant combinations and on
arbitrary boards (Hypothesis). The ≥ 1 M-position run is marked `soak` (`make soak`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kiothi_board import native
from kiothi_board.rules import SEEDS, Position, Side, Variant, engine_for, pack, pack_flags
from kiothi_board.rules.fast import SplitMix64, random_playout
from tests.rules.differential import VARIANTS, compare, positions

pytestmark = pytest.mark.skipif(
    not native.native_available(), reason=f"no native core: {native.describe()}"
)


def test_a_sample_of_positions_over_every_variant() -> None:
    seen = 0
    for i, (variant, board, sown, side) in enumerate(positions(30_000, seed=23)):
        compare(variant, board, sown, side, traced=i % 10 == 0)
        seen += 1
    assert seen == 30_000


@pytest.mark.soak
def test_a_million_positions_over_every_variant() -> None:
    endless = 0
    variants = set()
    for i, (variant, board, sown, side) in enumerate(positions(1_000_000, seed=2023)):
        endless += compare(variant, board, sown, side, traced=i % 100 == 0)
        variants.add(variant)
    assert len(variants) == 256
    assert endless > 0, "a million random positions offer some endless moves (R6)"


variants = st.sampled_from(VARIANTS)


@st.composite
def boards(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[bool, ...], Side]:
    """Arbitrary boards (≤ 60 seeds, piles up to 60) with arbitrary flags."""
    counts = draw(st.lists(st.integers(0, 60), min_size=20, max_size=20))
    while sum(counts) > SEEDS:
        counts[counts.index(max(counts))] -= 1
    flags = draw(st.lists(st.booleans(), min_size=20, max_size=20))
    return tuple(counts), tuple(flags), draw(st.sampled_from(Side))


@settings(max_examples=400, deadline=None)
@given(boards(), variants)
def test_arbitrary_boards_agree(
    position: tuple[tuple[int, ...], tuple[bool, ...], Side], variant: Variant
) -> None:
    board, flags, side = position
    packed, sown = pack(board), pack_flags(flags)
    compare(variant, packed, sown, int(side), traced=True)
    py, nat = engine_for(variant, "python"), engine_for(variant, "native")
    for pit in nat.moves_of(packed, int(side)):  # every non-empty pit, endless ones included
        assert nat.sow(packed, sown, int(side), pit) == py.sow(packed, sown, int(side), pit)


def test_an_endless_move_is_endless_on_both_cores() -> None:
    found = 0
    for variant, board, sown, side in positions(400_000, seed=60_000):
        if engine_for(variant, "python").endless_moves(board, sown, side):
            found += compare(variant, board, sown, side, traced=True)
            break
    assert found, "no endless move in the sample: widen it"


@settings(max_examples=60, deadline=None)
@given(variants, st.integers(0, 2**64 - 1), st.one_of(st.none(), st.integers(0, 300)))
def test_playouts_agree(variant: Variant, seed: int, max_plies: int | None) -> None:
    start = Position.initial(variant)
    while start.phase == "opening":
        start = start.open("pass")
    board, sown, side = start.packed
    a, b = SplitMix64(seed), SplitMix64(seed)
    py = random_playout(
        engine_for(variant, "python"), board, sown, side, (0, 0), a.random, max_plies
    )  # type: ignore[arg-type]
    nat = engine_for(variant, "native").random_playout(board, sown, side, (0, 0), b, max_plies)
    assert nat == py and a.state == b.state


def test_bad_input_is_refused_with_the_value_named() -> None:
    nat = engine_for(Variant(), "native")
    board, sown, side = Position.initial(Variant(V2=True)).packed
    with pytest.raises(ValueError, match="pit index 20"):
        nat.sow(board, sown, side, 20)
    with pytest.raises(ValueError, match="empty"):
        nat.sow(board, sown, side, 0)
    with pytest.raises(ValueError, match="more than 60 seeds"):
        nat.legal_moves(pack([61] + [0] * 19), 0, 0)
    with pytest.raises(ValueError, match="side must be 0"):
        nat.moves_of(board, 2)
    with pytest.raises(OverflowError, match="board"):
        nat.moves_of(1 << 200, 0)
    with pytest.raises(TypeError, match="board must be an int"):
        nat.moves_of("S6", 0)
