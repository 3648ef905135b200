"""Wrong presses, undo, board check, resign, agreement, the opening, paces, long moves."""

from __future__ import annotations

from pathlib import Path

from kiothi_board.controller import CHORDS, Controller, FirstLegalOpponent
from kiothi_board.guide import Cue
from kiothi_board.rules import Outcome, Position, Variant, parse_pit, parse_record

from .conftest import Rig, make_rig

S1, S2, S5, S6, S10, N1, N10 = 0, 1, 4, 5, 9, 10, 19


def both_pass(rig: Rig) -> None:
    rig.pit_input.hold(S6, 1.5)
    rig.pit_input.hold(parse_pit("N6"), 1.5)
    assert rig.ctl.state()["stage"] == "turn"


def chord(rig: Rig, a: int, b: int) -> None:
    rig.pit_input.press(a)
    rig.pit_input.press(b)
    rig.pit_input.hold(b, 1.5, release=False)
    rig.pit_input.release(b)
    rig.pit_input.release(a)


def stored(rig: Rig) -> int:
    cur = rig.store.current_game()
    return -1 if cur is None else len(cur[2])


def test_wrong_press_changes_nothing_and_flashes(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="step")
    both_pass(rig)
    rig.pit_input.tap(S6)
    expect = rig.ctl.ask(Controller.expected_pit)
    assert expect is not None
    before, n = rig.ctl.state(), stored(rig)
    wrong = (expect + 3) % 20
    rig.pit_input.tap(wrong)
    after = rig.ctl.state()
    said = after.pop("said")  # the reason in words is the one thing that changes (issue 10)
    assert after.pop("said_kind") == "wrong"
    assert {**after, "said": None, "said_kind": None} == before and stored(rig) == n
    assert said is not None and said.startswith(f"S{wrong + 1} is not the lit pit")
    assert rig.lit(Cue.ERROR) == [wrong]
    assert expect in rig.lit(Cue.DROP)
    assert [e for e in rig.events if e["type"] == "wrong"][-1]["pit"] == "S" + str(wrong + 1)
    rig.tick(2.0)
    assert rig.lit(Cue.ERROR) == []


def test_illegal_pit_in_turn_is_refused(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="step")
    both_pass(rig)
    n = stored(rig)
    rig.pit_input.tap(S1)  # empty
    rig.pit_input.tap(parse_pit("N7"))  # not South's
    assert stored(rig) == n and rig.ctl.state()["stage"] == "turn"


def test_opening_lift_place_and_hold_to_pass(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="step")
    rig.pit_input.tap(parse_pit("S7"))  # lift 6 seeds
    assert rig.ctl.state()["lifted"] == "S7"
    for name in ("S1", "S1", "N3", "N3", "N4", "S2"):
        rig.pit_input.tap(parse_pit(name))
    assert rig.ctl.state()["position"]["to_move"] == "N"
    # North presses a pit (it lifts), keeps holding: the hold takes the lift back and passes.
    rig.pit_input.hold(parse_pit("N8"), 1.5)
    st = rig.ctl.state()
    assert st["stage"] == "turn" and st["actions"] == ["S7>S1,S1,N3,N3,N4,S2", "pass"]
    assert st["position"]["board"][0] == 2


def test_undo_is_guided_back_to_the_previous_counts(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="instant")
    both_pass(rig)
    start = rig.ctl.state()["position"]
    rig.pit_input.tap(S6)
    assert rig.ctl.state()["position"]["to_move"] == "N"
    chord(rig, S5, S6)
    st = rig.ctl.state()
    assert st["stage"] == "set" and st["board"] == start["board"]  # the rings show targets
    rig.pit_input.hold(S1, 1.5)  # one gesture confirms the whole board (issue 10)
    assert rig.ctl.state()["position"] == start
    assert rig.ctl.state()["actions"] == ["pass", "pass"]


def test_undo_against_the_ai_goes_back_to_the_humans_turn() -> None:
    rig = make_rig(opponent_factory=lambda level: FirstLegalOpponent())
    rig.ctl.call("new_game", mode="ai", sides="S", level=1, pace="instant")
    rig.pit_input.hold(S6, 1.5)
    rig.tick()
    rig.tick()
    assert rig.ctl.state()["position"]["to_move"] == "S"
    before = rig.ctl.state()["position"]
    rig.pit_input.tap(S6)
    rig.tick()
    rig.tick()
    assert rig.ctl.state()["position"]["ply"] == 4
    rig.ctl.call("undo")
    rig.pit_input.hold(S1, 1.5)  # the board set back: one hold confirms it
    assert rig.ctl.state()["position"] == before


def test_undo_of_a_move_in_progress(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="step")
    both_pass(rig)
    start = rig.ctl.state()["position"]
    rig.pit_input.tap(S6)
    rig.pit_input.tap(rig.ctl.ask(Controller.expected_pit))  # type: ignore[arg-type]
    rig.ctl.call("undo")
    rig.pit_input.hold(S1, 1.5)
    assert rig.ctl.state()["position"] == start and rig.ctl.state()["stage"] == "turn"


