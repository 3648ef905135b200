"""Issue 21 item 8: a wall-clock step is recorded as such; durations come from the
monotonic clock. On the old code a step back of two days during a game stored it as
`finished` 172,787 s before it `started`."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.store.sqlite import SqliteStore

START = 1_780_000_000.0


class SteppedClock(FakeClock):
    """A fake clock whose wall time can be stepped alone (as NTP does at boot)."""

    def __init__(self) -> None:
        super().__init__(wall_start=START)
        self.offset = 0.0

    def wall(self) -> float:
        return super().wall() + self.offset


def test_a_step_during_a_game_does_not_change_its_duration(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = SteppedClock()
    with caplog.at_level(logging.WARNING), SqliteStore(tmp_path / "g.db", clock=clock) as store:
        gid = store.begin_game({})
        clock.advance(613.0)
        clock.offset = -172_800.0  # the wall clock steps back two days mid-game
        store.finish_game(gid, {"format": "kiothi-game/1", "result": {"winner": "S"}})
        game = store.list_games(1)[0]
        assert game["started"] == START
        assert game["finished"] - game["started"] == pytest.approx(613.0)
        assert store.health()["clock_steps"] == 1
        # the next game is stamped on the new wall clock, and lasts what it lasts
        gid = store.begin_game({})
        clock.advance(90.0)
        clock.offset += 3600.0  # forward an hour (NTP after a boot without a clock)
        store.finish_game(gid, {"format": "kiothi-game/1"})
        game = store.list_games(1)[0]
        assert game["finished"] - game["started"] == pytest.approx(90.0)
    assert "wall clock stepped -172800 s during game 1" in caplog.text
    assert "wall clock stepped +3600 s during game 2" in caplog.text


def test_a_game_resumed_after_a_step_back_never_ends_before_it_began(tmp_path: Path) -> None:
    clock = SteppedClock()
    with SqliteStore(tmp_path / "g.db", clock=clock) as store:
        gid = store.begin_game({})
    clock.offset = -86_400.0  # a restart, and the clock is a day behind
    with SqliteStore(tmp_path / "g.db", clock=clock) as store:
        store.finish_game(gid, {"format": "kiothi-game/1"})
        game = store.list_games(1)[0]
        assert game["finished"] >= game["started"]
