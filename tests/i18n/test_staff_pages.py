"""The operator page's statistics panel in each language (Chromium under the page's CSP): the
summary, the charts' captions and tooltips, the results table and the exhibition's line show
no English word outside the allowed set; and a page that never chose a language redraws the
lines its script wrote when the board's language changes mid-visit (S9+S10)."""

from __future__ import annotations

from typing import Any

from kiothi_board.api.doors import exhibition_doors
from kiothi_board.exhibit.stats import DayStats, GameRow, totals
from tests.api.twin_harness import PIN
from tests.browser import WAIT_MS, chromium, wait_js
from tests.i18n.english import english_in
from tests.i18n.serving import LANGS, served

OTHERS = ("sw", "fr", "de")
DAYS = ("2026-05-28", "2026-05-29")
# The statistics panel's words: its text, the charts' tooltips (SVG <title>) and labels.
PANEL_TEXT = """() => {
  const panel = document.querySelector('#statistics');
  const parts = [panel.innerText];
  for (const el of panel.querySelectorAll('title')) parts.push(el.textContent);
  for (const el of panel.querySelectorAll('[aria-label],[title]')) {
    parts.push(el.getAttribute('aria-label') || '', el.getAttribute('title') || '');
  }
  return parts.join('\\n');
}"""
# The lines operator.js writes itself (the HTML's own words are applyI18n's).
SCRIPT_LINES = (
    "['#role', '#access-note', '#access-hint', '#game-line', '#games', '#variants',"
    " '#level', '#level-about', '#stats-summary', '#exhibit-line', '#game-buttons']"
    ".map(s => document.querySelector(s).innerText).join('\\n')"
)


def _row(i: int, mode: str, level: str, status: str, winner: str | None, humans: str) -> GameRow:
    start = 1_780_000_000.0 + 3600 * i
    done = None if status == "current" else start + 200 + 170 * i
    end = "abandoned" if status == "abandoned" else None
    return GameRow(i, status, mode, level, humans, start, done, winner, end)


class StubExhibit:
    """Two days of figures (every outcome, mode and counter), the exhibit in its countdown."""

    def __init__(self) -> None:
        first, second = DayStats(DAYS[0]), DayStats(DAYS[1])
        games = [
            (_row(1, "ai", "2", "finished", "S", "S"), 10),
            (_row(2, "ai", "adaptive", "finished", "N", "S"), 11),
            (_row(3, "two", "?", "finished", "N", "SN"), 14),
            (_row(4, "ai", "2", "abandoned", None, "S"), 15),
            (_row(5, "demo", "5", "finished", None, ""), 16),
            (_row(6, "ai", "2", "current", None, "S"), 17),
        ]
        for n, (row, hour) in enumerate(games):
            (first if n < 3 else second).add_game(row, hour)
        counts = {"wrong": 7, "hints": 1, "errors": 2, "restarts": 1, "input_faults": 1}
        first.counts.update(counts | {"press.S3": 40, "press.N7": 12})
        second.counts.update({"press.S1": 1})
        self.per_day = [first, second]

    def stats(self, first: str | None = None, last: str | None = None) -> dict[str, Any]:
        return {
            "timezone": "Africa/Nairobi",
            "days": [d.to_json() for d in self.per_day],
            "total": totals(self.per_day).to_json(),
        }

    def stats_csv(self, first: str | None = None, last: str | None = None) -> str:
        return "day\n"

    def report(self) -> dict[str, Any]:
        return {}

    def health(self) -> dict[str, Any]:
        return {}

    def store_health(self) -> dict[str, Any]:
        return {"status": "ok", "problems": []}

    def status(self) -> dict[str, Any]:
        return {
            "enabled": True, "phase": "countdown", "countdown": 12.0, "open": True,
            "quiet": True, "brightness": 0.5, "day": DAYS[1],
        }  # fmt: skip

    def set_enabled(self, on: bool) -> dict[str, Any]:
        return self.status()


def _operator(browser: Any, url: str, lang: str | None) -> Any:
    """The operator page as staff (the PIN's cookie), in `lang` (None: the board's)."""
    page = browser.new_page(viewport={"width": 800, "height": 1400})
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    if lang is not None:
        page.add_init_script(f"localStorage.setItem('kiothi-lang', '{lang}')")
    assert page.request.post(url + "session", data={"pin": PIN}).status == 200
    page.goto(url + "operator")
    return page


def _drawn(page: Any, lang: str) -> None:
    wait_js(
        page,
        "l => document.documentElement.lang === l && document.body.dataset.statsLang === l"
        " && document.querySelector('#stats-results').children.length === 6"
        " && document.querySelector('#level option') !== null",
        lang,
    )


def test_the_statistics_panel_in_each_language_has_no_english() -> None:
    with chromium() as browser, served(exhibition_doors(StubExhibit(), None)) as (board, url):
        board.call("new_game", mode="ai", sides="S", level=2, pace="step", variant={})
        pages = {lang: _operator(browser, url, lang) for lang in LANGS}
        found: dict[str, list[str]] = {}
        texts: dict[str, str] = {}
        for lang, page in pages.items():
            _drawn(page, lang)
            texts[lang] = str(page.evaluate(PANEL_TEXT))
            if lang != "en":
                bad = english_in(texts[lang], lang)
                if bad:
                    found[lang] = bad
        assert found == {}, f"English in the statistics panel: {found}\n{texts}"
        english = texts["en"]  # the English panel reads as English (the check can fail)
        assert english_in(english, "de"), english
        assert "2026-05-28 to 2026-05-29 (Africa/Nairobi): 6 games started, 4 finished" in english
        assert "7 wrong presses, 1 hint, 2 errors, 1 restart, 1 input fault." in english
        assert "Exhibition: counting down (12\u00a0s left), open, quiet hours" in english
        assert "S3: 40 presses" in english and "N1: 0 presses" in english
        assert "michezo iliyoanza: 6" in texts["sw"] and "mbonyezo 7 usio" not in texts["sw"]
        assert "mibonyezo 7 isiyo sahihi, kidokezo 1" in texts["sw"]  # plural and singular
        assert "1 conseil, 2 erreurs" in texts["fr"]
        assert "S3: 40-mal gedrückt" in texts["de"]
        for page in pages.values():
            assert page.errors == []


def test_the_operator_page_redraws_its_lines_when_the_board_changes_language() -> None:
    with chromium() as browser, served(exhibition_doors(StubExhibit(), None)) as (board, url):
        board.call("new_game", mode="ai", sides="S", level=2, pace="step", variant={})
        page = _operator(browser, url, None)  # never chose: follows the board
        _drawn(page, "en")
        assert english_in(str(page.evaluate(SCRIPT_LINES)), "sw"), "English first"
        board.call("language")  # S9+S10 held: the board now speaks Swahili
        _drawn(page, "sw")
        want = f"Mchezo {board.state()['game_id']}: dhidi ya kompyuta"
        wait_js(page, "w => document.querySelector('#game-line').innerText.startsWith(w)", want)
        lines = str(page.evaluate(SCRIPT_LINES))
        assert english_in(lines, "sw") == [], lines
        assert page.errors == []