def test_check_board_marks_wrong_pits_until_confirmed(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="step")
    both_pass(rig)
    before = rig.ctl.state()["position"]
    chord(rig, S1, S10)
    assert rig.ctl.state()["check"] == []
    rig.pit_input.tap(S6)  # in a check a press marks the pit wrong, it does not move
    assert rig.ctl.state()["check"] == ["S6"]
    rig.clock.set(10.0)
    rig.ctl.tick()
    assert rig.lit(Cue.WRONG) == [S6]
    rig.pit_input.tap(S6)
    assert rig.ctl.state()["check"] == []
    chord(rig, S1, S10)
    st = rig.ctl.state()
    assert st["check"] is None and st["position"] == before and st["stage"] == "turn"


def test_resign_by_chord(rig: Rig) -> None:
    gid = rig.ctl.call("new_game", mode="two", pace="step")
    both_pass(rig)
    chord(rig, S1, S2)
    st = rig.ctl.state()
    assert st["stage"] == "over" and st["ended"] == "resign"
    assert st["result"]["winner"] == "N"
    rec = rig.store.get_game(gid)
    assert rec is not None and rec["opening"] == ["pass", "pass"]
    # R13: the record names the resignation (it was stored as "no-moves" before issue 8).
    assert rec["result"]["end"] == "resign" and rec["result"]["by"] == "S"
    assert parse_record(rec).final().result == Outcome.from_json(rec["result"])


def test_end_by_agreement_splits_rows(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="instant")
    both_pass(rig)
    rig.pit_input.tap(S6)
    board = rig.ctl.state()["position"]["board"]
    chord(rig, S10, N1)
    st = rig.ctl.state()
    assert st["ended"] == "agreement"
    assert st["result"]["captured"] == [sum(board[:10]), sum(board[10:])]
    rig.tick(11.0)
    assert rig.ctl.state()["stage"] == "none"
    rig.pit_input.hold(S1, 1.5)  # a hold on an idle board starts a new game
    assert rig.ctl.state()["stage"] == "open"


def test_chords_are_documented() -> None:
    text = (Path(__file__).parents[2] / "docs" / "controls.md").read_text(encoding="utf-8")
    for pits in CHORDS:
        names = sorted(("S" if p < 10 else "N") + str(p % 10 + 1) for p in pits)
        assert f"{names[0]}+{names[1]}" in text or f"{names[1]}+{names[0]}" in text


def test_flow_press_pauses_and_resumes(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="flow")
    both_pass(rig)
    rig.pit_input.tap(S6)
    index = rig.ctl.state()["guide"]["index"]
    rig.tick(0.6)
    assert rig.ctl.state()["guide"]["index"] == index + 1
    rig.pit_input.tap(S1)
    assert rig.ctl.state()["paused"]
    for _ in range(20):
        rig.tick(0.5)
    assert rig.ctl.state()["guide"]["index"] == index + 1
    rig.pit_input.tap(S1)
    rig.tick(0.6)
    assert rig.ctl.state()["guide"]["index"] == index + 2


def test_drop_sensor_confirms_drops(rig: Rig) -> None:
    rig.ctl.call("new_game", mode="two", pace="step", variant={"V2": True})
    rig.pit_input.tap(S6)
    pit = rig.ctl.ask(Controller.expected_pit)
    assert pit is not None
    rig.pit_input.drop(pit)
    assert rig.ctl.state()["guide"]["index"] == 2


def test_long_move_sets_the_board_or_walks_on_request() -> None:
    rig = make_rig()
    rig.ctl.call("new_game", mode="two", pace="step", variant={"V2": True}, long_move_laps=0)
    after = Position.initial(Variant(V2=True)).play(S6)
    rig.pit_input.tap(S6)
    st = rig.ctl.state()
    assert st["stage"] == "set"  # more laps than the limit: set the resulting counts
    assert st["board"] == list(after.board) and st["restore"]["purpose"] == "long-move"
    rig.pit_input.hold(parse_pit("N1"), 1.5)  # one hold confirms the whole board
    assert rig.ctl.state()["position"] == after.to_json()
    # North's move: a hold on the pit it was played from walks it drop by drop instead.
    legal = rig.ctl.state()["position"]["legal"]
    rig.pit_input.tap(parse_pit(legal[0]))
    assert rig.ctl.state()["stage"] == "set"
    rig.pit_input.hold(parse_pit(legal[0]), 1.5)
    st = rig.ctl.state()
    assert st["stage"] == "sow" and st["guide"]["kind"] == "lift"
    rig.pit_input.tap(rig.ctl.ask(Controller.expected_pit))  # type: ignore[arg-type]
    assert rig.ctl.state()["guide"]["kind"] in ("drop", "relay")


def test_api_methods_and_json_state(rig: Rig) -> None:
    import json

    rig.ctl.call("new_game", mode="two", pace="step")
    rig.ctl.call("opening", action="S7>S1,S1,N3,N3,N4,S2")
    assert rig.ctl.state()["guide"]["kind"] == "lift"
    while rig.ctl.state()["stage"] == "guided_open":
        rig.pit_input.tap(rig.ctl.ask(Controller.expected_pit))  # type: ignore[arg-type]
    rig.ctl.call("opening", action="pass")
    assert rig.ctl.state()["actions"] == ["S7>S1,S1,N3,N3,N4,S2", "pass"]
    rig.ctl.call("move", pit="S6")
    st = rig.ctl.state()
    assert st["pending"] == "S6" and st["guide"]["kind"] == "lift"
    json.dumps(st)
    kinds = {e["type"] for e in rig.events}
    assert {"new_game", "guide", "position", "move", "input"} <= kinds
