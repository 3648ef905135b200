"""The tuning helpers: weight parsing, the score interval, the fixed-depth match."""

from __future__ import annotations

import pytest

from kiothi_board.ai.evaluation import TUNED
from kiothi_board.tools.tune import interval, parse_weights, report, versus


def test_parse_weights_applies_changes_to_the_base() -> None:
    w = parse_weights("mobility=16, tempo=20,pile=0", TUNED)
    assert (w.mobility, w.tempo, w.pile) == (16, 20, 0)
    assert w.row == TUNED.row


@pytest.mark.parametrize("text", ["mobility", "nonsense=3", "tempo=x"])
def test_parse_weights_rejects_bad_input(text: str) -> None:
    with pytest.raises(ValueError):
        parse_weights(text, TUNED)


def test_interval_and_report() -> None:
    mean, half = interval([1.0, 0.0, 0.5, 0.5])
    assert mean == 0.5
    assert half == pytest.approx(1.96 * (0.5 / 3) ** 0.5 / 2)
    assert report([1.0, 0.0, 0.5, 0.5], "x").startswith("x: 4 games 1-2-1 score 50.0 %")


def test_versus_plays_each_pair_with_both_colours() -> None:
    out = versus(TUNED, TUNED, [1], plies=40, pairs=2, jobs=1)
    assert list(out) == [1]
    assert len(out[1]) == 4
    assert all(s in (0.0, 0.5, 1.0) for s in out[1])
