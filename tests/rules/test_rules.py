"""One or more tests per rule clause R1–R12 on hand-built positions (RULES.md)."""

from __future__ import annotations

import pytest

from kiothi_board.errors import IllegalMoveError, NotationError
from kiothi_board.rules import (
    INITIAL_BOARD,
    Capture,
    Position,
    Result,
    Saved,
    Side,
    Variant,
    opposite,
    owner,
    parse_pit,
    pit_name,
)
from tests.rules.helpers import board_of, make


def started(variant: Variant | None = None) -> Position:
    """The position after both players pass in the opening."""
    return Position.initial(variant or Variant()).open("pass").open("pass")


# --------------------------------------------------------------------------- R1
def test_r1_indices_names_and_opposites() -> None:
    assert [pit_name(i) for i in (0, 9, 10, 19)] == ["S1", "S10", "N1", "N10"]
    assert parse_pit("S1") == 0 and parse_pit("N10") == 19
    assert opposite(parse_pit("S1")) == parse_pit("N10")
    assert opposite(parse_pit("S10")) == parse_pit("N1")
    assert owner(9) is Side.S and owner(10) is Side.N
    assert Side.S.leftmost == 0 and Side.N.leftmost == 10


@pytest.mark.parametrize("bad", ["S0", "S11", "N", "s1", "X3", "", "S1 "])
def test_r1_bad_pit_names_are_rejected_quoting_the_input(bad: str) -> None:
    with pytest.raises(NotationError, match=repr(bad).replace("\\", "\\\\")):
        parse_pit(bad)


def test_r1_sowing_runs_counter_clockwise_through_both_rows() -> None:
    # S10's seeds go on to N1, N2: South's right, then North's row from North's left.
    pos = make(board_of(S10=3, N5=4), all_sown=True)
    _, trace = pos.play_traced("S10")
    assert [pit_name(p) for p in trace.laps[0].drops] == ["N1", "N2", "N3"]
    # N10's seeds go on to S1.
    pos = make(board_of(N10=2, S5=4), all_sown=True, to_move=Side.N)
    _, trace = pos.play_traced("N10")
    assert [pit_name(p) for p in trace.laps[0].drops] == ["S1", "S2"]


# --------------------------------------------------------------------------- R2
def test_r2_setup() -> None:
    pos = Position.initial()
    assert pos.board == INITIAL_BOARD
    assert pos.board == board_of(S6=6, S7=6, S8=6, S9=6, S10=6, N6=6, N7=6, N8=6, N9=6, N10=6)
    assert not any(pos.sown)
    assert pos.to_move is Side.S and pos.phase == "opening" and pos.ply == 0
    assert [pit_name(p) for p in pos.legal_moves()] == ["S6", "S7", "S8", "S9", "S10"]


# --------------------------------------------------------------------------- R3
def test_r3_opening_lift_and_place_then_north_then_play() -> None:
    pos = Position.initial().open("S7>S1,S1,N3,N3,N4,S2")
    assert pos.board == board_of(
        S1=2, S2=1, S6=6, S8=6, S9=6, S10=6, N3=2, N4=1, N6=6, N7=6, N8=6, N9=6, N10=6
    )
    assert not any(pos.sown), "a lift in the opening does not make the pit sown"
    assert pos.to_move is Side.N and pos.phase == "opening" and pos.ply == 1
    assert [pit_name(p) for p in pos.legal_moves()] == ["N3", "N4", "N6", "N7", "N8", "N9", "N10"]
    pos = pos.open("pass")
    assert pos.phase == "play" and pos.to_move is Side.S and pos.ply == 2


def test_r3_lifted_pit_may_receive_its_own_seeds() -> None:
    pos = Position.initial().open("S6>S6,S6,S6,S6,S6,S6")
    assert pos.board == INITIAL_BOARD


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("N7>N1,N1,N1,N1,N1,N1", "not S's pit"),
        ("S1>", "S1 is empty"),
        ("S7>S1,S1", "holds 6 seeds but 2 placements"),
        ("S7>S1,S1,S1,S1,S1,S1;S8>S1,S1,S1,S1,S1,S1", "at most 1"),
    ],
)
def test_r3_illegal_opening_actions_change_nothing(action: str, message: str) -> None:
    pos = Position.initial()
    with pytest.raises(IllegalMoveError, match=message):
        pos.open(action)
    assert pos == Position.initial()


