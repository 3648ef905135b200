"""A staff page of the fleet dashboard stays signed in across a new WebSocket.

The role belongs to a connection: a network blip or a restarted dashboard used to leave
the staff's page read-only without a word (the action buttons hidden, nothing said). The
page now keeps the token it signed in with, in the tab's memory, and signs in again."""

from __future__ import annotations

from tests.browser import WAIT_MS, chromium, wait_js
from tests.fleet.feed import Served, fed_hub, sign_in

TOKEN = "staff-token-0123456789"


def test_the_staff_stay_signed_in_when_the_dashboard_restarts() -> None:
    hub = fed_hub()
    dash = Served(hub, token=TOKEN)
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(WAIT_MS)
            page.goto(dash.url)
            wait_js(page, "document.querySelectorAll('.tile').length === 3")
            sign_in(page, TOKEN)
            dash.close()  # every WebSocket ends; the page reconnects to the new one
            wait_js(page, "!document.getElementById('conn').classList.contains('up')")
            dash = Served(hub, token=TOKEN, port=dash.port)
            wait_js(page, "document.getElementById('conn').classList.contains('up')")
            wait_js(page, "document.getElementById('role').textContent === 'staff'")
            page.click(".tile[data-board=hall-1]")
            assert page.is_visible("#exhibit-on")
    finally:
        dash.close()
