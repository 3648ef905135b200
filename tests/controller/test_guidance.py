"""Issue 10 in the controller: the hint's lifetime, instructions, reasons, the whole-board
restore with one gesture, abandoned games, the tutorial."""

from __future__ import annotations

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.controller import Controller
from kiothi_board.controller.opponent import FirstLegalOpponent
from kiothi_board.guide import HINT_SECONDS, Cue
from kiothi_board.guide.tutorial import TUTORIAL_OPENING
from kiothi_board.rules import Position, Variant, parse_pit
from kiothi_board.store.memory import MemoryStore

from .conftest import Rig, make_rig

S6 = parse_pit("S6")


def _hint_pits(rig: Rig) -> list[int]:
    return rig.lit(Cue.HINT)


def test_a_hint_lasts_until_the_next_press_or_a_few_seconds() -> None:
    """Issue 10 #1: the hint's yellow ring stayed through the opening and into the turn."""
    rig = make_rig(opponent_factory=lambda level: FirstLegalOpponent())
    rig.ctl.call("new_game", mode="two", pace="step", variant={"V2": True})
    rig.ctl.call("hint")
    rig.tick()
    assert _hint_pits(rig) == [S6] and "Hint: S6" in rig.ctl.state()["instruction"]
    rig.tick(HINT_SECONDS + 0.1)
    assert _hint_pits(rig) == [] and "Hint" not in rig.ctl.state()["instruction"]
    rig.ctl.call("hint")
    rig.tick()
    assert _hint_pits(rig) == [S6]
    rig.pit_input.tap(parse_pit("S1"))  # any press ends it, even a wrong one
    rig.tick()
    assert _hint_pits(rig) == []
    # In the opening: the hint goes with the press that lifts a pit.
    rig.ctl.call("new_game", mode="two", pace="step")
    rig.ctl.call("hint")
    rig.tick()
    rig.pit_input.tap(parse_pit("S7"))
    for _ in range(3):
        rig.tick()
        assert all(c != Cue.HINT for c in rig.lit(Cue.HINT))
        assert _hint_pits(rig) == []


def test_opening_instruction_and_wrong_press_reasons_reach_the_api(rig: Rig) -> None:
    """Issue 10 #2 and #7: `stage open` only, and a red blink without a reason."""
    rig.ctl.call("new_game", mode="two", pace="step")
    rig.pit_input.tap(parse_pit("S6"))
    st = rig.ctl.state()
    assert st["instruction"] == (
        "South's opening: place the seeds from S6 one at a time — press a pit for each seed, "
        "6 left."
    )
    guide = [e for e in rig.events if e["type"] == "guide"][-1]
    assert guide["text"] == st["instruction"]
    rig.ctl.call("new_game", mode="two", pace="step", variant={"V2": True})
    rig.pit_input.tap(parse_pit("S1"))
    wrong = [e for e in rig.events if e["type"] == "wrong"][-1]
    assert wrong["message"] == "S1 is empty: choose a pit with seeds."
    assert rig.ctl.state()["said"] == wrong["message"]
    rig.tick(7.0)
    assert rig.ctl.state()["said"] is None


def test_undo_shows_every_target_and_one_hold_confirms_the_board(rig: Rig) -> None:
    """Issue 10 #8: 19 presses to set the board back, the label contradicting the ring."""
    rig.ctl.call("new_game", mode="two", pace="instant", variant={"V2": True})
    start = rig.ctl.state()["position"]
    rig.pit_input.tap(S6)
    after = rig.ctl.state()["position"]["board"]
    rig.ctl.call("undo")
    st = rig.ctl.state()
    assert st["stage"] == "set" and st["expect"] is None
    assert st["board"] == start["board"]  # labels show the targets the rings show
    changes = st["restore"]["changes"]
    assert (
        changes
        == {name: [after[parse_pit(name)], start["board"][parse_pit(name)]] for name in changes}
        and len(changes) == 7
    )
    assert st["instruction"].startswith("Undo: set the 7 blinking pits")
    frame = rig.sink.last
    assert frame is not None
    for p in range(20):
        assert sum(1 for c in frame[p] if c != (0, 0, 0)) >= min(start["board"][p], 16) - 0
    rig.pit_input.tap(S6)  # ticking is optional
    assert "S6" not in rig.ctl.state()["restore"]["pending"]
    rig.pit_input.hold(parse_pit("N1"), 1.5)  # one gesture for the whole board
    st = rig.ctl.state()
    assert st["stage"] == "turn" and st["position"] == start and st["actions"] == []


def test_restore_view_is_reusable_for_an_exhibition_reset() -> None:
    from kiothi_board.guide import DEFAULT, Renderer, cells, render
    from kiothi_board.guide.instructions import Situation, instruction
    from kiothi_board.guide.restore import RestoreView

    board = Position.initial(Variant(V2=True)).play(S6).board
    task = RestoreView.of(board, Position.initial().board, None, "reset")
    assert instruction(Situation(task)).startswith("Reset to the start: set the")
    assert [c.count for c in cells(task, 0.0)] == list(Position.initial().board)
    assert len(render(task, 0.0, Renderer(DEFAULT, 16))) == 20


