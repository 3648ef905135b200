"""The fleet dashboard in each language (issue 25): it serves the boards' catalogs
(/i18n/<lang>.json and i18n.js, under its own CSP and host check), takes ?lang=, keeps a
choice per device, starts in the browser's language if the catalogs have it, and shows no
English word outside the allowed set on the tiles, the detail dialog and its messages."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from tests.browser import WAIT_MS, chromium, wait_js
from tests.fleet.feed import Served, fed_hub, sign_in
from tests.i18n.english import english_in

TOKEN = "staff-token-0123456789"
PAGE_TEXT = """() => {
  const parts = [document.body.innerText, document.title];
  for (const el of document.querySelectorAll('[aria-label],[title],[placeholder]')) {
    for (const a of ['aria-label', 'title', 'placeholder']) {
      if (el.hasAttribute(a)) parts.push(el.getAttribute(a));
    }
  }
  return parts.join('\\n');
}"""


def _words(page: Any) -> str:
    """The page's words, its detail dialog open on a board online and then on the retired one."""
    texts = [str(page.evaluate(PAGE_TEXT))]
    for board in ("hall-1", "old-3"):
        page.click(f".tile[data-board={board}]")
        page.wait_for_selector("#detail[open]")
        texts.append(str(page.evaluate(PAGE_TEXT)))
        page.click("#detail-close")
    return "\n".join(texts)


def _open(browser: Any, url: str, lang: str) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    wait_js(
        page,
        "l => document.documentElement.lang === l && document.querySelectorAll('.tile').length"
        " === 3 && document.querySelector('#count').textContent !== ''",
        lang,
    )
    return page


def test_the_dashboard_in_each_language_has_no_english() -> None:
    dash = Served(fed_hub(), token=TOKEN)
    try:
        with chromium() as browser:
            found: dict[str, list[str]] = {}
            texts: dict[str, str] = {}
            for lang in ("en", "sw", "fr", "de"):
                page = _open(browser, dash.url + f"?lang={lang}", lang)
                page.fill("#token", "not-the-token-at-all")
                page.press("#token", "Enter")
                wait_js(page, "document.querySelector('#message').textContent !== ''")
                if lang == "en":
                    assert page.inner_text("#message") == "That staff token is not right."
                if lang == "en":
                    sign_in(page, TOKEN)  # the English words say so (tests/fleet/feed.py)
                texts[lang] = _words(page) + "\n" + page.inner_text("#message")
                if lang != "en" and (bad := english_in(texts[lang], lang)):
                    found[lang] = bad
                page.close()
            assert found == {}, f"English on the dashboard: {found}\n{texts}"
            assert english_in(texts["en"], "de"), "the English page reads as English"
            assert "2 of 3 online" in texts["en"] and "heard" in texts["en"]
            assert "2 von 3 online" in texts["de"] and "vor " in texts["de"]
            assert "2 kati ya 3 mtandaoni" in texts["sw"]
            assert "2 sur 3 en ligne" in texts["fr"]
    finally:
        dash.close()


def test_the_language_comes_from_the_browser_and_the_choice_is_kept() -> None:
    dash = Served(fed_hub(), token=None)
    try:
        with chromium() as browser:
            context = browser.new_context(locale="fr-FR")  # navigator.language "fr-FR"
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            page.goto(dash.url)
            wait_js(page, "document.documentElement.lang === 'fr'")
            wait_js(
                page, "document.querySelector('#message').textContent.includes('lecture seule')"
            )
            assert page.inner_text("#lang") == "Français"
            page.click("#lang")  # the next of the dashboard's languages: kept on this device
            wait_js(page, "document.documentElement.lang === 'sw'")
            assert "kusoma tu" in page.inner_text("#message")  # said again in the new language
            page.reload()
            wait_js(
                page, "document.documentElement.lang === 'sw' && !!document.querySelector('.tile')"
            )
            context.close()
            other = browser.new_context(locale="nl-NL")  # no Dutch catalog: English
            page = other.new_page()
            page.goto(dash.url)
            wait_js(page, "document.querySelectorAll('.tile').length === 3")
            assert page.evaluate("document.documentElement.lang") == "en"
            other.close()
        with urllib.request.urlopen(dash.url + "i18n/de.json", timeout=10) as r:
            assert "script-src 'self'" in r.headers["Content-Security-Policy"]
            assert json.loads(r.read())["lang"] == "de"
        try:
            urllib.request.urlopen(dash.url + "i18n/xx.json", timeout=10)
            raise AssertionError("a language without a catalog must be 404")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404
        request = urllib.request.Request(dash.url + "i18n/de.json", headers={"Host": "evil.test"})
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError("a foreign Host must be refused")
        except urllib.error.HTTPError as exc:
            assert exc.code == 421
    finally:
        dash.close()
