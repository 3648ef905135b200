"""A new command's button is one `Button` in its `CommandSpec`: the test adds a command with
one, and the operator page and the twin show it (in the page's language), run it for
whoever may, and leave it to the board to refuse whoever may not — with no change to the
pages' scripts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kiothi_board.controller import TABLE, CommandSpec
from kiothi_board.controller.kinds import Integer
from kiothi_board.controller.spec import Arg, Button
from kiothi_board.i18n import tr
from tests.browser import WAIT_MS, chromium, wait_js
from tests.conftest import poll_until
from tests.i18n.serving import operator_page, served

calls: list[object] = []

# Catalog entries that exist, so the page's German is the catalogs' (the test adds no words).
WHIRL = CommandSpec(
    "whirl",
    tr("ask for a hint"),
    "staff",
    (Arg("turns", Integer(1, 3), True),),
    handler=lambda ctl, turns: calls.append((ctl.session.game_id, turns)),
    button=Button(
        tr("Tutorial"), ("operator", "twin"), 35, done=tr("Undone"), key="k", args={"turns": 2}
    ),
)
"""The one entry: `whirl` {"turns": n} notes the game's id and n; a button on both pages
that sends 2, key k on the twin."""

BUTTON = "document.querySelector('[data-cmd=whirl]')"
TOAST = "document.querySelector('#toast.show')?.textContent"


@pytest.fixture
def board_url() -> Iterator[tuple[int, str]]:
    TABLE.add(WHIRL)
    calls.clear()
    try:
        with served() as (board, url):
            yield board.call("new_game", mode="two"), url
    finally:
        TABLE.remove("whirl")


def _spectator(browser: Any, url: str, path: str) -> Any:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_default_timeout(WAIT_MS)
    page.goto(url + path)
    page.wait_for_selector("#role.spectator")
    return page


def test_a_test_added_button_is_on_the_pages_in_their_words_and_its_role_holds(
    board_url: tuple[int, str],
) -> None:
    gid, url = board_url
    with chromium() as browser:
        # A spectator's operator page shows it (as it shows every game button) and the
        # board refuses it, in words that say how to get control.
        watcher = _spectator(browser, url, "operator")
        wait_js(watcher, f"{BUTTON}?.textContent === 'Tutorial'")
        watcher.click("[data-cmd=whirl]")
        refused = wait_js(watcher, TOAST)
        assert "access code" in refused, refused
        assert calls == []

        # The staff's page, in German: the label and the toast are the catalog's words, in
        # the rank's place (after the board check, before the agreement).
        staff = operator_page(browser, url, "de", 1280)
        wait_js(staff, f"{BUTTON}?.textContent === 'Einführung'")
        order = staff.eval_on_selector_all(
            "#game-buttons button", "bs => bs.map(b => b.dataset.cmd)"
        )
        assert order == [
            "undo",
            "hint",
            "check",
            "whirl",
            "end",
            "voice.repeat",
            "voice.board",
            "resign",
        ], order
        staff.click("[data-cmd=whirl]")
        assert wait_js(staff, f"{TOAST} === 'Zurückgenommen'")
        poll_until(lambda: calls, what="the handler to run")
        assert calls == [(gid, 2)]  # once, on the game, with the button's arguments
        assert not staff.errors, staff.errors

        # The twin shows it only to a session that may run it; its key runs it there.
        twin_watcher = _spectator(browser, url, "")
        wait_js(twin_watcher, "window.kiothiTwin && kiothiTwin.client.hello")
        assert twin_watcher.eval_on_selector_all("#actions button", "bs => bs.length") == 0
        twin_watcher.keyboard.press("k")
        wait_js(twin_watcher, "document.querySelector('#say').textContent.includes('access code')")
        twin = staff.context.new_page()
        twin.goto(url)
        wait_js(twin, f"{BUTTON}?.textContent === 'Einführung'")
        assert twin.get_attribute("[data-cmd=whirl]", "title") == "Taste k"
        twin.keyboard.press("k")
        poll_until(lambda: len(calls) == 2, what="the twin's key to run it")
        assert calls == [(gid, 2)] * 2