def test_a_new_game_abandons_the_unfinished_one(rig: Rig) -> None:
    """Issue 10 #6: abandoned games piled up as "unfinished"."""
    first = rig.ctl.call("new_game", mode="two", pace="step", variant={"V2": True})
    rig.pit_input.tap(S6)
    rig.ctl.call("new_game", mode="two", pace="step")
    game = rig.store.get_game(first)
    assert game["result"]["end"] == "abandoned"
    assert any(e["type"] == "game_over" and e["id"] == first for e in rig.events)


def test_first_game_is_a_tutorial_through_an_opening_and_a_relay() -> None:
    rig = make_rig(opponent_factory=lambda level: FirstLegalOpponent())
    rig.pit_input.hold(parse_pit("S1"), 1.5)  # the board's very first game
    seen: list[str] = []
    for _ in range(400):
        rig.tick()
        st = rig.ctl.state()
        seen.append(st["instruction"])
        if st["tutorial"] in (None, "done"):
            break
        pit = rig.ctl.ask(Controller.expected_pit)
        if pit is not None:
            rig.pit_input.tap(pit)
        elif st["stage"] == "turn" and not st["ai_to_move"]:
            rig.pit_input.tap(parse_pit(st["position"]["legal"][0]))
    lessons = [s for s in seen if s.startswith("Tutorial")]
    assert lessons[0].startswith("Tutorial 1/4 · The opening:")
    assert any("A move goes on while its last seed" in s for s in lessons)
    assert any(s.startswith("Tutorial 4/4 · That is all") for s in lessons)
    assert rig.ctl.state()["actions"][0] == TUTORIAL_OPENING
    rig.ctl.call("new_game", mode="two")  # a game asked for later is no tutorial
    assert rig.ctl.state()["tutorial"] is None
    rig.ctl.call("tutorial")  # …unless asked for
    assert rig.ctl.state()["tutorial"] == "opening"


def test_a_board_configured_for_the_visitor_level_starts_and_its_tutorial_plays_it() -> None:
    """`[game] level = "adaptive"` passed the config check, then the controller's int() of it
    stopped the daemon at start (ValueError); the first game is the tutorial, at that level."""
    asked: list[int | str] = []

    def factory(level: LevelChoice) -> FirstLegalOpponent:
        asked.append(level.to_json())
        return FirstLegalOpponent()

    rig = make_rig(opponent_factory=factory, defaults={"level": "adaptive"})
    rig.pit_input.hold(parse_pit("S1"), 1.5)  # the board's very first game: the tutorial
    assert rig.ctl.state()["tutorial"] not in (None, "done")
    assert rig.ctl.state()["settings"]["level"] == "adaptive" and asked == ["adaptive"]


def test_a_hold_on_an_empty_pit_passes_the_opening_without_calling_the_pit_empty() -> None:
    """Issue 31 item 9: the hold's first press was told "S1 is empty: choose a pit with
    seeds" (and its ring flashed red) while the hold then passed the opening (R3)."""
    rig = make_rig(opponent_factory=lambda level: FirstLegalOpponent())
    rig.ctl.call("new_game", mode="two", pace="step")
    rig.pit_input.hold(parse_pit("S1"), 1.5)
    rig.tick()
    state = rig.ctl.state()
    assert state["position"]["to_move"] == "N", "the hold passed South's opening"
    assert state["said"] is None, state["said"]
    assert rig.lit(Cue.ERROR) == [], "no red ring for a press the hold took back"
    rig.pit_input.tap(parse_pit("N1"))  # a real wrong press is still said
    assert rig.ctl.state()["said"] == "N1 is empty: choose a pit with seeds."


def test_the_tutorial_survives_a_restart_at_every_part() -> None:
    """Issue 31 item 8: a resumed tutorial game was an ordinary game (its lessons gone)."""
    store = MemoryStore()
    rig = make_rig(store, opponent_factory=lambda level: FirstLegalOpponent())
    rig.pit_input.hold(parse_pit("S1"), 1.5)  # the board's very first game: the tutorial
    parts: list[str] = []
    for _ in range(400):
        rig.tick()
        st = rig.ctl.state()
        if st["tutorial"] in (None, "done"):
            break
        if not parts or parts[-1] != st["tutorial"]:
            parts.append(st["tutorial"])
            rig.ctl.close()  # a restart (or a power cut) here: the next process resumes
            rig = make_rig(store, opponent_factory=lambda level: FirstLegalOpponent())
            again = rig.ctl.state()
            assert again["tutorial"] == st["tutorial"], (again["tutorial"], st["tutorial"])
            if st["instruction"].startswith("Tutorial"):  # the lesson of the moment, too
                assert again["instruction"] == st["instruction"], again["instruction"]
        pit = rig.ctl.ask(Controller.expected_pit)
        if pit is not None:
            rig.pit_input.tap(pit)
        elif st["stage"] == "turn" and not st["ai_to_move"]:
            rig.pit_input.tap(parse_pit(st["position"]["legal"][0]))
    assert parts[0] == "opening" and {"move", "play-on"} <= set(parts), parts
    assert rig.ctl.state()["actions"][0] == TUTORIAL_OPENING
    rig.ctl.close()
    later = make_rig(store, opponent_factory=lambda level: FirstLegalOpponent())
    assert later.ctl.state()["tutorial"] is None, "once the lessons are over they stay over"
