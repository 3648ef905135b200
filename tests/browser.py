"""Debian's Chromium through Playwright, and a wait that works under the pages' own CSP.

Playwright's `wait_for_function` checks a string predicate once through DevTools, then, if it
was false, polls it inside the page with `new Function`, which the pages' Content Security
Policy forbids (`'unsafe-eval'`): such a test passes when the page is quick and fails when the
machine is slow. `wait_js` compiles the predicate into the function it sends (DevTools
evaluation is not subject to the page's CSP) and re-checks it in the page until it holds, so
every page is tested under its real CSP.
"""

from __future__ import annotations

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


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium (Debian's, no browser download), closed afterwards."""
    import playwright.sync_api as playwright

    assert os.path.exists(CHROMIUM), "needs Debian's chromium (scripts/setup-system.sh)"
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=60_000)
        try:
            yield browser
        finally:
            browser.close()


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
