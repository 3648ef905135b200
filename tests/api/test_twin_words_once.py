"""The twin says each thing once (issue 24 item 7, notes/page-texts.md "Left"): the heading's
words are not repeated at the start of the line under it (a screen reader still hears the
whole line), the AI's thinking is said by the line alone, and the game-over veil says the
game-over line's own last sentence."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.helpers import ARTIFACTS
from tests.api.twin_harness import PHONE, Twin, opening_and_turn, relay_pit, serve
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
    twin.ctl.call("new_game", mode="two", sides="SN", level=3, pace="step", variant={"V2": True})
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
    twin.ctl.call("new_game", mode="two", sides="SN", level=3, pace="step", variant={"V2": True})
    twin.ctl.call("resign")
    page = twin.phone
    twin.synced(page)
    wait_js(page, "!document.querySelector('#over').classList.contains('hidden')")
    veil = page.evaluate("[...document.querySelectorAll('#over > *')].map(e => e.textContent)")
    heading, eye, heard = _seen(page)
    assert heading == "Game over" and heard.startswith("Game over: "), heard
    assert not eye.startswith("Game over"), eye
    assert heard.endswith(" " + veil[2]), (heard, veil)
    assert veil[2] == "Hold any pit for a new game."


COVERED = """() => { const box = document.querySelector('#toast');
  if (!box.classList.contains('show') || !box.textContent.startsWith('Captured')) return null;
  const t = box.offsetTop, b = t + box.offsetHeight, l = box.offsetLeft, r = l + box.offsetWidth;
  return {covered: [...document.querySelectorAll('#board .pit')].filter(p => {
    const q = p.getBoundingClientRect();
    return q.left < r && l < q.right && q.top < b && t < q.bottom; }).map(p => p.dataset.pit),
    text: box.textContent}; }"""


def test_a_capture_toast_covers_no_pit(twin: Twin) -> None:
    """At 320, 390 and 1280 px the toast ("Captured 1 from N8") sits clear of every pit
    (on main it sat fixed at the bottom, over the lower pits of a phone's board)."""
    pages = {
        w: twin.page({"width": w, "height": 844 if w < 1000 else 800}) for w in (320, 390, 1280)
    }
    for page in pages.values():  # each page notes where its toast is when it shows
        page.evaluate(
            f"""() => {{ const box = document.querySelector('#toast'); const look = {COVERED};
            new MutationObserver(() => {{ const got = look(); if (got) window.toastSeen = got; }})
              .observe(box, {{attributes: true, childList: true}}); }}"""
        )
    ctl = twin.ctl
    opening_and_turn(twin)
    ctl.press(relay_pit(twin))
    twin.follow(stop="capture")
    assert ctl.state()["guide"]["kind"] == "capture"
    twin.follow()  # the capture is taken: its toast
    ARTIFACTS.mkdir(exist_ok=True)
    for width, page in pages.items():
        got = wait_js(page, "window.toastSeen")
        page.screenshot(path=str(ARTIFACTS / f"twin-toast-{width}.png"))
        assert got["covered"] == [], f"at {width} px {got['text']!r} covers {got['covered']}"
