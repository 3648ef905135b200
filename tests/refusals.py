"""The simulator refusing a bad config the way a person should see it: one line, no
traceback (the house rule for bad input), checked on the real `kiothi-board run`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def refused_at_start(config: Path, state_dir: Path) -> str:
    """Run `kiothi-board run --sim` on `config`; it must exit non-zero with one line on
    stderr and no traceback. Returns that line."""
    proc = subprocess.run(
        [sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-terminal",
         "--config", str(config), "--state-dir", str(state_dir)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode != 0, f"started on {config}: {proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    line = proc.stderr.strip()
    assert line.count("\n") == 0, f"more than one line: {proc.stderr[-2000:]}"
    return line
