"""The shared example games, replayed position by position against the independent engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kiothi_board import native
from kiothi_board.native import Core
from kiothi_board.rules import Position, parse_record
from tests.rules.cores import CORES

EXAMPLES = Path(__file__).parent / "data" / "examples"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.json"))


def example_final(name: str) -> Position:
    """The last position of an example game."""
    return parse_record((EXAMPLES / f"{name}.json").read_text()).final()


def test_there_are_examples() -> None:
    assert len(NAMES) >= 7


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("name", NAMES)
def test_example_replays_line_by_line(name: str, core: Core) -> None:
    with native.forced(core):  # the legal moves and the game's end come from this core
        replay_example(name)


def replay_example(name: str) -> None:
    """Replay one example record and compare every position with the independent engine's."""
    record = parse_record((EXAMPLES / f"{name}.json").read_text())
    expected = (EXAMPLES / f"{name}.positions.jsonl").read_text().splitlines()
    got = [json.dumps(pos.to_json()) for _, _, pos in record.replay()]
    assert len(got) == len(expected)
    for i, (line, want) in enumerate(zip(got, expected, strict=True)):
        assert json.loads(line) == json.loads(want), f"{name}: position {i} differs"
    if record.result is not None:
        assert json.loads(got[-1])["result"] == record.result.to_json()
