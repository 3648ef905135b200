"""The twin says each thing once (issue 24 item 7, notes/page-texts.md "Left"): the heading's
words are not repeated at the start of the line under it (a screen reader still hears the
whole line), the AI's thinking is said by the line alone, and the game-over veil says the
game-over line's own last sentence."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.helpers import ARTIFACTS
from tests.api.twin_harness import PHONE, Twin, serve
from tests.browser import chromium, wait_js

CUE = "document.querySelector('#cue')"


@pytest.fixture(scope="module")
def twin() -> Iterator[Twin]:
    with chromium() as browser, serve(browser) as t:
        t.phone = t.page(PHONE)
        yield t


def _seen(page: Any) -> tuple[str, str, str]:
    """(heading, the line as the eye reads it, the line as a screen reader hears it)."""
    got = page.evaluate(
        f"[document.querySelector('#turn').innerText, [...{CUE}.childNodes]"
        ".filter(n => !(n.classList && n.classList.contains('sr-only')))"
        f".map(n => n.textContent).join(''), {CUE}.textContent]"
    )
    return str(got[0]), str(got[1]), str(got[2])


def test_the_heading_is_not_read_twice(twin: Twin) -> None:
    twin.ctl.new_game("two", "SN", 3, "step", {"V2": True})
    page = twin.phone
    twin.synced(page)  # the live region holds the whole line
    heading, eye, heard = _seen(page)
    assert heading == "South to move" and heard.startswith("South to move: press"), heard
    assert not eye.startswith(heading), f"{heading!r} then {eye!r}"
    assert eye.startswith("press one of your breathing pits"), eye  # drawn "Press" (CSS)
    first = page.evaluate(f"getComputedStyle({CUE}.querySelector('.rest'), '::first-letter')"
                          ".textTransform")  # fmt: skip
    assert first == "uppercase"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "twin-turn-heading-once-390.png"))
    # Nothing beside the line says the AI is thinking in other words.
    assert "AI is thinking" not in page.evaluate("document.body.textContent")


def test_the_game_over_veil_says_the_lines_own_words(twin: Twin) -> None:
    twin.ctl.new_game("two", "SN", 3, "step", {"V2": True})
    twin.ctl.run("resign")
    page = twin.phone
    twin.synced(page)
    wait_js(page, "!document.querySelector('#over').classList.contains('hidden')")
    veil = page.evaluate("[...document.querySelectorAll('#over > *')].map(e => e.textContent)")
    heading, eye, heard = _seen(page)
    assert heading == "Game over" and heard.startswith("Game over: "), heard
    assert not eye.startswith("Game over"), eye
    assert heard.endswith(" " + veil[2]), (heard, veil)
    assert veil[2] == "Hold any pit for a new game."
