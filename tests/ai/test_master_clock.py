"""Master keeps its clock on the Python path in every phase, the opening's ranking included,
with two CPU hogs beside it (issue 36: the opening took 3.5–5.95 s of a 0.8 s budget)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from kiothi_board.ai import make_player
from kiothi_board.ai.levels import level
from kiothi_board.rules import Position
from kiothi_board.tools.bench_ai import busy

BUDGET = level(9).movetime


@pytest.fixture
def two_hogs() -> Iterator[None]:
    """Two busy processes for the length of the test (the bench's own), ended however it ends."""
    with busy(2):
        yield


def _timed(position: Position) -> float:
    player = make_player("level:9,core=python", seed=3)
    try:
        start = time.monotonic()
        player.choose(position)
        return time.monotonic() - start
    finally:
        player.close()


def test_masters_python_opening_keeps_its_clock_beside_two_hogs(two_hogs: None) -> None:
    start = Position.initial()
    spread = start.open("S7>S1,S2,S3,S4,S5,S6")
    middle = start.open("pass").open("pass")
    for _ in range(6):
        middle = middle.play(middle.legal_moves()[0])
    times = {
        "South's opening": _timed(start),
        "North's opening": _timed(start.open("pass")),
        "North's opening after a spread": _timed(spread),
        "a middle-game move": _timed(middle),
    }
    slow = {what: round(t, 2) for what, t in times.items() if t > 1.5 * BUDGET}
    assert not slow, f"over 1.5 × {BUDGET} s: {slow}"
