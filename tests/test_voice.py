"""The board speaks (issue 35): a whole tutorial game and an exhibition visit in each of the
four languages, through the real loop, the announcer, the speaker's worker and the recording
voice: the expected sentences in order, never two at once, no English word in another
language; a press cuts speech short; quiet hours are silent."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.board.speech import Announcer, Voice, result_words
from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.controller.notices import Notice
from kiothi_board.daemon import Daemon
from kiothi_board.daemon_cli import screen
from kiothi_board.exhibit.director import Director
from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.exhibit.words import ATTRACT, WAKING
from kiothi_board.hardware.speaker import Speaker, Utterance
from kiothi_board.hardware.voice import RecordingVoice, Said, SimVoice
from kiothi_board.i18n import tr
from kiothi_board.rules import Outcome, Side, parse_pit
from kiothi_board.sim import SimKeys
from tests.api.helpers import validator
from tests.conftest import poll_until
from tests.controller.conftest import make_rig
from tests.exhibit.visitor_rig import TIMING, Visit
from tests.i18n.english import english_in

LANGS = ("en", "sw", "fr", "de")
ALL = ("guide", "events", "accessibility")


class PatientVoice(Voice):
    """Each step waits until its speech is said: a test of what is said, not of who is
    faster (a newer line replaces an unsaid one; on a board, seconds pass between)."""

    def hear(self, notices: Sequence[Notice], director: Director | None) -> None:
        super().hear(notices, director)
        if self.speaker is not None:
            self.speaker.idle()


def _voice(
    rec: RecordingVoice,
    langs: tuple[str, ...],
    what: tuple[str, ...] = ALL,
    *,
    patient: bool = True,
) -> Voice:
    return (PatientVoice if patient else Voice)(Announcer(what, langs), Speaker(rec))


def _no_english(said: list[Said]) -> list[tuple[str, str, list[str]]]:
    return [(s.lang, s.text, english_in(s.text, s.lang)) for s in said
            if s.lang != "en" and english_in(s.text, s.lang)]  # fmt: skip


def _in_order(said: list[str], expected: list[str]) -> bool:
    """Whether `expected` are among `said`, in that order."""
    it: Iterator[str] = iter(said)
    return all(any(e == s for s in it) for e in expected)


@pytest.mark.parametrize("lang", LANGS)
def test_a_whole_tutorial_game_is_said_in_order_in_its_language(lang: str) -> None:
    rec = RecordingVoice()
    voice = _voice(rec, (lang,))
    rig = make_rig(voice=voice, languages=(lang,))
    assert voice.speaker is not None
    speaker = voice.speaker
    try:
        rig.ctl.call("tutorial")
        presses = rig.follow(random.Random(1))
        speaker.idle()
        game = rig.store.list_games(1, 0)[0]
    finally:
        rig.ctl.close()
    said = rec.texts()
    assert presses > 20 and len(said) > presses // 2
    assert rec.most_at_once == 1, "two sentences at once"
    assert {s.lang for s in rec.said} == {lang}
    assert _no_english(rec.said) == []
    result = game["result"]
    outcome = Outcome(
        Side.parse(result["winner"]) if result.get("winner") else None,
        tuple(result["captured"]),  # type: ignore[arg-type]
        result["end"],
    )
    board_plays = next(t for t in said if t.startswith(_board_plays(lang)))
    expected = [said[0], board_plays, result_words(outcome).render(lang)]
    lesson = tr("Tutorial {number}/{total} · {lesson} {line}", number=1, total=4, lesson="",
                line="")  # fmt: skip
    assert said[0].startswith(lesson.render(lang).split("·")[0])
    assert said[-1] == expected[-1], said[-5:]
    assert _in_order(said, expected)
    score = tr("Score: South {south}, North {north}.", south="", north="").render(lang)
    assert any(t.startswith(score.split(",")[0]) for t in said), "captures and the score"
    press_lines = [t for t in said if t.startswith("S6, ") or t.startswith("N10, ")]
    assert press_lines, "accessibility: each press with its pit and count"
    print(f"{lang}: {presses} presses, {len(said)} sentences; e.g. {press_lines[0]!r}")


def _board_plays(lang: str) -> str:
    return tr("The board plays {pit}.", pit="S1").render(lang).split("S1")[0]


@pytest.mark.parametrize("lang", LANGS)
def test_an_exhibition_visit_is_said_in_order_in_each_language(lang: str) -> None:
    """The reset, the invitation in each of the venue's languages in turn, the waking, a
    few presses, the visitor walks away: the countdown, the game over, the reset again."""
    langs = (lang, *(x for x in LANGS if x != lang))
    rec = RecordingVoice()
    voice = _voice(rec, langs, ("guide", "events"))
    v = Visit(level="1", languages=langs, voice=voice)
    assert voice.speaker is not None
    speaker = voice.speaker
    try:
        v.wake(parse_pit("S4"))
        for _ in range(3):
            pit = v.board.controller.expected_pit()
            if pit is not None:
                v.tap(pit)
        v.advance(TIMING.idle_after + 1)
        assert v.phase() == "countdown"
        v.advance(TIMING.countdown + 1)
        v.advance(TIMING.over_seconds + 1)
        assert v.phase() == "reset"
        speaker.idle()
    finally:
        v.close()
    said = rec.said
    texts = [s.text for s in said]
    assert rec.most_at_once == 1
    assert _no_english(said) == []
    invitation = [ATTRACT.render(x) for x in langs]
    at = texts.index(invitation[0])
    assert texts[at : at + 4] == invitation and [s.lang for s in said[at : at + 4]] == list(langs)
    countdown = tr("Still playing? Press any pit, or this game ends soon.").render(lang)
    expected = [WAKING.render(lang), countdown, result_words(None).render(lang)]
    assert _in_order(texts[at + 4 :], expected), texts
    assert texts.count(countdown) == 1, "said once"
    assert {s.lang for s in said if s.text not in invitation} == {lang}


def test_a_press_cuts_what_is_being_said() -> None:
    rec = RecordingVoice(hold=True)
    voice = _voice(rec, ("en",), patient=False)
    rig = make_rig(voice=voice)
    try:
        rig.ctl.call("new_game", mode="two")
        poll_until(rec.started.is_set, "the first sentence begins")
        rig.pit_input.tap(parse_pit("S6"))
        cut = poll_until(lambda: rec.said and rec.said[0], "the first sentence ends")
        assert cut.cut, "the press cut it short"
    finally:
        rec.release()
        rig.ctl.close()
    assert rec.most_at_once == 1


def test_a_newer_line_replaces_an_older_unsaid_one() -> None:
    rec = RecordingVoice(hold=True)
    with Speaker(rec) as speaker:
        speaker.say(Utterance.one("en", "first"))
        poll_until(rec.started.is_set, "the first sentence begins")
        speaker.say(Utterance.one("en", "second"))
        speaker.say(Utterance.one("en", "third"))
        rec.release()
        rec.started.clear()
        poll_until(rec.started.is_set, "the next sentence begins")
        rec.release()
        assert speaker.idle()
    assert rec.texts() == ["first", "third"]


def test_quiet_hours_are_silent() -> None:
    rec = RecordingVoice()
    voice = _voice(rec, ("en", "sw"))
    v = Visit(level="1", languages=("en", "sw"), voice=voice,
              schedule=Schedule(timezone="UTC", quiet=["00:00-23:59"]))  # fmt: skip
    try:
        assert v.exhibit()["quiet"]
        v.wake(parse_pit("S4"))
        v.tap(parse_pit("S6"))
        v.advance(TIMING.idle_after + 1)
        assert voice.speaker is not None and voice.speaker.idle()
    finally:
        v.close()
    assert rec.said == []


def test_the_voice_commands_repeat_read_the_board_and_switch_it_off() -> None:
    rec = RecordingVoice()
    voice = _voice(rec, ("fr",))
    rig = make_rig(voice=voice, languages=("fr",))
    try:
        rig.ctl.call("new_game", mode="two")
        last = rec.texts()[-1]
        rig.ctl.call("voice.repeat")
        assert rec.texts()[-1] == last
        rig.ctl.call("voice.board")
        row, other = rec.texts()[-2:]
        assert row.startswith("Votre rangée : S1 ") and other.startswith("L'autre rangée : N1")
        assert "S6 six" in row and _no_english(rec.said) == []
        assert rig.ctl.call("voice.set", on=False) == {"on": False}
        before = len(rec.said)
        rig.pit_input.tap(parse_pit("S6"))
        assert len(rec.said) == before, "off: silent"
        rig.ctl.call("voice.set", on=True)
        rig.ctl.call("voice.repeat")
        assert len(rec.said) > before, "on again: the last line, said again"
    finally:
        rig.ctl.close()


def test_staff_switch_the_voice_over_the_api_and_a_spectator_may_not(tmp_path: Path) -> None:
    """The daemon with `[voice]` on (the sim voice): `voice.set` is a staff command of the
    table on every door; off, a press says nothing; its reply is the schema's."""
    cfg = validate(
        {
            "game": {"mode": "two", "variant": "V2"},
            "api": {"tcp_port": 0, "web_port": -1},
            "voice": {"enabled": True, "output": "sim", "what": list(ALL)},
        }
    )
    lines: list[str] = []
    with Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=FakeClock(100.0)) as d:
        assert d.api is not None
        speaker = d.board.loop.voice.speaker
        assert speaker is not None
        speaker.output = SimVoice(lines.append)  # type: ignore[assignment]
        door = d.api.dispatcher
        staff = door.open_session("direct", "staff", trusted=True, wake=lambda: None)
        watcher = door.open_session("tcp", "198.51.100.7", trusted=False, wake=lambda: None)

        def ask(session: Any, cmd: str, **args: Any) -> Any:
            line = json.dumps({"id": 1, "cmd": cmd, "args": args})
            return door.handle_line(session, line)

        refused = ask(watcher, "voice.set", on=False)
        assert not refused["ok"], refused
        reply = ask(staff, "voice.set", on=False, volume=0.8)
        assert reply["ok"] and reply["result"] == {"voice": {"on": False, "volume": 0.8}}
        validator("reply.voice.set").validate(reply)
        d.board.press("S6")
        assert speaker.idle() and lines == []
        assert ask(staff, "voice.set", on=True)["ok"]
        d.board.press("S7")
        assert speaker.idle() and lines and lines[0].startswith("\U0001f50a S7, ")


def test_the_terminal_simulator_shows_what_the_sim_voice_says(tmp_path: Path) -> None:
    """`run --sim` with `[voice]` on: the `🔊` line under the board, in the board's words."""
    cfg = validate(
        {
            "board": {"language": "sw"},
            "game": {"mode": "two", "variant": "V2"},
            "api": {"tcp_port": -1, "web_port": -1},
            "voice": {"enabled": True, "what": ["guide"]},
        }
    )
    with Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=FakeClock(100.0)) as d:
        assert isinstance(d.voice_output, SimVoice)
        d.voice_output.write = lambda _line: None  # as the terminal view does
        speaker = d.board.loop.voice.speaker
        assert speaker is not None
        d.board.press("S6")
        assert speaker.idle()
        text = d.board.loop.ask(lambda: screen(d, SimKeys(), None))
    last = text.rstrip().splitlines()[-1]
    assert last.startswith("\U0001f50a ") and english_in(last, "sw") == [], last
