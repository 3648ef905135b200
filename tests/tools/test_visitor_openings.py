"""Visitors' random openings: seeded, legal, of every kind, and played by match and tune."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from kiothi_board.rules import Position, Variant, parse_opening, parse_record
from kiothi_board.tools import match, tune
from kiothi_board.tools.visitor_openings import parse_source, visitor_openings


def kind(text: str) -> str:
    action = parse_opening(text)
    if action.is_pass:
        return "pass"
    place = action.lifts[0].place
    return "heap" if len(set(place)) == 1 and len(place) > 1 else "lift"


def test_openings_are_seeded_legal_and_of_every_kind() -> None:
    pairs = visitor_openings(200, seed=7)
    assert pairs == visitor_openings(200, seed=7)
    assert pairs != visitor_openings(200, seed=8)
    kinds: Counter[str] = Counter()
    for south, north in pairs:
        pos = Position.initial().open(south).open(north)  # both legal, in order
        assert pos.phase == "play"
        kinds.update((kind(south), kind(north)))
    # Both sides pass, scatter and heap, each often enough to matter in a match.
    assert min(kinds.values()) >= 40, kinds
    assert len(set(pairs)) > 150


def test_openings_follow_the_variant() -> None:
    for south, north in visitor_openings(30, seed=2, variant=Variant(V1=True)):
        Position.initial(Variant(V1=True)).open(south).open(north)


@pytest.mark.parametrize("text", ["random:x", "random:"])
def test_a_bad_source_is_named(text: str) -> None:
    with pytest.raises(ValueError, match="random:SEED"):
        parse_source(text)


def test_a_match_plays_random_openings_from_both_sides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "games.jsonl"
    argv = ["level:2", "level:1", "--games", "6", "--openings", "random:3", "--out", str(out)]
    assert match.main(argv) == 0
    assert "6 games" in capsys.readouterr().out
    records = [parse_record(json.loads(line)) for line in out.read_text().splitlines()]
    expected = visitor_openings(3, seed=3)
    for i, record in enumerate(records):
        south, north = expected[i // 2]
        assert record.actions()[:2] == [south, north]
    summary = json.loads(out.with_suffix(".summary.json").read_text())
    assert [g["south"] for g in summary["games"]][:2] == ["level:2", "level:1"]


def test_match_refuses_a_bad_source(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        match.main(["level:1", "level:1", "--openings", "random:many"])
    assert "random:SEED" in capsys.readouterr().err


def test_tune_versus_plays_random_openings(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--versus", "mobility=16", "--depths", "1", "--pairs", "2", "--plies", "40"]
    assert tune.main([*argv, "--openings", "random:5"]) == 0
    assert "4 games" in capsys.readouterr().out
