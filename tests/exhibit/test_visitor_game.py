"""Issue 31 items 1, 2 and 11 on a real board in exhibition mode (fake time, the real AI):
no phantom game from a hold on the result screen, whose line says what follows; a hint in
the first pause of a game; the visitor level's hints in plain words."""

from __future__ import annotations

import re

from kiothi_board.exhibit.stats import stored_totals
from kiothi_board.rules import parse_pit
from tests.exhibit.visitor_rig import TIMING, Visit

THEN_RESET = "Reset the board to the start, then hold any pit: it invites the next visitors."
ENGINE = re.compile(r"search|depth|main line|margin|next best|solved|adaptive|level:|rung", re.I)


def test_a_hold_on_the_result_screen_starts_no_game_and_the_line_says_the_reset() -> None:
    """Item 1: the hold started a game the attendant then ignored (the reset asked over it,
    the next wake stored it as abandoned: the curators counted a game nobody played)."""
    v = Visit(level="1")
    try:
        v.wake(parse_pit("S4"), parse_pit("N4"))  # a press on each side: two players
        v.board.call("resign", side="S")
        v.advance(0.5)
        assert v.phase() == "playing" and v.board.state()["stage"] == "over"
        line = v.exhibit()["instruction"]
        assert line is not None and line.endswith(THEN_RESET), line
        assert "new game" not in line and "Game over: South resigned" in line, line
        assert THEN_RESET in v.screen(), "the terminal shows the same line"
        v.hold(parse_pit("S6"))  # what the game's own line used to invite
        v.advance(0.5)
        assert len(v.store.list_games()) == 1, "the hold started a game"
        v.advance(TIMING.over_seconds)
        assert v.phase() == "reset" and v.board.state()["stage"] == "none"
        v.wake(parse_pit("S4"), parse_pit("N4"))  # the next visitors' own game
        v.advance(TIMING.idle_after + TIMING.countdown + 1)  # they walk away: abandoned
        assert v.phase() == "reset"
        counts = {"started": 2, "finished": 1, "abandoned": 1}
        assert stored_totals(v.store)[0] == counts, "the curators' tally of the stored games"
        assert v.director.totals == counts
    finally:
        v.close()


def test_a_hint_comes_in_the_first_pause_of_a_visitor_game_in_plain_words() -> None:
    """Items 11 and 2: at the visitor level the hint offered in the first pause (the
    opening) was the AI's own move, a pass, so none showed; later hints were a rung's search
    figures in English with "(adaptive: playing as level:5 this move)"."""
    v = Visit(level="adaptive")
    try:
        v.wake(parse_pit("S4"))  # one visitor: South against the visitor level
        assert v.board.state()["stage"] == "open" and v.hints == []
        v.advance(TIMING.hint_after + 1)  # the visitor pauses at the opening
        assert [h.offered for h in v.hints] == [True], "a hint in the first pause"
        state = v.board.state()
        assert "Hint: " in state["instruction"], state["instruction"]
        assert state["said"] and not ENGINE.search(state["said"]), state["said"]
        v.hold(parse_pit("S6"))  # South passes its opening; the AI answers
        v.advance(2)
        for _ in range(3):  # pauses in the play: each brings a plain hint
            assert v.board.state()["stage"] == "turn", v.board.state()["stage"]
            before = len(v.hints)
            v.advance(TIMING.hint_after + 1)
            assert len(v.hints) == before + 1
            why = v.hints[-1].why
            assert why and not ENGINE.search(why), why
            assert why.render("de") != str(why), "translated"  # type: ignore[attr-defined]
            v.tap(v.hints[-1].pit)  # the visitor follows the hint's pit
            v.advance(3)
            while v.board.controller.expected_pit() is not None:
                v.tap(v.board.controller.expected_pit())  # type: ignore[arg-type]
                v.advance(0.5)
            v.advance(3)
    finally:
        v.close()
