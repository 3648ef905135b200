"""The twin says each thing once (issue 24 item 7, notes/page-texts.md "Left"): the heading's
words are not repeated at the start of the line under it (a screen reader still hears the
whole line), the AI's thinking is said by the line alone, and the game-over veil says the
game-over line's own last sentence."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kiothi_board.api import start_api
from kiothi_board.board import Board
from kiothi_board.clock import SystemClock
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.store.memory import MemoryStore
from tests.api.helpers import ARTIFACTS
from tests.api.twin_harness import (
    PHONE,
    PIN,
    TOKEN,
    LiftingOpponent,
    Twin,
    opening_and_turn,
    relay_pit,
    serve,
)
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


def test_an_agreement_is_not_game_over_twice(twin: Twin) -> None:
    """Issue 31 item 18: "Game over" above "Game over by agreement: …" (no colon after the
    heading's words, so the page showed both)."""
    twin.ctl.new_game("two", "SN", 3, "step", {"V2": True})
    twin.ctl.run("end")
    page = twin.phone
    twin.synced(page)
    heading, eye, heard = _seen(page)
    assert heading == "Game over" and heard.startswith("Game over by agreement: "), heard
    assert eye.startswith("by agreement: each player took"), eye  # drawn "By" (CSS)


def test_a_line_that_only_says_the_turn_is_left_to_the_ear(twin: Twin) -> None:
    """Issue 31 item 18: "South (AI) to move." under "South to open · AI" (an AI's turn
    before it starts thinking: a demo's first moment; here no ticker ever moves it on)."""
    board = Board(
        sink=FakePixelSink(leds_per_ring=16, keep=5), clock=SystemClock(), store=MemoryStore(),
        opponent_factory=lambda level: LiftingOpponent(), over_seconds=-1, resume=False,
    )  # fmt: skip
    cfg = {"tcp_port": None, "web_port": 0, "sim": True, "token": TOKEN, "staff_pin": PIN}
    try:
        with start_api(board, cfg) as server:  # the module's Chromium: one per thread
            board.new_game("demo", "", 1, "step", {})
            assert board.controller.instruction() == "South (AI) to move."
            page = twin.browser.new_page(viewport=PHONE)
            page.goto(f"http://127.0.0.1:{server.web_port}/")
            wait_js(page, f"{CUE}.textContent === 'South (AI) to move.'")
            heading, eye, heard = _seen(page)
            page.close()
    finally:
        board.close()
    assert heading == "South to open · AI" and heard == "South (AI) to move.", heading
    assert eye == "", f"the eye reads {eye!r} under {heading!r}"


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