def test_r3_no_sowing_during_opening_and_no_opening_in_play() -> None:
    with pytest.raises(IllegalMoveError, match="opening"):
        Position.initial().play("S6")
    with pytest.raises(IllegalMoveError, match="outside the opening"):
        started().open("pass")


# --------------------------------------------------------------------------- R4
def test_r4_simple_lap() -> None:
    pos, trace = started().play_traced("S6")
    assert pos.board == board_of(S7=7, S8=7, S9=7, S10=7, N1=1, N2=1, N6=6, N7=6, N8=6, N9=6, N10=6)
    assert len(trace.laps) == 1 and trace.landing == parse_pit("N2")
    assert trace.captures == () and pos.sown[parse_pit("S6")]
    assert pos.to_move is Side.N and pos.ply == 3


def test_r4_only_own_non_empty_pits() -> None:
    pos = started()
    with pytest.raises(IllegalMoveError, match="not S's pit"):
        pos.play("N6")
    with pytest.raises(IllegalMoveError, match="S1 is empty"):
        pos.play("S1")


def test_r4_lap_of_twenty_drops_into_its_own_pit() -> None:
    # 20 seeds from S1: S2…N10 get one each, the 20th falls back into the emptied S1.
    pos = make(board_of(S1=20), all_sown=True)
    after, trace = pos.play_traced("S1")
    assert trace.laps[0].drops[-1] == 0 and trace.landing == 0 and len(trace.laps) == 1
    # S1 landed after crossing: landing seed, N10 opposite and the R9 run N9…N1 are taken.
    assert trace.captured == 1 + 1 + 9
    left = board_of(S2=1, S3=1, S4=1, S5=1, S6=1, S7=1, S8=1, S9=1, S10=1)
    assert trace.board_after == left
    # North's row is now empty: R10 gives South the nine seeds left.
    assert after.over and after.result == Result.of((20, 40), "no-moves")


# --------------------------------------------------------------------------- R5
def test_r5_relay_from_a_non_empty_pit_and_landing_in_an_empty_one() -> None:
    # S9 (3) -> S10, N1, N2; N2 held 2 so the hand relays 3 from N2 -> N3, N4, N5 (empty).
    pos = make(board_of(S9=3, N2=2, N8=1))
    after, trace = pos.play_traced("S9")
    assert [(pit_name(lap.lifted), lap.seeds, lap.relay) for lap in trace.laps] == [
        ("S9", 3, False),
        ("N2", 3, True),
    ]
    assert trace.landing == parse_pit("N5") and trace.captures == ()
    assert after.board == board_of(S10=1, N1=1, N3=1, N4=1, N5=1, N8=1)


def test_r7_relay_out_of_opponents_pit_leaves_its_flag_unchanged() -> None:
    pos = make(board_of(S9=3, N2=2, N8=1))
    after, trace = pos.play_traced("S9")
    assert trace.flags_set == (parse_pit("S9"),)
    assert not after.sown[parse_pit("N2")]
    # V4: any player's sowing from a pit makes it sown.
    v4 = make(board_of(S9=3, N2=2, N8=1), variant=Variant(V4=True))
    after4, trace4 = v4.play_traced("S9")
    assert after4.sown[parse_pit("N2")] and trace4.laps[1].flag_set


def test_r7_relay_out_of_own_pit_makes_it_sown() -> None:
    # S1 (2) -> S2, S3; S3 held 1 so relay 2 -> S4, S5 (empty): S3 became sown.
    pos = make(board_of(S1=2, S3=1, N5=1))
    after, trace = pos.play_traced("S1")
    assert trace.flags_set == (0, 2)
    assert after.sown[0] and after.sown[2] and not after.sown[4]


