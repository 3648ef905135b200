"""A whole game in each language, through the terminal simulator's screen and the page (a
real Chromium under the page's CSP): no English word outside the allowed set anywhere on
the screen (text, titles, labels, the How-to-play panel), at every stage of the game."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from kiothi_board.controller import random_opponents
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.sim import render_board
from kiothi_board.store.memory import MemoryStore
from tests.api.twin_harness import PIN, no_horizontal_scroll
from tests.browser import WAIT_MS, PageWaitTimeout, chromium, wait_js
from tests.i18n.english import english_in
from tests.i18n.serving import LANGS, served

OTHERS = ("sw", "fr", "de")
CUE_IS = "t => document.querySelector('#cue').textContent === t"
BUTTON_SAYS = "document.querySelector('#btn-lang').textContent === '{}'"
PAGE_TEXT = """() => {
  const parts = [document.body.innerText, document.title];
  for (const el of document.querySelectorAll('[aria-label],[title],[alt]')) {
    for (const a of ['aria-label', 'title', 'alt']) {
      if (el.hasAttribute(a)) parts.push(el.getAttribute(a));
    }
  }
  return parts.join('\\n');
}"""


def _play(board: Board, seen: Any, clock: FakeClock, limit: int = 4000) -> dict[str, Any]:
    """Press where the guide points (the AI plays North) until the game is over; `seen()`
    at each new stage or guide kind (the first few times each). The board is on the fake
    `clock`, ticked here while the AI is to move: no real waits."""
    counts: dict[str, int] = {}
    for _ in range(limit):
        state = board.state()
        guide = state.get("guide") or {}
        key = f"{state['stage']}/{guide.get('kind')}"
        if counts.get(key, 0) < 2:
            counts[key] = counts.get(key, 0) + 1
            seen(key)
        if state["stage"] == "over":
            return counts
        if state["stage"] == "set":
            board.press(0, hold=True)
            continue
        pit = board.controller.expected_pit()
        if pit is not None:
            board.press(pit)
        elif state["stage"] == "open" and not state["ai_to_move"]:
            board.press(0, hold=True)  # South passes its opening
        elif state["stage"] == "turn" and not state["ai_to_move"]:
            legal = board.controller.presenter.view().legal  # type: ignore[attr-defined]
            board.press(legal[0])
        else:
            clock.advance(0.2)
            board.tick()
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("lang", OTHERS)
def test_a_whole_game_on_the_terminal_screen_has_no_english(lang: str) -> None:
    sink = FakePixelSink(leds_per_ring=16, keep=5)
    clock = FakeClock()
    board = Board(
        sink=sink, clock=clock, store=MemoryStore(),
        opponent_factory=random_opponents(random.Random(3)), over_seconds=-1, resume=False,
        languages=("en", lang),
    )  # fmt: skip
    board.call("language")  # S9+S10 held: the board now speaks `lang`
    found: dict[str, list[str]] = {}
    screens: dict[str, str] = {}

    def seen(key: str) -> None:
        screen = render_board(board.loop.shown, board.state(), lang=lang)
        screens.setdefault(key, screen)
        bad = english_in(screen, lang)
        if bad:
            found[key] = bad

    board.call("new_game", mode="ai", sides="S", level=1, pace="step", variant={})
    stages = _play(board, seen, clock)
    board.close()
    assert "over/None" in stages and "sow/drop" in stages
    assert found == {}, f"English on the {lang} terminal: {found}"
    # The English reader of the same screens does see English (the check can fail).
    assert english_in(render_board(board.loop.shown, board.state(), lang="en"), lang)


def _open(browser: Any, url: str, lang: str, width: int = 390) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 844})
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.add_init_script(f"localStorage.setItem('kiothi-lang', '{lang}')")
    assert page.request.post(url + "session", data={"pin": PIN}).status == 200
    page.goto(url)
    wait_js(
        page, f"document.documentElement.lang === '{lang}' && document.querySelector('#conn.up')"
    )
    return page


def _page_text(page: Any, board: Board, lang: str) -> str:
    """The page's words once it shows the board's line of the moment (in `lang`)."""
    for _ in range(10):  # the AI may move meanwhile: compare with the line of the moment
        want = board.controller.instruction().render(lang)
        try:
            wait_js(
                page, "t => document.querySelector('#cue').textContent === t", want, timeout=2_000
            )
            return str(page.evaluate(PAGE_TEXT))
        except PageWaitTimeout:
            continue
    shown = page.text_content("#cue")
    raise AssertionError(f"the {lang} page shows {shown!r}, the board says {want!r}")


def test_a_whole_game_on_the_page_in_each_language_has_no_english() -> None:
    clock = FakeClock()  # the board moves only when the walk moves it: no real waits
    with chromium() as browser, served(clock=clock) as (board, url):
        pages = {lang: _open(browser, url, lang) for lang in LANGS}
        found: dict[str, dict[str, list[str]]] = {}

        def seen(key: str) -> None:
            for lang in OTHERS:
                bad = english_in(_page_text(pages[lang], board, lang), lang)
                if bad:
                    found.setdefault(lang, {})[key] = bad

        seen("blank")
        board.call("new_game", mode="ai", sides="S", level=1, pace="step", variant={})
        stages = _play(board, seen, clock)
        assert "over/None" in stages
        for lang in OTHERS:  # the How-to-play panel, read to the end
            page = pages[lang]
            page.click("#btn-howto")
            wait_js(page, "document.querySelectorAll('#howto-body p').length > 3")
            bad = english_in(str(page.evaluate(PAGE_TEXT)), lang)
            if bad:
                found.setdefault(lang, {})["how-to-play"] = bad
            page.evaluate("document.querySelector('#howto').close()")
        assert found == {}, f"English on the page: {found}"
        english = str(pages["en"].evaluate(PAGE_TEXT))
        assert english_in(english, "de"), "the English page must read as English (the check works)"
        for page in pages.values():
            assert page.errors == []


def test_the_language_button_cycles_and_the_page_follows_the_board() -> None:
    with chromium() as browser, served() as (board, url):
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(WAIT_MS)
        page.goto(url)
        wait_js(
            page,
            "!!document.querySelector('#conn.up') && " + BUTTON_SAYS.format("English"),
        )
        board.call("language")  # the board's own button: the page, never chosen, follows
        wait_js(page, "document.documentElement.lang === 'sw'")
        assert page.text_content("#btn-lang") == "Kiswahili"
        page.click("#btn-lang")  # the visitor chooses: French, kept on this device
        wait_js(
            page,
            "document.documentElement.lang === 'fr' && " + BUTTON_SAYS.format("Français"),
        )
        assert page.evaluate("localStorage.getItem('kiothi-lang')") == "fr"
        board.call("language")  # the board moves on; the visitor's choice stays
        page.wait_for_timeout(300)
        assert page.evaluate("document.documentElement.lang") == "fr"
        assert no_horizontal_scroll(page)[0] <= 390
