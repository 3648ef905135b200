"""Game end (R10–R12) and the variants V1–V8 on hand-built positions."""

from __future__ import annotations

import pytest

from kiothi_board.errors import IllegalMoveError
from kiothi_board.rules import Capture, Position, Result, Saved, Side, Variant, parse_pit, pit_name
from tests.rules.helpers import board_of, make

# Three lone seeds walking round an all-sown board: every move lands in an empty pit
# without capturing, so after 40 plies the start position occurs for the third time.
REPEAT_BOARD = board_of(S1=1, S8=1, N3=1)
REPEAT_MOVES = [
    "S1",
    "N3",
    "S8",
    "N4",
    "S9",
    "N5",
    "S10",
    "N6",
    "S2",
    "N1",
    "S3",
    "N2",
    "S4",
    "N7",
    "S5",
    "N8",
    "S6",
    "N9",
    "S7",
    "N10",
    "S8",
    "N3",
    "S1",
    "N4",
    "S2",
    "N5",
    "S3",
    "N6",
    "S4",
    "N7",
    "S9",
    "N8",
    "S5",
    "N9",
    "S10",
    "N1",
    "S6",
    "N10",
    "S7",
    "N2",
]


# --------------------------------------------------------------------------- R10
def test_r10_empty_row_ends_the_game_and_the_opponent_takes_the_rest() -> None:
    pos = make(board_of(N3=1, N7=2, N9=1), to_move=Side.N, all_sown=True)
    after = pos.play("N3")  # N3 -> N4 (empty): lands; South to move with an empty row
    assert after.over and after.phase == "over"
    assert after.result == Result(Side.N, (0, 60), "no-moves")
    assert after.board == (0,) * 20 and after.legal_moves() == []
    assert after.to_move is Side.S
    data = after.to_json()
    assert data["result"] == {"winner": "N", "captured": [0, 60], "end": "no-moves"}
    assert data["over"] is True and data["legal"] == []


def test_r10_endless_moves_do_not_count_as_moves() -> None:
    # R10 ends the game when the mover has no *legal* move; endless moves are not legal
    # (R6), so they never keep a game alive. Here North still has legal moves besides the
    # endless N8, so the game goes on; `legal_moves()` is what the end check reads.
    from tests.rules.test_examples import example_final

    pos = example_final("endless-option")
    assert pos.endless_moves() and pos.legal_moves() and not pos.over
    assert set(pos.legal_moves()).isdisjoint(pos.endless_moves())
    candidates = pos.engine.moves_of(pos.packed[0], int(pos.to_move))
    assert sorted(pos.legal_moves() + pos.endless_moves()) == list(candidates)


# --------------------------------------------------------------------------- R11
def test_r11_third_repetition_splits_the_seeds_by_row() -> None:
    pos = make(REPEAT_BOARD, all_sown=True)
    keys = [pos.key]
    for move in REPEAT_MOVES[:-1]:
        pos = pos.play(move)
        keys.append(pos.key)
        assert not pos.over
    final = pos.play(REPEAT_MOVES[-1])
    # The board is emptied by the end; history keeps the key of the position reached.
    repeated = final.history[-1]
    assert keys.count(repeated) == 2, "the final position is its third occurrence"
    assert repeated == keys[0], "here the start position came round again"
    # Each player takes the seeds in their own row: two for South, one for North.
    assert sum(pos.board[:10]) == 2 and sum(pos.board[10:]) == 1
    assert final.result is not None and final.result.end == "repetition"
    assert final.result.captured == (2, 58)


def test_r11_repetition_history_resets_after_a_capture_or_flag_change() -> None:
    pos = make(REPEAT_BOARD, all_sown=True)
    assert pos.history == (pos.key,)
    after = pos.play("S1")
    assert after.history == (pos.key, after.key)
    fresh = make(REPEAT_BOARD).play("S1")  # S1 becomes sown: nothing earlier can recur
    assert fresh.history == (fresh.key,)


def test_r11_ply_limit() -> None:
    v = Variant(ply_limit=3)
    pos = Position.initial(v).open("pass").open("pass")
    assert not pos.over
    end = pos.play("S6")
    assert end.over and end.result is not None and end.result.end == "ply-limit"
    assert end.result.captured == (28, 32)  # S row 28 after S6 sowed 2 seeds into N1, N2


def test_end_by_agreement_uses_r11s_split_and_names_agreement() -> None:
    pos = Position.initial().open("pass").open("pass").end_by_agreement()
    assert pos.result == Result(None, (30, 30), "agreement")  # R13: no longer "repetition"


# --------------------------------------------------------------------------- R12
def test_r12_winner_and_draw() -> None:
    assert Result.of((31, 29), "no-moves").winner is Side.S
    assert Result.of((29, 31), "no-moves").winner is Side.N
    assert Result.of((30, 30), "repetition").winner is None


