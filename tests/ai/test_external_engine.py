"""An external engine (`cmd:`) cannot flood the board with output or leave processes behind
(issue 30 item 17): a line is read up to LINE_LIMIT bytes, a longer one fails the engine at
once; the engine runs in its own session and `close` ends its process group, a child it
forked included. Each test runs a small hostile engine script."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from kiothi_board.ai.external import EngineFailure, ExternalEngine
from kiothi_board.ai.thinking import MoveBudget
from kiothi_board.rules import Position
from tests.conftest import wait_until

LINE_LIMIT = 64 * 1024  # the module's LINE_LIMIT (issue 30: "about 64 KiB")

PRELUDE = """
import os, subprocess, sys, time
def say(s):
    sys.stdout.write(s + "\\n"); sys.stdout.flush()
{start}
for line in sys.stdin:
    cmd = line.split()[0] if line.split() else ""
    if cmd == "kei":
        say("id name hostile"); say("keiok")
    elif cmd == "quit":
        break
    elif cmd == "go":
{on_go}
"""


def engine(tmp_path: Path, on_go: str, start: str = "") -> ExternalEngine:
    script = tmp_path / "hostile.py"
    script.write_text(PRELUDE.format(start=start, on_go=on_go))
    return ExternalEngine(f'"{sys.executable}" {script}', movetime=0.5)


def gone(pid: int) -> bool:
    """Ended: no such process, or a zombie waiting for its (new) parent to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def test_a_line_longer_than_the_limit_fails_the_engine(tmp_path: Path) -> None:
    # 16 times the limit without a newline, then silence (an engine gone wrong)
    flood = f"        sys.stdout.write('x' * {16 * LINE_LIMIT}); sys.stdout.flush(); time.sleep(60)"
    player = engine(tmp_path, flood)
    started = time.monotonic()
    try:
        with pytest.raises(EngineFailure, match=f"a line longer than {LINE_LIMIT} bytes"):
            player.choose(Position.initial(), MoveBudget(line=()))
        assert time.monotonic() - started < 1.0, "failed at once, not when the answer was due"
    finally:
        player.close()
    assert gone(player.proc.pid)


def test_a_forked_child_does_not_outlive_the_match(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    start = (
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))"
    )
    player = engine(tmp_path, "        say('bestopening pass')", start)
    child = int(pidfile.read_text())
    assert not gone(child)
    group = os.getpgid(child)
    player.close()  # the engine quits when asked; its child would sleep on
    assert wait_until(lambda: gone(child), 10), "the engine's child outlived the match"
    assert group == player.proc.pid != os.getpgid(0), "the engine had a group of its own"
    player.close()  # idempotent


def test_the_limit_is_the_modules() -> None:
    from kiothi_board.ai import external

    assert external.LINE_LIMIT == LINE_LIMIT
