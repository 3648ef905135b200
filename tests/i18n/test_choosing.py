"""Choosing the language: per API session (`hello` `lang`, `lang`), the board's own (the
S9+S10 chord cycles the venue's languages, with a picture on the rings), and the config."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kiothi_board.api import Dispatcher
from kiothi_board.config import validate
from kiothi_board.errors import ConfigError
from kiothi_board.guide import Cue
from tests.api.conftest import make_board
from tests.api.test_dispatcher import Peer


def _guide_texts(peer: Peer) -> list[str]:
    return [m["text"] for m in peer.messages() if m.get("event") == "guide"]


def test_each_session_reads_the_guide_in_its_own_language() -> None:
    board = make_board(languages=("en", "sw", "de"))
    disp = Dispatcher(board, languages=("en", "sw", "de"))
    german, swahili, plain = Peer(disp), Peer(disp), Peer(disp)
    assert german.req("hello", lang="de")["result"]["lang"] == "de"
    assert swahili.req("hello", lang="sw")["result"]["lang"] == "sw"
    hello = plain.req("hello")["result"]
    assert hello["lang"] == "en" and [x["code"] for x in hello["languages"]] == ["en", "sw", "de"]
    for p in (german, swahili, plain):
        p.req("subscribe", topics=["guide", "wrong", "language"])
        p.messages()
    assert german.req("new_game", mode="two")["ok"]
    assert _guide_texts(german)[-1].startswith("Eröffnung von Süd: drücke eine deiner Mulden")
    assert _guide_texts(swahili)[-1].startswith("Ufunguzi wa Kusini: bonyeza moja ya mashimo")
    assert _guide_texts(plain)[-1].startswith("South's opening: press one of your pits")
    state = german.req("state")["result"]["state"]
    assert state["instruction"].startswith("Eröffnung von Süd")
    # A press on North's pit: the wrong-press words in each reader's language.
    german.req("press", pit="N3")
    words = [m["message"] for m in german.messages() if m.get("event") == "wrong"]
    assert words == ["N3 ist eine Mulde von Nord: drücke eine deiner eigenen (Süd)."]
    # `lang` switches a session (the page's button); {} follows the board again.
    assert plain.req("lang", lang="sw")["result"]["lang"] == "sw"
    assert plain.req("state")["result"]["state"]["instruction"].startswith("Ufunguzi wa Kusini")
    assert plain.req("lang")["result"]["lang"] == "en"
    undo = german.req("undo")  # nothing to undo yet: the game's words, in German
    assert (
        undo["error"]["code"] == "illegal" and undo["error"]["message"] == "nichts zurückzunehmen"
    )
    bad = plain.req("lang", lang="xx")
    assert bad["error"]["code"] == "bad_args" and "lang" in bad["error"]["message"]
    board.close()


def test_the_chord_cycles_the_venue_languages_with_a_picture_on_the_rings() -> None:
    board = make_board(languages=("en", "sw", "fr"))
    disp = Dispatcher(board, languages=("en", "sw", "fr"))
    follower = Peer(disp)
    follower.req("subscribe", topics=["guide", "language"])
    board.call("new_game", mode="two")
    follower.messages()
    assert board.call("language") == "sw"  # what S9+S10 held fires
    events = follower.messages()
    assert {k: v for k, v in events[0].items() if k != "seq"} == {
        "event": "language",
        "lang": "sw",
        "index": 1,
    }
    assert _guide_texts_of(events)[-1].startswith("Ufunguzi wa Kusini")  # follows the board
    cells = board.controller.presenter._overlays
    assert sorted(o.pit for o in cells if o.cue == Cue.WIN) == [0, 1, 10, 11]  # two of each row
    assert board.call("language") == "fr" and board.call("language") == "en"  # round again
    assert board.call("language", lang="default") == "en"
    board.close()


def _guide_texts_of(events: list[dict[str, Any]]) -> list[str]:
    return [m["text"] for m in events if m.get("event") == "guide"]


def test_the_chord_is_s9_s10_held() -> None:
    from kiothi_board.controller import CHORDS

    assert CHORDS[frozenset((8, 9))].name == "language"
    assert CHORDS[frozenset((18, 19))].name == "language"


@pytest.mark.parametrize(
    ("board", "words"),
    [
        ({"language": "xx"}, "board.language = 'xx': has no catalog"),
        ({"languages": ["en", "qq"]}, "board.languages = ['en', 'qq']: 'qq' has no catalog"),
        (
            {"languages": ["sw", "de"]},
            "board.languages = ['sw', 'de']: must include board.language",
        ),
        ({"languages": ["de", "de"]}, "lists a language twice"),
    ],
)
def test_a_bad_language_in_the_config_names_its_key(board: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError, match=words.replace("[", r"\[").replace("]", r"\]")):
        validate({"board": board})


def test_the_config_gives_the_enabled_languages_default_first() -> None:
    cfg = validate({"board": {"language": "sw", "languages": ["en", "sw", "de"]}})
    assert cfg.board.enabled_languages == ("sw", "en", "de")
    assert validate({}).board.enabled_languages == ("en",)
    assert json.dumps(cfg.board.enabled_languages)
