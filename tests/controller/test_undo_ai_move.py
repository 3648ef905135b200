"""Issue 24 #4: one undo while the AI's move is guided goes back to the player's own turn."""

from __future__ import annotations

from kiothi_board.controller import Controller
from kiothi_board.controller.opponent import ReadyHandle
from kiothi_board.rules import OpeningAction, Position, parse_opening, parse_pit

from .conftest import Rig, make_rig

S6 = 5


class LiftingOpponent:
    """Opens with a real lift (so its opening is guided seed by seed), then the first move."""

    def start(self, position: Position) -> ReadyHandle:
        if position.phase == "opening":
            return ReadyHandle(parse_opening("N7>N1,N1,S3,S3,S4,N2"))
        return ReadyHandle(position.legal_moves()[-1])


def _rig() -> Rig:
    rig = make_rig(opponent_factory=lambda level: LiftingOpponent())
    rig.ctl.call("new_game", mode="ai", sides="S", level=1, pace="step")
    return rig


def _ai_guided(rig: Rig) -> None:
    for _ in range(20):
        rig.tick()
        if rig.ctl.state()["stage"] in ("sow", "guided_open"):
            return
    raise AssertionError(f"the AI's move is not guided: {rig.ctl.state()}")


def _confirm(rig: Rig) -> dict:
    if rig.ctl.state()["stage"] == "set":  # nothing to set back: it completes by itself
        rig.pit_input.hold(0, 1.5)  # one hold confirms the board set back
    for _ in range(5):
        rig.tick()
    return rig.ctl.state()


def test_one_undo_during_the_ais_opening_goes_back_to_the_players_opening() -> None:
    rig = _rig()
    start = rig.ctl.state()["position"]
    rig.pit_input.hold(S6, 1.5)  # South passes
    _ai_guided(rig)
    assert rig.ctl.state()["position"]["to_move"] == "N"
    rig.ctl.call("undo")
    st = _confirm(rig)
    assert st["position"] == start, st["instruction"]  # South opens again
    assert st["stage"] == "open" and st["actions"] == [] and not st["ai_to_move"]


def test_one_undo_during_the_ais_move_goes_back_to_the_players_turn() -> None:
    rig = _rig()
    rig.pit_input.hold(S6, 1.5)
    _ai_guided(rig)
    while rig.ctl.state()["stage"] != "turn" or rig.ctl.state()["ai_to_move"]:
        pit = rig.ctl.ask(Controller.expected_pit)
        rig.pit_input.tap(pit) if pit is not None else rig.tick()  # the player guides it
    mine = rig.ctl.state()["position"]
    rig.pit_input.tap(parse_pit(mine["legal"][0]))  # lifted
    while rig.ctl.state()["position"]["to_move"] == "S":
        pit = rig.ctl.ask(Controller.expected_pit)
        rig.pit_input.tap(pit) if pit is not None else rig.tick()
    _ai_guided(rig)  # North (AI) is being guided
    rig.pit_input.tap(rig.ctl.ask(Controller.expected_pit))  # type: ignore[arg-type]
    rig.ctl.call("undo")  # one press
    st = _confirm(rig)
    assert st["position"] == mine, st["instruction"]
    assert st["stage"] == "turn" and not st["ai_to_move"]
    assert "South to move" in st["instruction"]


def test_a_stored_undo_of_an_older_build_replays_as_it_was_played() -> None:
    from kiothi_board.controller.events import Undo, from_json, to_json

    assert from_json({"type": "undo"}) == Undo()  # the move in progress only
    assert from_json(to_json(Undo(own_turn=True))) == Undo(own_turn=True)
    assert OpeningAction() == parse_opening("pass")


def test_south_resigns_as_asked_on_norths_turn() -> None:
    """Side.S is 0: `side or game.mover` made a resignation by South North's (found for #6)."""
    from kiothi_board.rules import Side

    rig = make_rig()
    rig.ctl.call("new_game", mode="two", pace="step")
    rig.ctl.call("opening", action="pass")  # North to open
    rig.ctl.call("resign", side=Side.S)
    assert rig.ctl.state()["result"]["by"] == "S"
