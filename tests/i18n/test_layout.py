"""The page holds in every language: in German (the longest) at 320, 390 and 1280 px no
horizontal scroll and no text cut off, through a game's stages; a screenshot of each
language at 320 px into artifacts/languages/. The operator page (its games table and
statistics too) holds in every language at every width.

The board runs on a fake clock: it moves only when a test moves it. On the real clock a
ticker animated the lit pits and sent every open page (seven at once here) a frame each
tick, which Chromium drew for as long as the test ran: about 30 CPU seconds a test, for
checks of words and widths that no animation changes."""

from __future__ import annotations

from typing import Any

import pytest

from kiothi_board.api.doors import exhibition_doors
from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from tests.api.helpers import ARTIFACTS
from tests.api.twin_harness import no_horizontal_scroll
from tests.browser import chromium, wait_js
from tests.i18n.serving import LANGS, operator_page, served
from tests.i18n.test_staff_pages import StubExhibit
from tests.i18n.test_walk import _open, _page_text

SHOTS = ARTIFACTS / "languages"
WIDTHS = (320, 390, 1280)

# Elements whose text does not fit: clipped by their own overflow, or past the viewport.
CUT_OFF_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden') continue;
    if (!el.getClientRects().length) continue;
    if (el.closest('dialog:not([open])') || el.closest('.hidden')) continue;
    if (el.classList.contains('sr-only')) continue; // for screen readers only, by design
    const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!text) continue;
    const r = el.getBoundingClientRect();
    const clips = ['hidden', 'clip'].includes(st.overflowX) || st.textOverflow === 'ellipsis';
    const what = `${el.id || el.className || el.tagName} ${el.textContent.trim().slice(0, 40)}`;
    if (clips && el.scrollWidth > el.clientWidth + 1) out.push(`clipped: ${what}`);
    if (r.right > window.innerWidth + 1 || r.left < -1) out.push(`outside: ${what}`);
  }
  return out;
}"""


def _stages(board: Board) -> list[tuple[str, Any]]:
    """A game's stages, each a step that brings the board there."""

    def opening() -> None:
        board.call("new_game", mode="ai", sides="S", level=1, pace="step", variant={})

    def lifted() -> None:
        board.press(6)  # S7 lifted: its seeds to place

    def over() -> None:
        board.call("resign", side="S")

    return [("blank", lambda: None), ("opening", opening), ("placing", lifted), ("over", over)]


def _check(page: Any, name: str) -> list[str]:
    width, inner = no_horizontal_scroll(page)
    bad = [f"{name}: scrollWidth {width} > {inner}"] if width > inner else []
    return bad + [f"{name}: {x}" for x in page.evaluate(CUT_OFF_JS)]


def test_german_fits_at_320_390_1280_and_each_language_is_shot_at_320() -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium() as browser, served(clock=FakeClock()) as (board, url):
        german = {w: _open(browser, url, "de", width=w) for w in WIDTHS}
        narrow = {lang: _open(browser, url, lang, width=320) for lang in LANGS}
        problems: list[str] = []
        for stage, step in _stages(board):
            step()
            for w, page in german.items():
                _page_text(page, board, "de")
                problems += _check(page, f"de {w}px {stage}")
            for lang, page in narrow.items():
                _page_text(page, board, lang)
                page.screenshot(path=str(SHOTS / f"{stage}-{lang}-320.png"), full_page=True)
        for w, page in german.items():  # How to play, read in German
            page.click("#btn-howto")
            wait_js(page, "document.querySelectorAll('#howto-body p').length > 3")
            problems += _check(page, f"de {w}px how-to-play")
            if w == 320:
                page.screenshot(path=str(SHOTS / "how-to-play-de-320.png"))
        assert problems == []


@pytest.mark.parametrize("width", WIDTHS)
def test_the_check_sees_a_cut_off_text(width: int) -> None:
    """The cut-off check is not blind: a German word forced into a narrow clipping box."""
    with chromium() as browser, served(clock=FakeClock()) as (_, url):
        page = _open(browser, url, "de", width=width)
        page.evaluate(
            "const el = document.querySelector('#turn'); el.style.width = '30px';"
            " el.style.overflow = 'hidden'; el.style.whiteSpace = 'nowrap';"
        )
        assert any("turn" in x for x in page.evaluate(CUT_OFF_JS))


# The operator page: the form, the games table with every ending, the statistics (a stub
# exhibit's two days of figures) in every language at every width (issue 31 item 4).
OPERATOR_READY = (
    "l => document.documentElement.lang === l && document.body.dataset.statsLang === l"
    " && document.querySelector('#stats-results').children.length === 6"
    " && document.querySelectorAll('#games tr').length === 4"
)


def _ended_games(board: Board) -> None:
    """Games ended every way the players can (R13), and one in progress."""
    for end in ("resign", "end", "abandon"):
        board.call("new_game", mode="ai", sides="S", level=2, pace="step", variant={})
        board.call(end, side="S") if end == "resign" else board.call(end)
    board.call("new_game", mode="ai", sides="S", level=2, pace="step", variant={})


def _operator_page(browser: Any, url: str, lang: str, width: int) -> Any:
    page = operator_page(browser, url, lang, width)
    wait_js(page, OPERATOR_READY, lang)
    return page


def test_the_operator_page_fits_in_every_language_at_320_390_1280() -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    doors = exhibition_doors(StubExhibit(), None)
    with chromium() as browser, served(doors, clock=FakeClock()) as (board, url):
        _ended_games(board)
        problems: list[str] = []
        for lang in LANGS:
            for w in WIDTHS:
                page = _operator_page(browser, url, lang, w)
                problems += _check(page, f"operator {lang} {w}px")
                if w in (320, 1280):
                    page.screenshot(path=str(SHOTS / f"operator-{lang}-{w}.png"), full_page=True)
                assert page.errors == []
                page.close()
        assert problems == []