# --------------------------------------------------------------------------- R6
def test_r6_endless_move_is_not_legal() -> None:
    from tests.rules.test_examples import example_final

    pos = example_final("endless-option")
    endless = pos.endless_moves()
    assert endless == [parse_pit("N8")]
    assert parse_pit("N8") not in pos.legal_moves() and pos.legal_moves()
    with pytest.raises(IllegalMoveError, match="endless"):
        pos.play("N8")
    b, s, side = pos.packed
    assert pos.engine.sow(b, s, side, parse_pit("N8")) is None


def test_r6_long_but_finite_moves_are_legal_and_counted_exactly() -> None:
    from kiothi_board.rules import MAX_LAPS
    from kiothi_board.rules.sowing import trace_move

    # Found by a seeded random game: S5 ends after 171 laps.
    board = (6, 1, 4, 1, 2, 5, 4, 0, 0, 1, 10, 1, 0, 1, 2, 7, 1, 0, 2, 1)
    pos = make(board, all_sown=True)
    trace = trace_move(pos.board, pos.sown, pos.to_move, parse_pit("S5"), pos.variant)
    assert len(trace.laps) == 171 < MAX_LAPS
    assert parse_pit("S5") in pos.legal_moves()
    b, s, side = pos.packed
    assert pos.engine.sow(b, s, side, parse_pit("S5")) is not None


# --------------------------------------------------------------------------- R8
def test_r8_1_landing_in_opponents_row_captures_nothing() -> None:
    pos = make(board_of(S10=2, N8=5), all_sown=True)
    _, trace = pos.play_traced("S10")
    assert trace.landing == parse_pit("N2") and trace.crossed and trace.captures == ()


def test_r8_2_landing_in_own_row_without_crossing_captures_nothing() -> None:
    pos = make(board_of(S1=2, N8=5, N9=1), all_sown=True)
    _, trace = pos.play_traced("S1")
    assert trace.landing == parse_pit("S3") and not trace.crossed
    assert trace.crossing is None and trace.captures == ()


def test_r8_3_capture_landing_seed_and_sown_opposite() -> None:
    # S10 (13): N1…N10, S1, S2, S3 (empty) -> landing S3 after crossing; opposite N8.
    pos = make(board_of(S10=13, N8=3), sown=["S10", "N8"])
    after, trace = pos.play_traced("S10")
    assert trace.landing == parse_pit("S3") and trace.crossing == (0, 0)
    assert trace.captures == (
        Capture(parse_pit("S3"), 1, "R8 landing"),
        Capture(parse_pit("N8"), 4, "R8 opposite"),
    )
    assert after.captured[0] == pos.captured[0] + 5
    assert after.board[parse_pit("S3")] == 0 and after.board[parse_pit("N8")] == 0


def test_r8_3_landing_in_an_unsown_own_pit_still_captures_the_landing_seed() -> None:
    pos = make(board_of(S10=13, N8=3), sown=["S10", "N8"])
    assert not pos.sown[parse_pit("S3")]
    _, trace = pos.play_traced("S10")
    assert Capture(parse_pit("S3"), 1, "R8 landing") in trace.captures


def test_r7_opposite_pit_saved_while_unsown() -> None:
    pos = make(board_of(S10=13, N8=3), sown=["S10"])
    after, trace = pos.play_traced("S10")
    assert trace.captures == (Capture(parse_pit("S3"), 1, "R8 landing"),)
    assert trace.saved == (Saved(parse_pit("N8"), 4, "R8 opposite"),)
    assert after.board[parse_pit("N8")] == 4


def test_r8_crossing_in_an_earlier_lap_counts() -> None:
    # S9 (11): S10, N1…N10; N10 held 1 -> relay 2: S1, S2 (empty). Only lap 1 crossed.
    pos = make(board_of(S9=11, N10=1, N9=2), all_sown=True)
    _, trace = pos.play_traced("S9")
    assert trace.landing == parse_pit("S2") and len(trace.laps) == 2
    assert trace.crossed and trace.captured == 1 + 3  # landing + N9 (2 + 1 dropped)


