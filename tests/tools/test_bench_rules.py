"""`kiothi-board bench rules`: both cores and the traced path in one run, and which core runs."""

from __future__ import annotations

import re

import pytest

from kiothi_board import native
from kiothi_board.tools.bench_rules import bench_rules


def test_both_cores_in_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_rules(["--seconds", "0.05", "--variant", "V3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "variant V3" in lines[0] and native.describe() in lines[0]
    paths = [m.group(1) for m in (re.match(r"  (\w+) +path: .* moves/s", x) for x in lines) if m]
    if native.native_available():
        assert paths == ["native", "python", "traced"]
        assert re.fullmatch(r"  native / python: [\d.]+×", lines[-1])
    else:
        assert paths == ["python", "traced"] and "not available" in lines[1]
