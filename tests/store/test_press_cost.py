"""One durable write per step: what a guided press costs the store on the real daemon.

The simulator daemon with its SQLite store plays guided presses over loopback TCP while
strace counts its fsync/fdatasync calls (`kiothi-board bench guide` prints the same
figures for 400 presses). Before the board loop a press cost two fsync'd transactions
(the exhibit's counter, then the game's event) and about 17 KB.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from kiothi_board.frame import Frame
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.store.sqlite import SqliteStore
from kiothi_board.tools.bench_store import game_start_cost, store_cost


def test_a_guided_press_costs_at_most_one_fsync_and_8_kib() -> None:
    cost = store_cost(presses=60, seed=3)
    assert cost.presses == 60
    assert cost.syncs is not None, "strace is missing: scripts/setup-system.sh installs it"
    assert cost.syncs <= 1.1 * cost.presses, cost.lines()
    assert cost.write_bytes <= 8 * 1024 * cost.presses, cost.lines()


def test_a_game_start_costs_one_fsync() -> None:
    """Issue 33: the journal hands out the game's id and writes its row with the step. On the
    old code each start cost two fsyncs (the old game's abandon, then the new game's row,
    each committed at once in the middle of the step) before the step's own write."""
    cost = game_start_cost(games=12)
    assert cost.syncs is not None, "strace is missing: scripts/setup-system.sh installs it"
    assert cost.syncs == cost.presses == 12, cost.lines()


def test_a_game_start_is_written_once_after_its_frame_is_shown(tmp_path: Path) -> None:
    """The rings show the new game before its one write (as a press): the controller writes
    nothing itself. On the old code the session committed the old game's abandon and the
    new game's row in the middle of the step, before the rings changed."""
    happened: list[str] = []

    class Sink(FakePixelSink):
        def show(self, frame: Frame) -> None:
            happened.append("show")
            super().show(frame)

    store = SqliteStore(tmp_path / "games.sqlite3")
    clock = FakeClock(10.0)
    with Board(sink=Sink(), clock=clock, store=store) as board:
        gid = board.call("new_game", mode="two", variant={"V2": True})
        board.press("S6")
        write = store._write

        def counted(fn: Any) -> Any:
            happened.append("write")
            return write(fn)

        store._write = counted  # type: ignore[method-assign]
        happened.clear()
        assert board.call("new_game", mode="two", variant={"V2": True}) == gid + 1
        assert happened == ["show", "write"], happened
        assert [g["status"] for g in store.list_games()] == ["current", "finished"]  # R13
    store.close()