# --------------------------------------------------------------------------- V1, V2
def test_v1_two_lifts_in_turn() -> None:
    v = Variant(V1=True)
    pos = Position.initial(v).open("S7>S1,S1,S1,S1,S1,S1;S1>N1,N1,N1,N1,N1,N1")
    assert pos.board[parse_pit("S1")] == 0 and pos.board[parse_pit("N1")] == 6
    assert pos.board[parse_pit("S7")] == 0
    with pytest.raises(IllegalMoveError, match="at most 2"):
        Position.initial(v).open("S6>S6,S6,S6,S6,S6,S6;S7>S7,S7,S7,S7,S7,S7;S8>S8,S8,S8,S8,S8,S8")
    with pytest.raises(IllegalMoveError, match="V1 allows two"):
        Position.initial().open("S6>S6,S6,S6,S6,S6,S6;S7>S7,S7,S7,S7,S7,S7")


def test_v2_no_opening_phase() -> None:
    pos = Position.initial(Variant(V2=True))
    assert pos.phase == "play" and pos.ply == 0 and pos.to_move is Side.S
    assert pos.play("S6").ply == 1


# --------------------------------------------------------------------------- V3
def test_v3_a_lap_of_twenty_skips_its_own_pit() -> None:
    board = board_of(S1=20)
    plain = make(board, all_sown=True).play_traced("S1")[1]
    assert plain.laps[0].drops[-1] == 0
    v3 = make(board, all_sown=True, variant=Variant(V3=True)).play_traced("S1")[1]
    first = v3.laps[0]
    assert 0 not in first.drops and first.drops[-1] == 1  # the 20th seed goes on to S2
    # S2 now holds 2: relays from S2, S4, … N10 (2 seeds each) until S2 is empty again.
    assert [pit_name(lap.lifted) for lap in v3.laps[1:]] == [
        "S2",
        "S4",
        "S6",
        "S8",
        "S10",
        "N2",
        "N4",
        "N6",
        "N8",
        "N10",
    ]
    assert v3.landing == parse_pit("S2")


def test_v3_laps_under_twenty_are_unchanged() -> None:
    pos = Position.initial(Variant(V3=True)).open("pass").open("pass")
    assert pos.play("S6").board == Position.initial().open("pass").open("pass").play("S6").board


# --------------------------------------------------------------------------- V4
def test_v4_relay_from_opponents_pit_sows_it() -> None:
    pos = make(board_of(S9=3, N2=2, N8=1), variant=Variant(V4=True))
    after = pos.play("S9")
    assert after.sown[parse_pit("N2")] and after.sown[parse_pit("S9")]


# --------------------------------------------------------------------------- V5
def test_v5_empty_pits_start_sown_when_sowing_starts() -> None:
    pos = Position.initial(Variant(V5=True)).open("S7>S1,S1,S1,S1,S1,S1").open("pass")
    sown = {pit_name(p) for p, flag in enumerate(pos.sown) if flag}
    empty = {pit_name(p) for p, c in enumerate(pos.board) if c == 0}
    assert sown == empty and "S1" not in sown and "S7" in sown
    assert not any(Position.initial(Variant(V5=True)).sown), "flags are set when sowing starts"
    assert Position.initial(Variant(V2=True, V5=True)).sown[0]


# --------------------------------------------------------------------------- V6
def test_v6_only_the_final_lap_counts_as_crossing() -> None:
    board = board_of(S9=11, N10=1, N9=2)
    plain = make(board, all_sown=True).play_traced("S9")[1]
    assert plain.crossed and plain.captured == 4
    v6 = make(board, all_sown=True, variant=Variant(V6=True)).play_traced("S9")[1]
    assert v6.crossing == (0, 1) and not v6.crossed and v6.captures == ()


# --------------------------------------------------------------------------- V7
def test_v7_landing_seed_safe_while_landing_pit_unsown() -> None:
    board = board_of(S10=13, N8=3)
    v7 = make(board, sown=["S10", "N8"], variant=Variant(V7=True)).play_traced("S10")[1]
    assert v7.captures == (Capture(parse_pit("N8"), 4, "R8 opposite"),)
    assert v7.saved == (Saved(parse_pit("S3"), 1, "R8 landing"),)
    sown_landing = make(board, sown=["S10", "N8", "S3"], variant=Variant(V7=True))
    assert sown_landing.play_traced("S10")[1].captured == 5


# --------------------------------------------------------------------------- variants
def test_variant_json_round_trip_and_errors() -> None:
    v = Variant(V3=True, V7=True, ply_limit=200)
    assert v.to_json() == {"V3": True, "V7": True, "ply_limit": 200}
    assert Variant.from_json(v.to_json()) == v
    assert Variant.parse("V3,V7,ply_limit=200") == v
    with pytest.raises(ValueError, match="V9"):
        Variant.from_json({"V9": True})
    with pytest.raises(ValueError, match="ply_limit"):
        Variant(ply_limit=0)
