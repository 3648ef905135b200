"""The novice players: parsing, greed, and the same game for the same seed."""

from __future__ import annotations

import pytest

from kiothi_board.ai.novice import NovicePlayer, parse_novice
from kiothi_board.ai.registry import make_player
from kiothi_board.rules import Position, Side
from kiothi_board.tools import match

T = True
# South can capture 1 (S1) or more elsewhere: greedy must always take the most.
BOARD = Position(
    board=(1, 0, 0, 0, 0, 1, 3, 0, 0, 4, 4, 0, 2, 3, 0, 4, 3, 3, 3, 1),
    sown=(T,) * 20,
    captured=(14, 14),
    to_move=Side.S,
    phase="play",
)


def gains(pos: Position) -> dict[int, int]:
    board, sown, side = pos.packed
    return {k[0]: k[3] for k in pos.engine.children(board, sown, side)}


def test_specs_parse_and_bad_ones_are_named() -> None:
    assert parse_novice("random") == 1.0 and parse_novice("greedy") == 0.0
    assert parse_novice("greedy-0.25") == 0.25
    for bad in ("greedy-", "greedy-x", "greedy-1.5", "lazy"):
        with pytest.raises(ValueError, match=bad if bad != "greedy-" else "greedy"):
            parse_novice(bad)
    with pytest.raises(ValueError, match="novice:lazy"):
        make_player("novice:lazy")


def test_greedy_takes_the_biggest_capture() -> None:
    most = max(gains(BOARD).values())
    assert most > 1
    for seed in range(10):
        hint = NovicePlayer("greedy", seed).choose(BOARD)
        assert hint.move is not None and gains(BOARD)[hint.move] == most


def play(a: NovicePlayer, b: NovicePlayer, plies: int = 60) -> list[str]:
    pos = Position.initial().open(a.choose(Position.initial()).action)
    pos = pos.open(b.choose(pos).action)
    out = []
    for i in range(plies):
        if pos.over:
            break
        hint = (a if i % 2 == 0 else b).choose(pos)
        out.append(hint.action)
        pos = pos.apply(hint.action)
    return out


@pytest.mark.parametrize("which", ["random", "greedy", "greedy-0.25"])
def test_novices_are_deterministic_under_a_seed(which: str) -> None:
    first = play(NovicePlayer(which, 3), NovicePlayer("random", 4))
    again = play(NovicePlayer(which, 3), NovicePlayer("random", 4))
    assert first == again and len(first) > 10
    other = play(NovicePlayer(which, 9), NovicePlayer("random", 10))
    assert other != first
    player = NovicePlayer(which, 3)
    player.choose(BOARD)
    player.new_game()  # restarts the sequence
    assert player.choose(BOARD).action == NovicePlayer(which, 3).choose(BOARD).action


def test_novices_pass_the_opening_and_play_in_the_match_runner() -> None:
    assert NovicePlayer("greedy", 0).choose(Position.initial()).action == "pass"
    out = match.play_game(0, "novice:greedy", "novice:random", None, None, 80, 1)
    assert out.record["result"] is not None and out.end
    again = match.play_game(0, "novice:greedy", "novice:random", None, None, 80, 1)
    assert again.record == out.record
