"""Issue 10 #6 in the daemon: `run --autoplay` starts a demo instead of a visitor's game;
the first boot of a board is a tutorial."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.rules import parse_pit


def _config(mode: str = "two") -> dict:
    return validate({"game": {"mode": mode, "pace": "step", "over_seconds": 0.2}})


def test_autoplay_starts_a_demo_but_resumes_its_own(tmp_path: Path) -> None:
    clock = FakeClock()
    visitor = Daemon(_config(), sim=True, state_dir=str(tmp_path), api=False, clock=clock)
    visitor.board.call(
        "new_game", mode="two", sides="SN", level=2, pace="step", variant={"V2": True}
    )
    visitor.board.press(parse_pit("S6"))
    saved = visitor.board.state()["game_id"]
    visitor.close()
    demo = Daemon(
        _config(), sim=True, state_dir=str(tmp_path), api=False, clock=clock, autoplay=0.01, seed=4
    )
    own = demo.board.state()["game_id"]
    assert own != saved  # a demo, not the visitor's game…
    assert demo.store.get_game(saved)["result"]["end"] == "abandoned"  # …which is kept
    for _ in range(50):
        clock.advance(0.02)
        demo.tick()
    before = demo.trace_line()
    demo.close()
    again = Daemon(
        _config(), sim=True, state_dir=str(tmp_path), api=False, clock=clock, autoplay=0.01, seed=4
    )
    assert again.trace_line() == before  # a crash of the demo resumes the demo
    again.close()


def test_a_boards_first_game_is_the_tutorial(tmp_path: Path) -> None:
    """A board set up for play against the AI (the default) opens with the tutorial."""
    daemon = Daemon(_config("ai"), sim=True, state_dir=str(tmp_path), api=False, clock=FakeClock())
    state = daemon.board.state()
    assert state["tutorial"] == "opening" and state["instruction"].startswith("Tutorial 1/4")
    daemon.close()
    second = Daemon(_config("ai"), sim=True, state_dir=str(tmp_path), api=False, clock=FakeClock())
    # Resumed: still the tutorial (issue 31 item 8; it was a plain game before).
    assert second.board.state()["tutorial"] == "opening"
    second.close()


def test_a_first_run_piped_through_tee_leaves_the_tutorial_to_the_terminal(
    tmp_path: Path,
) -> None:
    """Issue 31 item 8: `kiothi-board run --sim | tee log` (no terminal to play on) opened
    the tutorial game; the next run, in a terminal, resumed it as an ordinary game."""
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-api", "--trace",
         "--state-dir", str(state)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())  # the first trace line: the game is on
        assert first["game"] == 1, first
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    terminal = Daemon(validate({}), sim=True, state_dir=str(state), api=False, clock=FakeClock())
    try:
        st = terminal.board.state()
        assert st["game_id"] == 1 and st["tutorial"] == "opening", (st["game_id"], st["tutorial"])
        assert st["instruction"].startswith("Tutorial 1/4"), st["instruction"]
    finally:
        terminal.close()
