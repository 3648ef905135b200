"""Debian's Chromium through Playwright, and a wait that works under the pages' own CSP.

One Chromium a test process (an xdist worker), launched by the first test that asks and
closed when the session ends (`shutdown`, from tests/conftest.py): `chromium()` hands each
test that browser with the pages and contexts it opens closed at the end of its `with`,
so every test still starts with no page, cookie or storage of another's (a fresh context
each `new_page`/`new_context`), without paying a browser launch (about a CPU second) each.

Playwright's `wait_for_function` checks a string predicate once through DevTools, then, if it
was false, polls it inside the page with `new Function`, which the pages' Content Security
Policy forbids (`'unsafe-eval'`): such a test passes when the page is quick and fails when the
machine is slow. `wait_js` compiles the predicate into the function it sends (DevTools
evaluation is not subject to the page's CSP) and re-checks it in the page until it holds, so
every page is tested under its real CSP.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 20_000
"""How long a page may take to show what a test waits for (a loaded machine is slow)."""


class PageWaitTimeout(AssertionError):
    """The page never showed what the test waited for."""


class _Shared:
    """The worker's one Playwright and Chromium, started on first use."""

    playwright: Any = None
    browser: Any = None
    loop: Any = None
    open = 0  # chromium() blocks open now (a module's fixture may hold one across tests)


def _launch() -> Any:
    import playwright.sync_api as playwright

    assert os.path.exists(CHROMIUM), "needs Debian's chromium (scripts/setup-system.sh)"
    if _Shared.playwright is None:
        _Shared.playwright = playwright.sync_playwright().start()
        _Shared.loop = asyncio.get_running_loop()  # Playwright's own, marked running
    if _Shared.browser is None or not _Shared.browser.is_connected():
        _Shared.browser = _Shared.playwright.chromium.launch(
            executable_path=CHROMIUM, args=ARGS, timeout=60_000
        )
    return _Shared.browser


def shutdown() -> None:
    """Close the worker's Chromium and Playwright (the end of the session)."""
    if _Shared.playwright is None:
        return
    _resume()
    try:
        if _Shared.browser is not None and _Shared.browser.is_connected():
            _Shared.browser.close()
    finally:
        _Shared.playwright.stop()
        _Shared.playwright = _Shared.browser = _Shared.loop = None


def _resume() -> None:
    """Between two tests Playwright's loop is marked idle (`_idle`); mark it running again
    before a call into Playwright, which runs its tasks on it."""
    if _Shared.loop is not None and asyncio._get_running_loop() is None:
        asyncio._set_running_loop(_Shared.loop)


def _idle() -> None:
    """Playwright's sync API leaves its loop marked as this thread's running loop between
    calls: `asyncio.run` in a later test of this worker would refuse to start."""
    if _Shared.loop is not None and asyncio._get_running_loop() is _Shared.loop:
        asyncio._set_running_loop(None)


class SharedBrowser:
    """The shared browser as one test sees it: `new_page` and `new_context` open a fresh
    context each (as `Browser.new_page` does), closed by `close()` at the end of the test;
    anything else is the Playwright `Browser`'s."""

    def __init__(self, browser: Any) -> None:
        self.shared = browser
        self._contexts: list[Any] = []

    def new_context(self, **options: Any) -> Any:
        context = self.shared.new_context(**options)
        self._contexts.append(context)
        return context

    def new_page(self, **options: Any) -> Any:
        return self.new_context(**options).new_page()

    def close(self) -> None:
        """Close what this test opened (the browser goes on for the next test)."""
        contexts, self._contexts = self._contexts, []
        for context in contexts:
            with contextlib.suppress(Exception):  # closed already, or the browser died
                context.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.shared, name)


@contextmanager
def chromium() -> Iterator[SharedBrowser]:
    """The worker's headless Chromium (Debian's, no browser download), launched once; the
    pages and contexts opened through it are closed afterwards."""
    _resume()
    browser = SharedBrowser(_launch())
    _Shared.open += 1
    try:
        yield browser
    finally:
        _Shared.open -= 1
        try:
            browser.close()
        finally:
            if _Shared.open == 0:  # an outer block still calls into Playwright
                _idle()


def wait_js(page: Any, predicate: str, arg: Any = None, *, timeout: float = WAIT_MS) -> Any:
    """Wait until `predicate` is truthy in `page`; its value (JSON-able).

    `predicate` is a JS expression or, when `arg` is given, a function of it
    (`"t => el.innerText !== t"`).
    It runs on the page's own event loop after every task that may have changed the page,
    until it holds or `timeout` ms pass (then `PageWaitTimeout` names it).
    """
    import playwright.sync_api as playwright

    test = predicate if arg is not None else f"() => ({predicate})"
    source = f"""async (arg) => {{
        const test = ({test});
        const deadline = performance.now() + {float(timeout)};
        for (;;) {{
            const value = await test(arg);
            if (value) return value;
            if (performance.now() > deadline) return {{"__timed_out__": true}};
            await new Promise(r => setTimeout(r, 15));
        }}
    }}"""
    try:
        value = page.evaluate(source, arg)
    except playwright.Error as exc:
        raise PageWaitTimeout(f"the page failed while waiting for {predicate}: {exc}") from exc
    if isinstance(value, dict) and value.get("__timed_out__") is True:
        shown = json.dumps(predicate)
        raise PageWaitTimeout(f"the page never showed {shown} in {timeout / 1000:.0f} s")
    return value
