"""Issue 24 #1: the exhibition's reset compares the start with the board as the game left
it, for every ending (R10-R13), and after a restart with the last game's board."""

from __future__ import annotations

import random
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from kiothi_board.controller import Controller
from kiothi_board.exhibit.attendant import Timing
from kiothi_board.exhibit.director import Director, ExhibitSettings
from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.guide import Renderer
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.rules import INITIAL_BOARD, parse_pit, pit_name
from kiothi_board.store.memory import MemoryStore

TIMING = Timing(idle_after=60, countdown=10, hint_after=30, two_player_window=3, over_seconds=5)


class Exhibit:
    """A real board and director on a fake clock (no thread, no daemon)."""

    def __init__(self, store: MemoryStore | None = None) -> None:
        self.clock = FakeClock()
        self.store = store or MemoryStore()
        self.director = Director(
            ExhibitSettings(TIMING, level=LevelChoice(1)), clock=self.clock, store=self.store,
            renderer=Renderer(leds=16), schedule=Schedule(timezone="UTC"),
        )  # fmt: skip
        self.board = Board(sink=FakePixelSink(16), clock=self.clock, store=self.store,
                           director=self.director, ticking=False, over_seconds=5)  # fmt: skip

    def tick(self, n: int = 1, seconds: float = 0.05) -> None:
        for _ in range(n):
            self.clock.advance(seconds)
            self.board.tick()

    def start_two(self, pace: str = "step") -> None:
        """Confirm the boot reset, then a two-player game (as a press on each side would)."""
        if self.director.status()["phase"] == "reset":
            self.board.press(3, hold=True)
        self.board.call("new_game", mode="two", sides="S", level=1, pace=pace)
        assert self.director.status()["phase"] == "playing"

    def left(self) -> tuple[int, ...]:
        board = self.board.ask(Controller.glance).board
        assert board is not None
        return board

    def reset_after(self, ending: str) -> dict[str, Any]:
        """End the game with `ending`, wait for the reset; its status."""
        if ending:
            self.board.call(ending)
        for _ in range(400):
            self.tick(5)
            if self.director.status()["phase"] == "reset":
                return self.director.status()
        raise AssertionError(f"no reset: {self.director.status()}")

    def pending(self) -> list[str]:
        return sorted(pit_name(p) for p in self.director._reset.differs())


def changes(board: tuple[int, ...]) -> list[str]:
    return sorted(pit_name(p) for p in range(20) if board[p] != INITIAL_BOARD[p])


def mid_opening(ex: Exhibit) -> tuple[int, ...]:
    """South's opening typed on the API and half guided: seeds already moved."""
    ex.board.call("opening", action="S7>S1,S1,N3,N3,N4,S2")
    for _ in range(3):
        ex.board.press(ex.board.ask(Controller.expected_pit))  # type: ignore[arg-type]
    left = ex.left()
    assert left != INITIAL_BOARD and ex.board.state()["position"]["board"] == list(INITIAL_BOARD)
    return left


def mid_move(ex: Exhibit) -> tuple[int, ...]:
    """Both pass, South lifts S6 and drops three seeds of it."""
    ex.board.press("S6", hold=True)
    ex.board.press("N6", hold=True)
    ex.board.press("S6")
    for _ in range(3):
        ex.board.press(ex.board.ask(Controller.expected_pit))  # type: ignore[arg-type]
    assert ex.board.state()["stage"] == "sow"
    return ex.left()


def test_resignation_in_the_middle_of_the_opening_lists_the_seeds_moved() -> None:
    ex = Exhibit()
    ex.start_two()
    left = mid_opening(ex)
    status = ex.reset_after("resign")
    assert "already holds" not in status["instruction"], status["instruction"]
    assert ex.pending() == changes(left)


def test_resignation_and_abandon_mid_move_leave_the_seeds_where_they_lie() -> None:
    for ending in ("resign", "abandon"):
        ex = Exhibit()
        ex.start_two()
        left = mid_move(ex)
        ex.reset_after(ending)
        assert ex.pending() == changes(left), ending


def test_an_idle_game_abandoned_by_the_countdown_mid_move() -> None:
    ex = Exhibit()
    ex.start_two()
    left = mid_move(ex)
    status = ex.reset_after("")  # the visitor walks away: countdown, abandoned, reset
    assert ex.board.call("games.get", id=1)["result"]["end"] == "abandoned"  # type: ignore[index]
    assert ex.pending() == changes(left), status["instruction"]


def test_agreement_each_player_took_their_row_the_board_is_empty() -> None:
    ex = Exhibit()
    ex.start_two()
    mid_move(ex)
    ex.reset_after("end")
    assert ex.pending() == changes((0,) * 20)  # every pit that starts with seeds


def test_no_moves_the_other_took_the_seeds_left() -> None:
    ex = Exhibit()
    ex.start_two("instant")
    rng = random.Random(4)
    for _ in range(5000):
        st = ex.board.state()
        if st["stage"] == "over":
            break
        if st["stage"] == "open":
            ex.board.call("opening", action="pass")
        else:
            ex.board.call("move", pit=parse_pit(rng.choice(st["position"]["legal"])))
    record = ex.board.call("games.get", id=1)
    assert record is not None and record["result"]["end"] in ("no-moves", "repetition")
    ex.reset_after("")
    assert ex.pending() == changes((0,) * 20)


def test_after_a_restart_the_reset_lists_what_the_last_game_left() -> None:
    ex = Exhibit()
    ex.start_two()
    mid_move(ex)
    while ex.board.state()["stage"] != "turn":
        ex.board.press(ex.board.ask(Controller.expected_pit))  # type: ignore[arg-type]
    left = ex.left()
    ex.reset_after("resign")
    again = Exhibit(ex.store)  # the power comes back: no game to resume
    status = again.director.status()
    assert status["phase"] == "reset"
    assert "set every pit" not in status["instruction"], status["instruction"]
    assert again.pending() == changes(left)
