"""The `--autoplay` demo resumes at every point of a game (a restart after each write),
at the very step it was at, and plays on.

A restart leaves the store as its last commit left it, so restarting the demo on a copy of
the store taken after every commit of a game is a restart at each point a SIGKILL could
hit. Each resumed demo must be at the step the board was at after that commit (the SIGKILL
tests of tests/test_daemon.py can only check that when a kill happens to land between two
steps), play its game to the end and begin the next one. On the old
code a restart between an opening press (a lift: the seeds in the hand) and the hold that
takes the lift back left the demo holding a pit for ever: each hold placed a seed, took it
back and could not pass with the seeds in the hand (tests/test_daemon.py's SIGKILL tests
met it once in three clean-clone runs).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.config import Config, validate
from kiothi_board.daemon import Daemon, trace_fields

TICK_S = 1 / 400  # the SIGKILL tests' quick configuration: 400 Hz, 12 plies
RESUME_TICKS = 4000
"""A resumed game must end and the next begin within this many ticks (10 s of fake time;
the longest 12-ply step-pace game of the demo takes about 500)."""


def _config(mode: str, pace: str) -> Config:
    return validate(
        {
            "game": {"mode": mode, "pace": pace, "level": 1, "variant": "ply_limit=12",
                     "over_seconds": 0.05},
            "daemon": {"tick_hz": 400},
        }
    )  # fmt: skip


def _demo(state: Path, config: Config, seed: int) -> tuple[Daemon, FakeClock]:
    clock = FakeClock()
    daemon = Daemon(config, sim=True, state_dir=str(state), api=False, clock=clock,
                    autoplay=0.003, seed=seed)  # fmt: skip
    return daemon, clock


def _copy(db: Path, to: Path) -> None:
    """The store as a restart would find it: what is committed (the WAL's frames too)."""
    to.parent.mkdir(parents=True)
    with sqlite3.connect(db) as src, sqlite3.connect(to) as dst:
        src.backup(dst)
    src.close()
    dst.close()


Point = tuple[Path, dict[str, Any]]
"""A copy of the store after a commit, and the state line (`--trace`'s) the board was at."""


def _restart_points(root: Path, config: Config, seed: int, *, until: str) -> list[Point]:
    """Play one demo game and copy the store after every commit that wrote something, up to
    the next game's start (`until="game"`) or the end of the opening (`until="opening"`),
    each with the state the board was at after that commit."""
    daemon, clock = _demo(root / "played", config, seed)
    db = daemon.store.path
    journal = daemon.board.loop.journal
    commit = journal.commit
    copies: list[Point] = []

    def copy_after_commit() -> None:
        wrote = journal.pending
        commit()
        if wrote:
            copies.append(
                (root / f"point{len(copies)}" / db.name, trace_fields(daemon.controller.state()))
            )
            _copy(db, copies[-1][0])

    journal.commit = copy_after_commit  # type: ignore[method-assign]
    first = daemon.controller.glance().game_id
    try:
        for _ in range(RESUME_TICKS):
            clock.advance(TICK_S)
            daemon.tick()
            glance = daemon.controller.glance()
            if glance.game_id != first or (until == "opening" and glance.stage != "open"):
                break
        else:
            raise AssertionError(f"the demo's first game did not end: {daemon.trace_line()}")
    finally:
        journal.commit = commit  # type: ignore[method-assign]
        daemon.close()
    return copies


def _stalls(copies: list[Point], config: Config, seed: int) -> list[str]:
    """Restart the demo on each copy; where it did not resume the game at the step it was
    at, or where the resumed game did not end in RESUME_TICKS."""
    stalled = []
    for n, (copy, was) in enumerate(copies):
        daemon, clock = _demo(copy.parent, config, seed + n)
        resumed = daemon.trace_line()
        game = daemon.controller.glance().game_id
        if game == was["game"] and json.loads(resumed) != was:
            stalled.append(f"after commit {n}: was at {was}, resumed at {resumed}")
        elif game != was["game"] and was["stage"] != "over":  # a finished game: the next
            stalled.append(f"after commit {n}: game {was['game']} unfinished, resumed {resumed}")
        try:
            for _ in range(RESUME_TICKS):
                clock.advance(TICK_S)
                daemon.tick()
                if daemon.controller.glance().game_id != game:
                    break
            else:
                stalled.append(f"after commit {n}: resumed {resumed}, now {daemon.trace_line()}")
        finally:
            daemon.close()
    return stalled


@pytest.mark.parametrize(
    ("mode", "pace", "until"),
    [("two", "instant", "game"), ("two", "step", "opening"), ("ai", "step", "opening")],
    ids=["two-instant", "two-step-opening", "ai-step-opening"],
)
def test_the_demo_resumed_after_any_commit_plays_on(
    tmp_path: Path, mode: str, pace: str, until: str
) -> None:
    """A restart after each commit of a game (the instant game's every commit; the step
    games' opening, where a press holds seeds in the hand: the rest of their commits is
    `make soak`'s), and the demo plays on from each."""
    config = _config(mode, pace)
    copies = _restart_points(tmp_path, config, 21, until=until)
    assert len(copies) >= 3, "the opening's commits at least (a lift, its revert, a pass)"
    stalled = _stalls(copies, config, 21)
    assert not stalled, f"{len(stalled)} of {len(copies)} restarts stalled:\n" + "\n".join(
        stalled[:5]
    )


@pytest.mark.soak
@pytest.mark.parametrize(("mode", "pace"), [("two", "step"), ("ai", "step")])
def test_the_demo_resumed_after_every_commit_of_a_game_plays_on(
    tmp_path: Path, mode: str, pace: str
) -> None:
    """`make soak`: a restart after every commit of a whole step-pace game."""
    config = _config(mode, pace)
    copies = _restart_points(tmp_path, config, 22, until="game")
    stalled = _stalls(copies, config, 22)
    assert not stalled, f"{len(stalled)} of {len(copies)} restarts stalled:\n" + "\n".join(
        stalled[:5]
    )
