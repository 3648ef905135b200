"""The ladder's Bradley–Terry fit, on synthetic results with known ratings."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kiothi_board import cli
from kiothi_board.tools import match
from kiothi_board.tools.ladder import close_share, fit, load_summaries, margins

TRUE = {"novice:random": 0.0, "a": 150.0, "b": 450.0, "c": 600.0}


def synthetic(pairs: list[tuple[str, str]], n: int, seed: int = 1) -> list[tuple[str, str, float]]:
    rng = random.Random(seed)
    games = []
    for x, y in pairs:
        p = 1 / (1 + 10 ** ((TRUE[y] - TRUE[x]) / 400))
        games.extend((x, y, 1.0 if rng.random() < p else 0.0) for _ in range(n))
    return games


def test_the_fit_recovers_known_ratings_within_its_intervals() -> None:
    games = synthetic([("a", "novice:random"), ("b", "a"), ("c", "b"), ("c", "a")], 600)
    ratings = {r.name: r for r in fit(games)}
    anchor = ratings["novice:random"]
    assert (anchor.elo, anchor.low, anchor.high) == (0.0, 0.0, 0.0)
    for name in ("a", "b", "c"):
        r = ratings[name]
        assert r.low < TRUE[name] < r.high, (name, r)
        assert 0 < r.high - r.low < 120
    # more games, tighter intervals
    few = {r.name: r for r in fit(games[::6])}
    assert few["c"].high - few["c"].low > ratings["c"].high - ratings["c"].low


def test_a_perfect_score_gets_a_finite_gap_and_order_is_kept() -> None:
    games = [("c", "novice:random", 1.0)] * 40 + [("a", "novice:random", 0.5)] * 40
    ratings = fit(games)
    assert [r.name for r in ratings] == ["c", "a", "novice:random"]
    assert 300 < ratings[0].elo < 2000 and abs(ratings[1].elo) < 1e-6


def test_players_not_connected_to_the_anchor_are_an_error() -> None:
    with pytest.raises(ValueError, match="connect"):
        fit([("a", "novice:random", 1.0), ("b", "c", 0.0)])
    with pytest.raises(ValueError, match="anchor"):
        fit([("a", "b", 1.0)])


def test_summaries_and_margins_come_from_match_output(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    args = ["novice:greedy", "novice:random", "--games", "4", "--max-plies", "40"]
    assert match.main([*args, "--out", str(out)]) == 0
    summary = tmp_path / "m.summary.json"
    games = load_summaries([str(summary)])
    assert len(games) == 4 and all(g[:2] == ("novice:greedy", "novice:random") for g in games)
    values = margins(str(summary))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    south = [r["result"]["captured"][0] - r["result"]["captured"][1] for r in records]
    assert values == [south[0], -south[1], south[2], -south[3]]
    for v, (_, _, score) in zip(values, games, strict=True):
        assert (v > 0) == (score == 1.0) and (v == 0) == (score == 0.5)
    assert cli.main(["match", "--ladder", "--from", str(summary), "--margins"]) == 0


def test_close_share_has_a_wilson_interval() -> None:
    p, lo, hi = close_share([0, 3, -8, 9, 20])
    assert p == 0.6 and 0.2 < lo < 0.6 < hi < 0.95
    assert close_share([0] * 50)[1] > 0.9


def test_the_steps_table_plays_both_opening_sets_and_says_what_is_out_of_band(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kiothi_board.tools import ladder as ladder_tool

    argv = ["--steps", "--top", "2", "--suite-games", "4", "--random-games", "6"]
    rc = ladder_tool.main([*argv, "--max-plies", "40", "--seed", "2"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| level:")]
    assert [row.split(" | ")[0] for row in rows] == [
        "| level:1 – novice:greedy-0.25",
        "| level:2 – level:1",
    ]
    assert all("(4)" in row and "(6)" in row for row in rows), rows
    assert rc == (1 if "out of band" in out else 0)
    assert ("some step is out of its band" in out) == (rc == 1)
