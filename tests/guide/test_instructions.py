"""Instruction texts (one line per guide state), wrong-press reasons and the restore view."""

from __future__ import annotations

import pytest

from kiothi_board.guide import (
    DEFAULT,
    BlankView,
    CheckView,
    Cue,
    IdleView,
    OpeningView,
    OverView,
    Renderer,
    StepsView,
    Style,
    cells,
    opening_steps,
    render,
    sow_steps,
)
from kiothi_board.guide.instructions import Situation, instruction, wrong_text
from kiothi_board.guide.restore import RestoreView
from kiothi_board.rules import Lift, Position, Result, Side, pit_name
from tests.guide.test_guide import rich_move


def played() -> Position:
    return Position.initial().open("pass").open("pass")


def test_every_state_has_one_line() -> None:
    pos, trace = rich_move()
    steps = sow_steps(trace)
    views = [
        BlankView(),
        IdleView.of(played()),
        OpeningView(Position.initial().board, Side.S, legal=(5, 6, 7, 8, 9)),
        *(StepsView(steps, i, pos.to_move, trace) for i in range(len(steps))),
        CheckView(played().board, Side.S, frozenset({5})),
        OverView(Result.of((38, 22), "no-moves")),
        RestoreView.of(played().board, Position.initial().board, Side.S),
    ]
    for view in views:
        text = instruction(Situation(view))
        assert text and "\n" not in text and len(text) <= 160, text


def test_opening_says_how_many_seeds_are_left() -> None:
    """Issue 10 #2: after lifting S6 the opening said only `stage open`."""
    board = list(Position.initial().board)
    board[5] = 0
    view = OpeningView(tuple(board), Side.S, lifted=5, hand=6)
    assert instruction(Situation(view)) == (
        "South's opening: place the seeds from S6 one at a time — press a pit for each seed, "
        "6 left."
    )
    start = OpeningView(Position.initial().board, Side.S, legal=(5, 6, 7, 8, 9))
    assert "hold a pit to pass" in instruction(Situation(start))


def test_turn_ai_guided_steps_and_hint() -> None:
    view = IdleView.of(played())
    assert instruction(Situation(view)) == (
        "South to move: press one of your breathing pits (S6 S7 S8 S9 S10) to sow it."
    )
    assert instruction(Situation(view, hint=7)).endswith("Hint: S8 (yellow ring).")
    ai = IdleView(played(), ())
    assert instruction(Situation(ai, ai=True, thinking=True)) == "South (AI) is thinking…"
    guided = opening_steps(Position.initial().board, [Lift(16, (0, 0, 12, 12, 13, 1))])
    assert instruction(Situation(StepsView(guided, 0, Side.N), ai=True)) == (
        "North (AI) opens: lift all 6 seeds from N7."
    )
    assert instruction(Situation(StepsView(guided, 1, Side.N), ai=True)) == (
        "North (AI) opens: place one seed in S1 (6 in hand)."
    )


def test_sowing_steps_name_pit_count_and_relay() -> None:
    pos, trace = rich_move()
    steps = sow_steps(trace)
    texts = [
        instruction(Situation(StepsView(steps, i, pos.to_move, trace))) for i in range(len(steps))
    ]
    assert any(t.startswith("Relay: the last seed fell in a pit that had seeds") for t in texts)
    assert any(t.startswith("Capture: take the seeds out of") for t in texts)
    assert texts[-1] == "Done: every ring shows its new count."
    drop = next(i for i, s in enumerate(steps) if s.kind == "drop")
    flow = instruction(Situation(StepsView(steps, drop, pos.to_move, trace), pace="flow"))
    assert flow.startswith("Follow the light: drop one seed in") and "pause" in flow
    paused = StepsView(steps, drop, pos.to_move, trace, paused=True)
    assert instruction(Situation(paused, pace="flow")) == "Paused: press any pit to go on."


def test_game_over_names_winner_score_and_ending() -> None:
    text = instruction(Situation(OverView(Result.of((38, 22), "no-moves"))))
    assert text == (
        "Game over: the player to move had no move left, so the other took the seeds left on "
        "the board (R10). South wins 38–22. Hold any pit for a new game."
    )
    assert "A draw, 30–30" in instruction(Situation(OverView(Result.of((30, 30), "repetition"))))


def test_game_over_says_who_had_no_moves_and_puts_the_winners_score_first() -> None:
    """Issue 24 #7: "North wins, 28–32", and an abandoned game was "A draw, 0–0"."""
    from kiothi_board.rules import Outcome

    stuck = instruction(Situation(OverView(Result.of((22, 38), "no-moves"), Side.S)))
    assert stuck.startswith("Game over: South had no move left, so North took the seeds left")
    assert "North wins 38–22." in stuck
    agreed = instruction(Situation(OverView(Result.of((28, 32), "agreement"))))
    assert "North wins 32–28." in agreed and "took the seeds left in their own row" in agreed
    resigned = instruction(Situation(OverView(Outcome.resignation(Side.S, (4, 14)))))
    assert resigned.startswith("Game over: South resigned (R13). North wins 14–4.")
    gone = instruction(Situation(OverView(Outcome.abandonment((0, 0)))))
    assert "abandoned, with no winner and no draw (R13)" in gone
    assert "draw," not in gone and "0–0" not in gone


