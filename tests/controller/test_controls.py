"""The optional control buttons: undo, hint, check the board, new game."""

from __future__ import annotations

from kiothi_board.controller import CONTROLS

from .conftest import Rig


def test_control_buttons(rig: Rig) -> None:
    assert {i: c.name for i, c in CONTROLS.items()} == {0: "undo", 1: "hint", 2: "check", 3: "new"}
    first = rig.ctl.call(
        "new_game", mode="two", sides="S", level=2, pace="instant", variant={"V2": True}
    )
    rig.pit_input.tap(5)  # S6, played at once (instant pace)
    assert rig.ctl.state()["actions"] == ["S6"]
    rig.pit_input.control(0)  # undo
    assert rig.ctl.state()["stage"] == "set"  # every ring shows its old count
    rig.pit_input.hold(0, 1.5)  # one hold confirms the whole board
    assert rig.ctl.state()["actions"] == []
    rig.pit_input.control(2)  # check the board
    assert rig.ctl.state()["check"] == []
    rig.pit_input.control(2)
    assert rig.ctl.state()["check"] is None
    rig.pit_input.control(1)  # hint: the opponent is asked for a move
    rig.tick()
    assert any(e["type"] == "hint" for e in rig.events)
    rig.pit_input.control(3)  # new game with the same settings
    state = rig.ctl.state()
    assert state["game_id"] != first and state["settings"]["pace"] == "instant"
    assert state["settings"]["variant"] == {"V2": True}
