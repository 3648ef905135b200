"""Issue 10 #3 and #9: bench --help, replay into a closed pipe, no terminal."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kiothi_board.cli import main
from kiothi_board.rules import Position
from kiothi_board.sim import no_terminal_notice

ROOT = Path(__file__).resolve().parents[1]
RUN = [sys.executable, "-m", "kiothi_board", "run", "--sim"]


def test_bench_help_prints_help_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kiothi-board bench {rules,ai,guide,api")
    assert "press-to-frame latency" in out
    assert main(["bench", "nope"]) == 2
    assert "unknown benchmark 'nope'" in capsys.readouterr().err


def _long_record(tmp_path: Path) -> Path:
    import random

    rng = random.Random(3)
    pos = Position.initial().open("pass").open("pass")
    moves: list[int] = []
    while not pos.over and len(moves) < 60:
        pit = rng.choice(pos.legal_moves())
        moves.append(pit)
        pos = pos.play(pit)
    path = tmp_path / "game.json"
    record = {
        "format": "kiothi-game/1",
        "variant": {},
        "opening": ["pass", "pass"],
        "moves": [("S" if p < 10 else "N") + str(p % 10 + 1) for p in moves],
    }
    path.write_text(json.dumps(record))
    return path


def test_replay_into_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    """`replay --text … | head` ended in a BrokenPipeError traceback."""
    record = _long_record(tmp_path)
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # the diagrams overflow it at once
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "replay", "--text", str(record)],
        stdout=write_end,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.read(100).startswith(b"initial position")
    _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err and b"BrokenPipe" not in err
    assert proc.returncode == 0


def test_no_terminal_says_so_and_where_the_web_twin_is(tmp_path: Path) -> None:
    """`make run | tee log` gave no board and dead keys, silently."""
    config = tmp_path / "board.toml"
    config.write_text("[api]\ntcp_port = -1\nweb_port = 0\n")
    proc = subprocess.Popen(
        [*RUN, "--config", str(config), "--state-dir", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "not a terminal" in line:
                break
        said = "".join(lines)
        assert "draws no board here and reads no keys" in said
        assert "play on the web twin at http://127.0.0.1:" in said
    finally:
        proc.terminate()
        proc.communicate(timeout=15)
    assert "api.web_port = -1" in no_terminal_notice(None)