def test_wrong_press_reasons_in_words() -> None:
    """Issue 10 #7: a wrong press only blinked red; now it says why."""
    idle = IdleView.of(played())
    assert wrong_text(idle, 0) == "S1 is empty: choose a pit with seeds."
    assert wrong_text(idle, 12) == "N3 is North's pit: press one of yours (South)."
    assert wrong_text(idle, 9, endless=True) == (
        "S10's move would never end (R6): choose another pit."
    )
    assert wrong_text(idle, 5, ai=True) == "Wait: it is South (AI)'s turn."
    pos, trace = rich_move()
    steps = sow_steps(trace)
    drop = next(i for i, s in enumerate(steps) if s.kind == "drop")
    want = steps[drop].pit
    view = StepsView(steps, drop, pos.to_move, trace)
    other = (want + 3) % 20
    text = wrong_text(view, other)
    assert f"the guide asks for {pit_name(want)}" in text
    assert wrong_text(BlankView(), 3).startswith("No game yet")


def test_restore_view_shows_targets_and_marks_changes() -> None:
    """Issue 10 #8: 'set S1' never stated the target and the label contradicted the ring."""
    before = list(Position.initial().board)
    target = list(before)
    before[0], target[0] = 4, 3
    target[11] = 1
    view = RestoreView.of(before, target, Side.S)
    assert view.changes == (0, 11) and view.pending == (0, 11)
    got = cells(view, 0.1)
    assert got[0].count == 3 and got[0].style is Style.PLACED and got[0].cue is Cue.CHANGE
    assert got[11].count == 1 and got[11].cue is Cue.CHANGE
    assert got[5].count == 6 and got[5].cue is Cue.NONE and got[5].style is Style.SOUTH
    assert got[15].style is Style.NEUTRAL
    assert instruction(Situation(view)) == (
        "Undo: set S1 to 3, N2 to 1, then hold any pit to confirm the board."
    )
    ticked = view.tap(0).tap(11)
    assert ticked.pending == () and ticked.holds(0)
    assert cells(ticked, 0.1)[0].cue is Cue.NONE and cells(ticked, 0.1)[0].count == 3
    assert "every pit is set" in instruction(Situation(ticked))
    assert view.tap(5) is view  # a pit that does not change: nothing to tick
    assert view.tap(0).tap(0).pending == (0, 11)
    ring = render(view, 0.1, Renderer(DEFAULT, 16))[0]
    assert ring.count((255, 255, 255)) == 4  # the CHANGE cue's four dots
    many = RestoreView.of(played().board, [0] * 20, None, "reset")
    assert instruction(Situation(many)).startswith("Reset to the start: set the 10 blinking pits")
    assert many.to_json()["pending"][0] == "S6"


def test_restore_refuses_bad_boards() -> None:
    with pytest.raises(ValueError, match="20 counts"):
        RestoreView.of([0] * 19, [0] * 20)
    with pytest.raises(ValueError, match="negative"):
        RestoreView.of([0] * 20, [-1] + [0] * 19)
    with pytest.raises(ValueError, match="purpose"):
        RestoreView.of([0] * 20, [0] * 20, None, "nope")  # type: ignore[arg-type]


def test_tutorial_chooses_a_relay_move_and_prefixes_lessons() -> None:
    from kiothi_board.guide.tutorial import (
        TUTORIAL_OPENING,
        Tutorial,
        tutorial_line,
        tutorial_move,
    )

    pos = Position.initial().open(TUTORIAL_OPENING).open("pass")
    pit = tutorial_move(pos)
    _, trace = pos.play_traced(pit)
    assert trace.relays >= 1 and pit in pos.legal_moves()
    tut = Tutorial()
    opening = OpeningView(Position.initial().board, Side.S, legal=(5, 6, 7, 8, 9))
    line = tutorial_line(tut, opening, "BASE")
    assert line.startswith("Tutorial 1/4 · The opening:") and line.endswith(" BASE")
    steps = sow_steps(trace)
    relay = next(i for i, s in enumerate(steps) if s.kind == "relay")
    move = Tutorial("move")
    line = tutorial_line(move, StepsView(steps, relay, Side.S, trace), "Relay: …")
    assert "A move goes on while its last seed lands" in line and line.count("elay") == 1
    assert tut.next().part == "their-opening" and Tutorial("done").next().part == "done"
    assert tutorial_line(Tutorial("done"), opening, "BASE") == "BASE"
    with pytest.raises(ValueError, match="legal move"):
        tutorial_move(Position.initial().open("pass").open("pass").end_by_agreement())
