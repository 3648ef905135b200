"""axe-core finds no serious or critical violation on the twin, the operator page and the
fleet dashboard (issue 24), at a phone's and a desktop's width, in several states."""

from __future__ import annotations

import json

from tests.api.twin_harness import serve
from tests.axe_pages import violations
from tests.browser import WAIT_MS, chromium, wait_js
from tests.fleet.feed import Served, fed_hub

WIDTHS = (320, 1280)


def test_the_twin_and_the_operator_page() -> None:
    with chromium() as browser, serve(browser) as twin:
        found: dict[str, list[str]] = {}
        for width in WIDTHS:
            page = twin.page({"width": width, "height": 800})
            found[f"twin {width} no game"] = violations(page)
            twin.ctl.call("new_game", mode="ai", sides="S", level=3, pace="step", variant={})
            twin.synced(page)
            found[f"twin {width} opening"] = violations(page)
            page.click("#btn-howto")
            page.wait_for_selector("#howto[open] #howto-body img")
            found[f"twin {width} how to play"] = violations(page)
            page.keyboard.press("Escape")
            page.goto(twin.url + "operator")
            page.wait_for_selector("#role.control")
            wait_js(page, "/^Game /.test(document.querySelector('#game-line').textContent)")
            found[f"operator {width}"] = violations(page)
            watcher = browser.new_page(viewport={"width": width, "height": 800})
            watcher.goto(twin.url + "operator")
            watcher.wait_for_selector("#role.spectator", timeout=WAIT_MS)
            found[f"operator {width} watching"] = violations(watcher)
            watcher.close()
        assert not any(found.values()), json.dumps(found, indent=1)


def test_the_fleet_dashboard() -> None:
    dash = Served(fed_hub(), token=None)
    try:
        with chromium() as browser:
            found: dict[str, list[str]] = {}
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": 800})
                page.set_default_timeout(WAIT_MS)
                page.goto(dash.url)
                wait_js(page, "document.querySelectorAll('.tile').length === 3")
                found[f"dashboard {width}"] = violations(page)
                page.click(".tile[data-board=hall-1]")
                page.wait_for_selector("#detail[open]")
                found[f"dashboard {width} detail"] = violations(page)
                page.close()
            assert not any(found.values()), json.dumps(found, indent=1)
    finally:
        dash.close()
