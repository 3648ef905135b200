"""The fleet dashboard in words (issue 24): "heard … ago" ticks between pushes in one format;
the detail dialog reads uptime in h/min, free disk in GB and events in words; without
KIOTHI_FLEET_TOKEN the page says it is read-only; staff can forget a retired board."""

from __future__ import annotations

import re

from tests.browser import WAIT_MS, chromium, wait_js
from tests.fleet.feed import Served, fed_hub, sign_in

TOKEN = "staff-token-0123456789"
HEARD = re.compile(r"heard (\d+\u00a0s|\d+\u00a0min|\d+\u00a0h \d+\u00a0min) ago")


def _tile_heard(page: object, board: str) -> str:
    text = str(page.inner_text(f".tile[data-board={board}]"))  # type: ignore[attr-defined]
    found = HEARD.search(text.replace("\n", " "))
    assert found, text
    return found.group(0)


def test_heard_ticks_and_the_detail_is_in_words() -> None:
    hub = fed_hub()
    dash = Served(hub, token=TOKEN)
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.set_default_timeout(WAIT_MS)
            page.goto(dash.url)
            wait_js(page, "document.querySelectorAll('.tile').length === 3")
            first = _tile_heard(page, "hall-1")
            wait_js(  # no new message: the page's own clock moves the words on
                page,
                "t => !document.querySelector('.tile[data-board=hall-1]').innerText"
                ".replace(/\\n/g, ' ').includes(t)",
                arg=first,
            )
            _tile_heard(page, "hall-1")
            page.click(".tile[data-board=hall-1]")
            page.wait_for_selector("#detail[open]")
            health = page.inner_text("#detail-health").replace("\n", " ").replace("\t", " ")
            assert "Up for 1\u00a0h 30\u00a0min" in health, health
            assert "Free disk 79.2 GB" in health, health
            assert "5432" not in health and "79177859072" not in health, health
            events = page.inner_text("#detail-events")
            assert events.splitlines() == ["Game over", "A move (S6)"], events
            assert not page.is_visible("#forget"), "an online board is not forgotten"
            page.click("#detail-close")
            sign_in(page, TOKEN)
            page.click(".tile[data-board=old-3]")
            page.click("#forget")
            wait_js(page, "document.querySelectorAll('.tile').length === 2")
            assert "old-3" not in {b["board"] for b in hub.boards()}
            wait_js(page, "document.querySelector('#message').textContent.includes('forgotten')")
    finally:
        dash.close()


def test_without_a_token_the_page_says_it_is_read_only() -> None:
    dash = Served(fed_hub(), token=None)
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(WAIT_MS)
            page.goto(dash.url)
            wait_js(page, "document.querySelector('#message').textContent.includes('read-only')")
            assert "KIOTHI_FLEET_TOKEN" in page.inner_text("#message")
            assert not page.is_visible("#login"), "no sign-in where no token can be right"
    finally:
        dash.close()