# --------------------------------------------------------------------------- R9
def chain_position(variant: Variant | None = None) -> Position:
    # 20 seeds from S1 land back in S1 after crossing; N10…N1 each got one seed.
    # N4 is unsown: it keeps its seed; V8 stops the run there.
    sown = ["S1", "N10", "N9", "N8", "N7", "N6", "N5", "N3", "N2", "N1"]
    return make(board_of(S1=20, N9=2, N6=1), sown=sown, variant=variant)


def test_r9_leftmost_chain_skips_unsown_pits_inside_the_run() -> None:
    after, trace = chain_position().play_traced("S1")
    rules = [(pit_name(c.pit), c.seeds, c.rule) for c in trace.captures]
    assert rules == [
        ("S1", 1, "R8 landing"),
        ("N10", 1, "R8 opposite"),
        ("N9", 3, "R9 chain"),
        ("N8", 1, "R9 chain"),
        ("N7", 1, "R9 chain"),
        ("N6", 2, "R9 chain"),
        ("N5", 1, "R9 chain"),
        ("N3", 1, "R9 chain"),
        ("N2", 1, "R9 chain"),
        ("N1", 1, "R9 chain"),
    ]
    assert trace.saved == (Saved(parse_pit("N4"), 1, "R9 chain"),)
    assert after.board[parse_pit("N4")] == 1


def test_v8_an_unsown_pit_ends_the_chain() -> None:
    _, trace = chain_position(Variant(V8=True)).play_traced("S1")
    assert [pit_name(c.pit) for c in trace.captures] == [
        "S1",
        "N10",
        "N9",
        "N8",
        "N7",
        "N6",
        "N5",
    ]
    assert trace.saved == (Saved(parse_pit("N4"), 1, "R9 chain"),)


def test_r9_norths_run_goes_s9_s8_and_on_to_s1() -> None:
    # N9 (12): N10, S1…S10, N1 (empty) -> landing N1, North's leftmost, after crossing.
    pos = make(board_of(N9=12, S10=1, S9=2, S7=5), all_sown=True, to_move=Side.N)
    _, trace = pos.play_traced("N9")
    assert trace.landing == parse_pit("N1")
    assert [(pit_name(c.pit), c.seeds, c.rule) for c in trace.captures] == [
        ("N1", 1, "R8 landing"),
        ("S10", 2, "R8 opposite"),
        ("S9", 3, "R9 chain"),
        ("S8", 1, "R9 chain"),
        ("S7", 6, "R9 chain"),
        ("S6", 1, "R9 chain"),
        ("S5", 1, "R9 chain"),
        ("S4", 1, "R9 chain"),
        ("S3", 1, "R9 chain"),
        ("S2", 1, "R9 chain"),
        ("S1", 1, "R9 chain"),
    ]


def test_r9_run_ends_at_the_first_empty_pit() -> None:
    # S10 (8): N1…N8; N8 held 2 -> relay 3 from N8: N9, N10, S1 (empty) -> landing S1.
    # N8 was just emptied by the relay, so the run N9, N8… stops after N9; N6 is spared.
    pos = make(board_of(S10=8, N8=2, N9=2, N10=1, N6=5), all_sown=True)
    after, trace = pos.play_traced("S10")
    assert trace.landing == 0 and len(trace.laps) == 2
    assert [(pit_name(c.pit), c.seeds, c.rule) for c in trace.captures] == [
        ("S1", 1, "R8 landing"),
        ("N10", 2, "R8 opposite"),
        ("N9", 3, "R9 chain"),
    ]
    assert after.board[parse_pit("N6")] == 6


def test_r9_only_from_the_leftmost_pit() -> None:
    # Landing in S3 after crossing: the opposite is captured, no chain follows.
    pos = make(board_of(S10=13, N8=3, N7=4), all_sown=True)
    _, trace = pos.play_traced("S10")
    assert trace.landing == parse_pit("S3")
    assert [c.rule for c in trace.captures] == ["R8 landing", "R8 opposite"]
