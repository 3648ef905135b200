"""`kiothi-board bench ai --levels`: every level's time and effort per move, as docs/ai.md says."""

from __future__ import annotations

import re

import pytest

from kiothi_board.ai.levels import LEVELS
from kiothi_board.tools import bench_ai


def test_levels_prints_every_level_and_effort_rises_up_the_ladder(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_ai.main(["--levels", "--positions", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [re.match(r"level (\d) (\w+)\s*: .* ms max; +(\d+) nodes mean", x) for x in lines[1:]]
    assert all(rows) and len(rows) == len(LEVELS)
    numbers = [int(m.group(1)) for m in rows if m]
    assert numbers == list(LEVELS) and [m.group(2) for m in rows if m][3] == "Skilled"
    nodes = dict(zip(numbers, (int(m.group(3)) for m in rows if m), strict=True))
    for n, lv in LEVELS.items():  # the effort levels stay within their node caps
        assert lv.nodes is None or nodes[n] <= lv.nodes * 1.1, n
    assert nodes[1] == 0 and nodes[2] < nodes[5] < nodes[8]  # level 1 looks; it never searches
