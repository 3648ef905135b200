"""`kiothi-board bench ai --levels`: every level's time and effort per move, as docs/ai.md says."""

from __future__ import annotations

import re

import pytest

from kiothi_board import native
from kiothi_board.ai.levels import LEVELS
from kiothi_board.tools import bench_ai


def test_levels_prints_every_level_and_effort_rises_up_the_ladder(
    capsys: pytest.CaptureFixture[str],
) -> None:
    core = native.default_core()
    assert bench_ai.main(["--levels", "--positions", "2", "--core", core]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert core in lines[0]  # which core runs, and why
    pattern = r"level (\d) (\w+)\s*: .* ms max; +(\d+) nodes mean; openings .* p99 .* \((\w+)\)"
    rows = [m for m in (re.match(pattern, x) for x in lines) if m]
    assert len(rows) == len(LEVELS) and {m.group(4) for m in rows} == {core}
    numbers = [int(m.group(1)) for m in rows]
    assert numbers == list(LEVELS) and [m.group(2) for m in rows][3] == "Skilled"
    nodes = dict(zip(numbers, (int(m.group(3)) for m in rows), strict=True))
    for n, lv in LEVELS.items():  # the effort levels stay within their node caps
        assert lv.nodes is None or nodes[n] <= lv.nodes * 1.1, n
    assert nodes[1] == 0 and nodes[2] < nodes[5] < nodes[8]  # level 1 looks; it never searches
    table = lines[lines.index(next(x for x in lines if x.startswith("p99 a move"))) + 1 :]
    assert [int(re.match(r"  level (\d):", x).group(1)) for x in table] == list(LEVELS)  # type: ignore[union-attr]


def test_search_speed_names_its_core(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_ai.main(["--positions", "1", "--time", "0.05", "--quiet", "--core", "python"]) == 0
    out = capsys.readouterr().out
    assert "bench ai (python core): 1 positions" in out and "nodes/s" in out
