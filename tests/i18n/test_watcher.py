"""A watcher's twin page (read-only) in German: a line that speaks to the player ("drücke
eine deiner Mulden …") becomes the turn and "you are watching" in German, as it does in
English; a line in the third person is shown as it is. The board says which is which
(`to_player`); the page once decided with an English regex, so in German a watcher read the
player's line as it was."""

from __future__ import annotations

from typing import Any

from kiothi_board.i18n import translation
from tests.browser import WAIT_MS, PageWaitTimeout, chromium, wait_js
from tests.i18n.serving import served

WATCH_CUE = (
    "You are watching this board: the pits, the line above and the moves follow the game as "
    "it is played."
)


def _watcher(browser: Any, url: str, lang: str) -> Any:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_default_timeout(WAIT_MS)
    page.add_init_script(f"localStorage.setItem('kiothi-lang', '{lang}')")
    page.goto(url)  # no access code: a spectator
    wait_js(
        page, f"document.documentElement.lang === '{lang}' && !!document.querySelector('#conn.up')"
    )
    return page


def _cue_after_turn(page: Any, cue: str) -> str:
    return str(
        wait_js(
            page,
            "c => { const t = document.querySelector('#turn').textContent;"
            " const s = document.querySelector('#cue').textContent;"
            " return s === `${t}. ${c}` && s; }",
            cue,
        )
    )


def test_a_watcher_reads_the_state_not_the_players_line_in_german() -> None:
    with chromium() as browser, served() as (board, url):
        pages = {lang: _watcher(browser, url, lang) for lang in ("en", "de")}
        board.call(
            "new_game", mode="ai", sides="S", level=1, pace="step", variant={}
        )  # South (the visitor) opens: "press …"
        assert board.state()["to_player"] is True
        german = translation("de").gettext(WATCH_CUE)
        assert german != WATCH_CUE
        for lang, cue in (("en", WATCH_CUE), ("de", german)):
            shown = _cue_after_turn(pages[lang], cue)
            said = board.controller.instruction().render(lang)
            assert said not in shown, (lang, shown)
        board.press(0, hold=True)  # South passes; North (the AI) opens: third person
        wait_js(pages["de"], "() => document.querySelector('#turn').textContent.includes('KI')")
        for _ in range(50):
            state = board.state()
            if not state["to_player"]:
                line = board.controller.instruction().render("de")
                try:
                    wait_js(pages["de"], "l => document.querySelector('#cue').textContent === l",
                            line, timeout=2_000)  # fmt: skip
                    break
                except PageWaitTimeout:  # the AI moved meanwhile: the next line
                    continue
            pit = board.controller.expected_pit()
            if pit is not None:
                board.press(pit)
        else:
            raise AssertionError("no third-person line came to compare")
