"""The operator page in words (issue 24): the game line names the mode, the level and the pace
as a person says them, not the settings' values ("Game 4: ai")."""

from __future__ import annotations

from tests.api.twin_harness import serve
from tests.browser import chromium, wait_js


def test_the_game_line_is_in_words() -> None:
    with chromium() as browser, serve(browser) as twin:
        page = twin.page({"width": 390, "height": 800})
        page.goto(twin.url + "operator")
        page.wait_for_selector("#role.control")
        twin.ctl.call("new_game", mode="ai", sides="S", level=2, pace="step", variant={})
        line = wait_js(page, "document.querySelector('#game-line').textContent.startsWith('Game')"
                       " && document.querySelector('#game-line').textContent")  # fmt: skip
        assert line == (
            "Game 1: against the AI, AI strength 2 (Casual), step pace — South to play, turn 1"
        )
        twin.ctl.call("new_game", mode="two", sides="SN", level=2, pace="flow", variant={})
        line = wait_js(page, "document.querySelector('#game-line').textContent.startsWith('Game 2')"
                       " && document.querySelector('#game-line').textContent")  # fmt: skip
        assert line == "Game 2: two players, flow pace — South to play, turn 1"
        assert page.inner_text("#role") == "YOU MAY PLAY"  # the badge, in words (upper case)
