"""A whole exhibition game at the visitor level (the adaptive AI, the exhibition's default) in
Swahili and in German, through the terminal's screen: the attract loop, the waking, the
opening, every kind of guide step, the hints of the visitor's pauses, the result and the
reset. No English word and no engine term (search depth, main line, the adaptive level's
rungs) may reach the visitor (issue 31 item 2: 171 of 188 hints of one game were a rung's
search figures in English, with "(adaptive: playing as level:5 this move)")."""

from __future__ import annotations

import re

import pytest

from kiothi_board.rules import parse_pit
from tests.exhibit.visitor_rig import TIMING, Visit
from tests.i18n.english import english_in

# The engine's words (in English: every hint's reason is checked in English too, where a
# translated engine sentence would still show them).
ENGINE = re.compile(
    r"\b(?:search|depth|main line|margin|next best|solved|finalists?|adaptive|rung|steer)\b"
    r"|level:\d",
    re.I,
)
HINT_EVERY = 3  # the visitor pauses for a hint before every third move of theirs


def _check(v: Visit, lang: str, key: str, found: dict[str, list[str]]) -> None:
    screen = v.screen(lang)
    bad = english_in(screen, lang) + ENGINE.findall(screen)
    if bad:
        found[key] = [*bad, screen[-400:]]


def _play(v: Visit, lang: str, found: dict[str, list[str]]) -> int:
    """The visitor (South) follows the light; pauses for a hint now and then and plays its
    pit. The number of hints shown."""
    seen: dict[str, int] = {}
    moves = 0
    for _ in range(3000):
        state = v.board.state()
        guide = state.get("guide") or {}
        key = f"{state['stage']}/{guide.get('kind')}"
        if seen.get(key, 0) < 2:
            seen[key] = seen.get(key, 0) + 1
            _check(v, lang, key, found)
        if state["stage"] == "over":
            return len(v.hints)
        pit = v.board.controller.expected_pit()
        if state["stage"] == "set":
            v.hold(0)
        elif pit is not None and state["stage"] in ("sow", "guided_open"):
            v.tap(pit)
        elif state["stage"] == "open" and not state["ai_to_move"]:
            if not v.hints:  # the first pause of the game: a hint, in the opening
                v.advance(TIMING.hint_after + 1)
                _check(v, lang, "hint/opening", found)
            v.hold(parse_pit("S6"))  # the visitor passes (R3)
        elif state["stage"] == "turn" and not state["ai_to_move"]:
            legal = state["position"]["legal"]
            choice = parse_pit(legal[0])
            if moves % HINT_EVERY == 0:
                before = len(v.hints)
                v.advance(TIMING.hint_after + 1)  # a pause: the hint comes
                if len(v.hints) > before:
                    _check(v, lang, f"hint/{moves}", found)
                    choice = v.hints[-1].pit
            moves += 1
            v.tap(choice)
        else:
            v.advance(0.5)  # the AI thinks and plays
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("lang", ["sw", "de"])
def test_a_whole_exhibition_game_at_the_visitor_level_has_no_english(lang: str) -> None:
    v = Visit(level="adaptive", languages=(lang,))
    found: dict[str, list[str]] = {}
    try:
        assert v.phase() == "reset"
        _check(v, lang, "reset/boot", found)
        v.hold(4)
        v.advance(1)
        _check(v, lang, "attract", found)
        v.tap(parse_pit("S4"))
        _check(v, lang, "waking", found)
        v.advance(TIMING.two_player_window + 0.5)
        assert v.phase() == "playing"
        hints = _play(v, lang, found)
        v.advance(1)
        _check(v, lang, "result", found)
        v.advance(TIMING.over_seconds)
        assert v.phase() == "reset"
        _check(v, lang, "reset/after", found)
        whys = [str(h.why) for h in v.hints if h.why]
    finally:
        v.close()
    print(f"{lang}: {hints} hints, {len(whys)} with a reason, {len(found)} screens with words")
    assert hints >= 3 and len(whys) == hints, (hints, whys)
    assert [w for w in whys if ENGINE.search(w)] == [], "engine terms in the hints"
    assert found == {}, f"English or engine terms on the {lang} terminal: {found}"
