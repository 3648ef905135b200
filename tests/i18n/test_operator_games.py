"""The operator page's recent games: how each game ended in words, in every language (issue
31 item 5: the End column showed `resign`, `agreement`, `abandoned`), and a stored record's
fields shown as text, never as markup (issue 30 item 10: the table was built with innerHTML)."""

from __future__ import annotations

from typing import Any

from tests.browser import chromium, wait_js
from tests.i18n.english import english_in
from tests.i18n.serving import LANGS, operator_page, served
from tests.i18n.test_layout import _ended_games

ROWS = "[...document.querySelectorAll('#games tr')].map(tr => [...tr.cells].map(c => c.innerText))"


def _page(browser: Any, url: str, lang: str, rows: int) -> Any:
    page = operator_page(browser, url, lang, 390)
    wait_js(
        page,
        "a => document.documentElement.lang === a[0]"
        " && document.querySelectorAll('#games tr').length === a[1]",
        [lang, rows],
    )
    return page


def test_how_each_game_ended_is_said_in_words_in_every_language() -> None:
    with chromium() as browser, served() as (board, url):
        _ended_games(board)  # resigned, agreed, abandoned, and one in progress
        rows = {lang: _page(browser, url, lang, 4).evaluate(ROWS) for lang in LANGS}
    ends = {lang: [r[2] for r in table] for lang, table in rows.items()}
    assert ends["en"] == ["", "abandoned", "by agreement", "South resigned"], rows["en"]
    assert [r[1] for r in rows["en"]][:2] == ["in progress", "no winner"], rows["en"]
    for lang in ("sw", "fr", "de"):
        words = "\n".join("\t".join(r) for r in rows[lang])
        assert english_in(words, lang) == [], f"{lang}: {words}"
        assert not {"resign", "agreement", "abandoned"} & set(ends[lang]), ends[lang]


MARKUP = '<img src=x id=injected onerror="document.title=1"><b id=bold>b</b>'


def test_a_stored_record_is_shown_as_text_never_as_markup() -> None:
    with chromium() as browser, served() as (board, url):
        store = board.store
        gid = store.begin_game({"mode": "ai"})
        result = {"captured": [MARKUP, 1], "winner": "S", "end": MARKUP}
        store.finish_game(gid, {"format": "kiothi-game/1", "result": result})
        page = _page(browser, url, "en", 1)
        made = page.evaluate("document.querySelectorAll('#games img, #games b, #injected').length")
        text = page.inner_text("#games")
        assert page.errors == []
    assert made == 0, "markup from the store became elements"
    assert f"South won {MARKUP}–1" in text and MARKUP in text.split("\t")[-1], text


def test_a_charts_y_axis_says_each_count_once() -> None:
    """Issue 31 item 18: at a top of 1 the y axis read "1, 1, 0" (the middle rounded up)."""
    from kiothi_board.api.doors import exhibition_doors
    from tests.i18n.test_staff_pages import StubExhibit, _drawn, _operator

    with chromium() as browser, served(exhibition_doors(StubExhibit(), None)) as (_, url):
        page = _operator(browser, url, "en")
        _drawn(page, "en")
        axes = page.evaluate(
            "['#chart-hours', '#chart-durations'].map(id => [...document.querySelectorAll("
            "id + ' text[text-anchor=end]')].map(t => t.textContent))"
        )
    for marks in axes:
        assert len(set(marks)) == len(marks) and all(m.isdigit() for m in marks), axes
    assert sorted(axes[0], key=int) == ["0", "1"], axes  # games per hour: at most 1
