"""R13: Outcome values for every ending, records that carry them, `replay` checking them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kiothi_board.cli import main
from kiothi_board.errors import IllegalMoveError, NotationError
from kiothi_board.rules import ENDS, GameRecord, Outcome, Position, Side, parse_record

OPENED = Position.initial().open("pass").open("pass").play("S6")


def test_every_ending_round_trips_through_json_with_a_constructor_repr() -> None:
    outcomes = [
        Outcome.of((31, 29), "no-moves"),
        Outcome.of((30, 30), "repetition"),
        Outcome.of((28, 32), "ply-limit"),
        Outcome.resignation(Side.S, (40, 2)),
        Outcome.of((31, 29), "agreement"),
        Outcome.abandonment((3, 4)),
    ]
    assert [o.end for o in outcomes] == list(ENDS)
    for o in outcomes:
        assert Outcome.from_json(json.loads(json.dumps(o.to_json()))) == o
        assert eval(repr(o), {"Outcome": Outcome, "Side": Side}) == o
    assert repr(outcomes[3]) == "Outcome(Side.N, (40, 2), 'resign', by=Side.S)"
    assert outcomes[3].to_json() == {"winner": "N", "captured": [40, 2], "end": "resign", "by": "S"}


@pytest.mark.parametrize(
    "data",
    [
        {"captured": [1, 2], "end": "resign"},  # who resigned?
        {"captured": [1, 2], "end": "agreement", "by": "S"},
        {"captured": [40, 2], "end": "resign", "by": "S", "winner": "S"},  # resigner wins?
        {"captured": [40, 2], "end": "abandoned", "winner": "S"},
        {"captured": [1, 2], "end": "timeout"},
    ],
)
def test_bad_results_name_what_is_wrong(data: dict[str, object]) -> None:
    with pytest.raises(NotationError, match="bad result"):
        Outcome.from_json(data)


def test_resign_moves_no_seeds_and_the_opponent_wins_whatever_the_counts() -> None:
    pos = OPENED.resign(Side.N)  # North resigns though... counts decide nothing
    assert pos.over and pos.board == OPENED.board and pos.captured == OPENED.captured
    assert pos.result == Outcome(Side.S, OPENED.captured, "resign", Side.N)
    assert pos.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="already over"):
        pos.resign(Side.S)


def test_agreement_splits_rows_and_abandonment_has_no_winner() -> None:
    agreed = OPENED.end_by_agreement()
    assert agreed.result is not None and agreed.result.end == "agreement"
    assert sum(agreed.board) == 0
    left = OPENED.abandon()
    assert left.board == OPENED.board and left.result == Outcome.abandonment(OPENED.captured)


def _record(result: dict[str, object]) -> dict[str, object]:
    return {
        "format": "kiothi-game/1",
        "opening": ["pass", "pass"],
        "moves": ["S6"],
        "result": result,
    }


@pytest.mark.parametrize(
    ("result", "last"),
    [
        ({"captured": [0, 0], "end": "resign", "by": "N"}, "resign N"),
        ({"captured": [sum(OPENED.board[:10]), sum(OPENED.board[10:])], "end": "agreement"}, ""),
        ({"captured": [0, 0], "end": "abandoned"}, "abandoned"),
    ],
)
def test_a_record_replays_to_before_the_ending_then_applies_it(
    result: dict[str, object], last: str
) -> None:
    record = parse_record(_record(result))
    steps = list(record.replay())
    assert steps[-2][2] == OPENED
    assert steps[-1][1] == (last or "agreement") and steps[-1][2].result == record.result
    assert record.final().result == record.result
    assert GameRecord.to_json(record)["result"] == Outcome.from_json(result).to_json()


def test_replay_command_accepts_r13_results_and_exits_3_on_disagreement(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_record({"captured": [0, 0], "end": "resign", "by": "S"})))
    assert main(["replay", str(good)]) == 0
    # The counts of an agreement follow from the board: a record that says otherwise is wrong.
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_record({"captured": [30, 30], "end": "agreement"})))
    assert main(["replay", str(bad)]) == 3
    # A resignation by South after which South "wins" cannot even be read.
    worse = tmp_path / "worse.json"
    worse.write_text(
        json.dumps(_record({"captured": [0, 0], "end": "resign", "by": "S", "winner": "S"}))
    )
    assert main(["replay", str(worse)]) == 2
    # A resignation recorded with other counts than the position's disagrees.
    other = tmp_path / "other.json"
    other.write_text(json.dumps(_record({"captured": [5, 0], "end": "resign", "by": "S"})))
    assert main(["replay", str(other)]) == 3
