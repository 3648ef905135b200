"""`kiothi-board bench fleet --soak`: a short run against real processes (issue 21)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


@pytest.mark.parametrize("seconds", [6, pytest.param(120, marks=pytest.mark.soak)])
def test_a_short_soak_sees_no_secret_and_keeps_both_processes_alive(seconds: int) -> None:
    """6 s of attack in `make test`; two minutes in `make soak` (the RSS bound over time)."""
    run = subprocess.run(
        [sys.executable, "-m", "kiothi_board", "bench", "fleet", "--soak", str(seconds)],
        capture_output=True,
        text=True,
        timeout=300 + seconds,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "secrets seen by readers: 0" in run.stdout
    assert "both processes alive at the end: True" in run.stdout
    staff_ok = int(re.search(r"staff_replies_ok (\d+)", run.stdout).group(1))  # type: ignore[union-attr]
    assert staff_ok > 0, run.stdout  # the staff's requests over MQTT were answered
    rss = re.findall(r"dashboard RSS: start ([\d.]+) MB, peak ([\d.]+) MB", run.stdout)
    assert rss and float(rss[0][1]) - float(rss[0][0]) < 40, run.stdout
