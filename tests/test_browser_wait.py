"""Why the browser tests wait with `wait_js`: Playwright's string predicates break under CSP.

The board's pages forbid `'unsafe-eval'`. Playwright checks a string predicate once, then
polls it inside the page with `new Function`: a predicate that is false at first fails with
an `EvalError` instead of waiting, which is how `test_how_to_play_panel` failed on a loaded
machine. `wait_js` waits under the same policy.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.browser import PageWaitTimeout, chromium, wait_js

CSP = "default-src 'self'; script-src 'self'"
PAGE = "<!doctype html><title>t</title><script src='/late.js'></script>"
LATE = "setTimeout(() => { window.ready = 'yes'; }, 300);"


def _serve(page: Any) -> None:
    def handle(route: Any) -> None:
        path = route.request.url.split("kiothi.test", 1)[1]
        body, kind = (LATE, "text/javascript") if path == "/late.js" else (PAGE, "text/html")
        route.fulfill(
            status=200, body=body, content_type=kind, headers={"Content-Security-Policy": CSP}
        )

    page.route("http://kiothi.test/**", handle)
    page.goto("http://kiothi.test/")


def test_a_string_predicate_that_is_false_at_first_fails_under_the_pages_csp() -> None:
    with chromium() as browser:
        page = browser.new_page()
        _serve(page)
        with pytest.raises(Exception, match=r"unsafe-eval|EvalError"):
            page.wait_for_function("window.never === true", timeout=10_000)


def test_wait_js_waits_under_the_same_csp() -> None:
    with chromium() as browser:
        page = browser.new_page()
        _serve(page)
        assert wait_js(page, "window.ready") == "yes"
        with pytest.raises(PageWaitTimeout, match="never showed"):
            wait_js(page, "window.never === true", timeout=500)


def test_each_test_gets_a_fresh_context_of_the_one_shared_browser() -> None:
    """One Chromium a worker (tests/browser.py): a later `chromium()` gets the same browser
    with none of the earlier pages, cookies or storage, and between the two `asyncio.run`
    works (Playwright's loop is not left marked as this thread's running loop)."""

    async def answer() -> int:
        return 42

    with chromium() as browser:
        page = browser.new_page()
        _serve(page)
        page.evaluate("localStorage.setItem('seen', 'yes')")
        first = browser.shared
        assert len(browser.contexts) == 1
    assert asyncio.run(answer()) == 42
    with chromium() as browser:
        assert browser.contexts == [], "the last test's pages were closed"
        assert browser.shared is first, "one Chromium for the worker"
        page = browser.new_page()
        _serve(page)
        assert page.evaluate("localStorage.getItem('seen')") is None
