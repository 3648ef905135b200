"""The native core never crashes its process (issue 30 item 16): every entry point called
with hostile values (tests/rules/native_fuzz.py, in a child process) ends in a Python
exception. A crash fails this test with the case that crashed; the child is then started
again from the next case, so one run names every crashing case."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kiothi_board import native

pytestmark = pytest.mark.skipif(
    not native.native_available(), reason=f"no native core: {native.describe()}"
)

FUZZ = Path(__file__).with_name("native_fuzz.py")
REPO = Path(__file__).parents[2]


def test_every_native_entry_point_refuses_hostile_values() -> None:
    crashes: list[str] = []
    refusals: list[str] = []
    start = 0
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    while True:
        done = subprocess.run(
            [sys.executable, str(FUZZ), str(start)],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
        lines = done.stdout.splitlines()
        refusals += [line for line in lines if line.startswith("NOT REFUSED")]
        if done.returncode >= 0 and lines and lines[-1].endswith(" refused"):
            break
        started = [line for line in lines if line.startswith("case ")]
        assert started, f"no case ran (exit {done.returncode}): {done.stderr[-2000:]}"
        last = started[-1].split(" ", 2)
        crashes.append(f"{last[2]} (exit {done.returncode})")
        start = int(last[1]) + 1
    assert (crashes, refusals) == ([], []), f"{len(crashes)} crash(es), {len(refusals)} not refused"
    assert done.returncode == 0, done.stderr[-2000:]
    counted, refused = lines[-1].split(" cases, ")
    assert int(counted) > 300 and counted == refused.split()[0], lines[-1]
