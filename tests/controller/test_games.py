"""Complete games through the controller in every mode and pace, replayed from the store."""

from __future__ import annotations

import random

import pytest

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.board import Board
from kiothi_board.controller import Controller
from kiothi_board.controller.opponent import Opponent
from kiothi_board.players import AIFactory
from kiothi_board.rules import GameRecord, parse_record
from kiothi_board.store.base import GameStore
from kiothi_board.store.memory import MemoryStore

from .conftest import Rig, make_rig


def finished_record(rig: Rig, gid: int) -> GameRecord:
    rec = rig.store.get_game(gid)
    assert rec is not None and rec["format"] == "kiothi-game/1"
    return parse_record(rec)


def check_replay(rig: Rig, gid: int) -> None:
    record = finished_record(rig, gid)
    final = record.final()
    assert final.over
    assert record.result == final.result
    over = [e for e in rig.events if e["type"] == "game_over"]
    assert over and over[-1]["result"] == final.result.to_json()  # type: ignore[union-attr]


def test_memory_store_is_a_game_store() -> None:
    assert isinstance(MemoryStore(), GameStore)


@pytest.mark.parametrize(
    ("mode", "sides", "pace", "limit"),
    [
        ("two", "S", "step", None),  # a complete game, every drop pressed
        ("two", "S", "flow", 24),
        ("two", "S", "instant", None),
        ("ai", "S", "step", 24),
        ("ai", "N", "step", 24),
        ("ai", "S", "flow", 24),
        ("ai", "N", "instant", None),
        ("demo", "", "step", 24),
        ("demo", "", "flow", 24),
        ("demo", "", "instant", None),
    ],
)
def test_game_follows_the_lights_and_replays(
    mode: str, sides: str, pace: str, limit: int | None
) -> None:
    rig = make_rig()
    variant = {} if limit is None else {"ply_limit": limit}
    gid = rig.ctl.call("new_game", mode=mode, sides=sides, level=2, pace=pace, variant=variant)  # type: ignore[arg-type]
    rig.follow(random.Random(hash((mode, sides, pace)) & 0xFFFF))
    check_replay(rig, gid)
    assert rig.sink.shown > 10


def test_store_events_rebuild_the_finished_game() -> None:
    rig = make_rig()
    gid = rig.ctl.call("new_game", mode="ai", sides="N", level=1, pace="instant")
    rig.follow(random.Random(3))
    record = finished_record(rig, gid)
    assert record.moves and len(record.opening) == 2
    assert rig.store.current_game() is None


def test_resume_restores_the_same_guide_step_mid_move() -> None:
    rig = make_rig()
    rig.ctl.call("new_game", mode="two", pace="step")
    rig.pit_input.hold(5, 1.5)  # South passes (R3)
    rig.pit_input.hold(15, 1.5)  # North passes
    assert "S6" in rig.ctl.state()["position"]["legal"]
    rig.pit_input.tap(5)  # select S6: the press is the lift
    for _ in range(3):
        pit = rig.ctl.ask(Controller.expected_pit)
        assert pit is not None
        rig.pit_input.tap(pit)
    before = rig.ctl.state()
    frame = rig.ctl.frame()
    again = Board.resume(rig.store, sink=rig.sink, clock=rig.clock, opponent_factory=None)
    after = again.state()
    for key in ("stage", "guide", "expect", "board", "position", "actions", "pending"):
        assert after[key] == before[key], key
    assert again.frame() == frame
    assert before["guide"]["index"] == 4


def test_a_game_stored_before_the_renumbering_resumes_against_the_same_player() -> None:
    """Six levels became nine (Skilled, Advanced, Veteran in between): 4, 5, 6 are 5, 8, 9."""
    rig = make_rig()
    old = {"mode": "ai", "humans": ["S"], "level": 6, "pace": "step", "variant": {}}
    rig.store.begin_game(old)  # as the six-level build stored it: no "ladder"
    asked: list[int | str] = []
    fallback = rig.ctl.session.factory

    def factory(level: LevelChoice) -> Opponent:
        asked.append(level.to_json())
        return fallback(level)

    ctl = Board.resume(rig.store, sink=rig.sink, clock=rig.clock, opponent_factory=factory)
    assert ctl.state()["settings"]["level"] == 9  # Master, as before the upgrade
    assert asked == [9]


def test_a_new_game_stores_the_numbering_of_its_level() -> None:
    rig = make_rig()
    rig.ctl.call("new_game", mode="ai", sides="S", level=6, pace="step")
    current = rig.store.current_game()
    assert current is not None
    assert current[1]["level"] == 6 and current[1]["ladder"] == 2
    again = Board.resume(rig.store, sink=rig.sink, clock=rig.clock, opponent_factory=None)
    assert again.state()["settings"]["level"] == 6  # read back unchanged


AI = {"mode": "ai", "humans": ["S"], "pace": "step", "variant": {}}


@pytest.mark.parametrize(
    ("meta", "events", "why"),
    [
        ({**AI, "level": 12, "ladder": 3}, [], "bad level 12"),  # a newer build's level
        ({**AI, "level": "banana"}, [], "banana"),
        ({**AI, "level": 2, "variant": {"V99": True}}, [], "V99"),  # a newer build's rule
        ({**AI, "level": 2}, [{"type": "select", "pit": "S6"}], "during the opening"),  # damaged
    ],
)
def test_a_stored_game_this_build_cannot_read_is_kept_and_the_board_starts(
    meta: dict[str, object],
    events: list[dict[str, object]],
    why: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A game stored by a newer build (a level it does not have) or a damaged one stopped
    the daemon at every start: Board.resume raised. Now the board starts without it,
    says which game and why, and the game stays in the store as it was."""
    rig = make_rig()
    gid = rig.store.begin_game(meta)
    for event in events:
        rig.store.append_event(gid, event)
    factory = AIFactory()  # the daemon's: it refuses a level it does not have
    ctl = Board.resume(rig.store, sink=rig.sink, clock=rig.clock, opponent_factory=factory)
    assert ctl.state()["stage"] == "none"
    assert f"game {gid}" in caplog.text and why in caplog.text
    current = rig.store.current_game()
    assert current is not None and current[0] == gid and current[1] == meta  # untouched
    new = ctl.call(
        "new_game", mode="two", sides="SN", level=2, pace="step"
    )  # and the board plays on
    assert new != gid and ctl.state()["game_id"] == new
    factory.close()
