"""The beginner's eyes (levels 1 and the lapses of 2–4) and the beginner's hint sentence."""

from __future__ import annotations

import random

from kiothi_board.ai import AIPlayer
from kiothi_board.ai.explain import beginner_reason
from kiothi_board.ai.human import Eyes, choose_seen, first_capture, perceive
from kiothi_board.rules import Position, Side, parse_pit

T, F = True, False
# S10 relays nine times and lands in N3 (no capture); after one relay it is in S1.
LONG_RELAY = Position(
    board=(1, 1, 1, 1, 5, 5, 5, 1, 2, 5, 0, 1, 2, 3, 5, 2, 0, 0, 5, 0),
    sown=(T, T, F, T, T, T, T, T, T, T, T, T, T, T, F, T, T, F, T, T),
    captured=(7, 8),
    to_move=Side.S,
    phase="play",
)
# S10 relays once and lands in S1 after crossing: 1 + 2 from N10, 12 more by the R9 chain.
CHAIN = Position(
    board=(0, 1, 0, 5, 2, 1, 0, 2, 0, 5, 1, 5, 2, 1, 5, 2, 0, 0, 7, 1),
    sown=(T, T, T, F, T, F, T, T, T, T, F, T, T, T, T, T, F, T, T, T),
    captured=(10, 10),
    to_move=Side.S,
    phase="play",
)
# S10 relays twice and lands in S2 after crossing: it captures 5 (no chain).
HINT = Position(
    board=(1, 0, 0, 0, 0, 1, 3, 0, 0, 4, 4, 0, 2, 3, 0, 4, 3, 3, 3, 1),
    sown=(T, T, T, F, T, T, T, F, T, T, T, T, T, F, F, T, T, T, T, T),
    captured=(14, 14),
    to_move=Side.S,
    phase="play",
)
S10 = parse_pit("S10")
NAIVE = Eyes(relays_seen=1, sees_chain=False, grab=0.0, looks_ahead=False)
SHARP = Eyes(relays_seen=20, sees_chain=True, grab=0.0, looks_ahead=False)


def seen(pos: Position, style: Eyes):  # type: ignore[no-untyped-def]
    return perceive(pos.board, pos.sown, pos.to_move, S10, pos.variant, style)


def test_a_long_relay_is_misjudged_where_the_count_was_lost() -> None:
    view = seen(LONG_RELAY, NAIVE)
    assert view.lost_track and view.relays == 9 and view.true_gain == 0
    assert view.guessed == parse_pit("S1") and view.gain == 2  # an imagined capture
    exact = seen(LONG_RELAY, SHARP)
    assert not exact.lost_track and exact.gain == 0 and exact.guessed == parse_pit("N3")


def test_the_chain_is_missed_by_a_beginner() -> None:
    view = seen(CHAIN, NAIVE)
    assert view.true_gain == 15 and view.gain == 3 and view.chain_missed == 12
    assert seen(CHAIN, SHARP).gain == 15


def test_the_first_capture_spotted_is_taken_when_grabbing() -> None:
    board, sown, side = HINT.packed
    grabber = Eyes(relays_seen=20, sees_chain=True, grab=1.0, looks_ahead=False)
    views = [
        perceive(HINT.board, HINT.sown, Side.S, p, HINT.variant, SHARP) for p in HINT.legal_moves()
    ]
    first = first_capture(views, 0)
    assert first is not None
    choice, _ = choose_seen(board, sown, side, HINT.variant, grabber, random.Random(0))
    assert choice.pit == first.pit
    best, expected = choose_seen(board, sown, side, HINT.variant, SHARP, random.Random(0))
    assert best.gain == max(v.gain for v in views) == expected


def test_beginner_choices_are_reproducible_for_a_seed() -> None:
    pos = Position.initial().open("pass").open("pass")
    games = []
    for _ in range(2):
        player = AIPlayer(1, seed=5)
        p = pos
        moves = []
        for _ in range(30):
            if p.over:
                break
            hint = player.choose(p)
            assert hint.move is not None
            moves.append(hint.move)
            p = p.play(hint.move)
        games.append(moves)
    assert games[0] == games[1]


def test_beginner_hint_says_why_in_one_sentence() -> None:
    assert beginner_reason(HINT, S10) == (
        "S10 relays twice and lands in your empty S2 after crossing: you capture 5."
    )
    assert beginner_reason(CHAIN, S10) == (
        "S10 relays once and lands in your empty S1 after crossing: you capture 15 "
        "(12 of them from the chain along North's row)."
    )
    assert beginner_reason(LONG_RELAY, S10).startswith(
        "S10 relays 9 times and lands in North's empty N3: no capture"
    )


def test_low_level_hints_are_searched_and_told_plainly() -> None:
    for lv in (1, 2, 3, 4):
        hint = AIPlayer(lv, seed=0).hint(HINT)
        assert hint.move is not None and hint.depth >= 4, lv
    assert hint.explanation.startswith(hint.action + " ") and "search depth" not in hint.explanation
    assert hint.explanation.count(".") == 1
    assert "margin" in AIPlayer(5, seed=0).hint(HINT).explanation  # the full figures up there
