"""The seat's page in Chromium (issue 34, "Done when"): a phone plays North on the twin
against a fake hand at the board; its presses on South's pits and every staff command are
refused; the link is good once; axe passes; keyboard play; the board guides its hand through
the web player's moves in step pace."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.controller import Controller
from kiothi_board.controller.table import TABLE
from kiothi_board.rules import parse_record
from tests.api.test_dispatcher import Peer
from tests.api.twin_harness import DESKTOP, PHONE, Twin, serve
from tests.axe_pages import violations
from tests.browser import chromium, wait_js
from tests.conftest import poll_until
from tests.i18n.serving import operator_page

SHOTS = Path("/work/helpers/shots")
NORTH_CODES = ["KeyQ", "KeyW", "KeyE", "KeyR", "KeyT", "KeyY", "KeyU", "KeyI", "KeyO", "KeyP"]


@pytest.fixture
def twin() -> Iterator[Twin]:
    with chromium() as browser, serve(browser) as t:
        yield t


def seat_page(t: Twin, viewport: dict[str, int], side: str = "N") -> tuple[Any, str]:
    """A page opened by a fresh seat link (no cookie, no PIN): the seat; and the link."""
    link = Peer(t.server.dispatcher).req("seat_link", side=side)["result"]["link"]
    page = t.browser.new_page(viewport=viewport)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    t.pages.append(page)
    page.goto(t.url + link)
    page.wait_for_selector("#conn.up")
    wait_js(
        page, "window.kiothiTwin.client.hello && window.kiothiTwin.client.hello.role === 'seat'"
    )
    return page, link


def events(t: Twin) -> int:
    return int(t.ctl.state()["events"])


def page_state(page: Any, want: int) -> None:
    """Wait until the page has rendered the state after `want` stored events."""
    wait_js(page, f"window.kiothiTwin.state && window.kiothiTwin.state.events >= {want}")


def seat_plays(t: Twin, page: Any, pit: str, *, keyboard: bool) -> None:
    """The seat presses `pit` (a click, or its key) and the board takes the move."""
    before = events(t)
    page_state(page, before)
    if keyboard:
        page.keyboard.press(NORTH_CODES[10 - int(pit[1:])])
    else:
        page.click(f'[data-pit="{pit}"]')
    poll_until(lambda: events(t) > before, f"the board taking the seat's {pit}")


def seat_opens(t: Twin, page: Any) -> None:
    """North's opening from the page: lift N7, place its six seeds by pressing pits."""
    before = events(t)
    page_state(page, before)
    wait_js(page, "document.querySelector('#cue').textContent.startsWith('Your opening')")
    for pit in ("N7", "N1", "N2", "N3", "S1", "S2", "N1"):
        page.click(f'[data-pit="{pit}"]')
    poll_until(lambda: events(t) > before, "the board taking the seat's opening")
    assert t.ctl.state()["actions"][-1] == "N7>N1,N2,N3,S1,S2,N1"


def refusals(t: Twin, page: Any) -> None:
    """On the seat's own turn: a South pit, South's resignation, every staff command."""
    page.click('[data-pit="S3"]')
    wait_js(page, "document.querySelector('#say').textContent.includes('S3')")
    asked = page.evaluate(
        """async (names) => {
        const out = {};
        for (const name of names) {
            try { await window.kiothiTwin.client.request(name, {}); out[name] = "ok"; }
            catch (e) { out[name] = e.code + ": " + e.message; }
        }
        try { await window.kiothiTwin.client.request("press", {pit: "S3"}); out.pressS3 = "ok"; }
        catch (e) { out.pressS3 = e.code + ": " + e.message; }
        return out;
        }""",
        [s.name for s in TABLE.doors() if s.role in ("control", "staff")],
    )
    for name, got in asked.items():
        assert got.startswith("unauthorized: This seat plays N only"), (name, got)


def test_a_phone_plays_a_whole_game_as_north(twin: Twin) -> None:
    t = twin
    variant = {"ply_limit": 26}  # a whole game, to its R11 end, in well under 30 s
    t.ctl.call("new_game", mode="two", web="N", pace="instant", variant=variant)
    page, link = seat_page(t, PHONE)
    # The link was good once: another device opening it only watches, and is told why.
    other = t.browser.new_page(viewport=PHONE)
    t.pages.append(other)
    other.goto(t.url + link)
    wait_js(other, "window.kiothiTwin.client.hello && window.kiothiTwin.client.hello.role")
    assert other.evaluate("window.kiothiTwin.client.hello.role") == "spectator"
    wait_js(other, "document.querySelector('#say').textContent.includes('seat link')")
    t.ctl.call("opening", action="pass")  # South (at the board) passes
    seat_opens(t, page)
    rng = random.Random(5)
    moves = 0
    shot = False
    while t.ctl.state()["stage"] == "turn":
        state = t.ctl.state()
        legal = state["position"]["legal"]
        if state["position"]["to_move"] == "S":
            t.ctl.press(rng.choice(legal))  # the fake hand lifts a South pit
            continue
        page_state(page, state["events"])
        wait_js(page, "document.querySelector('#cue').textContent.startsWith('Your move')")
        if moves == 1:
            refusals(t, page)
            assert violations(page) == []
        if moves == 2 and not shot:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "seat-phone.png"), full_page=True)
            shot = True
        seat_plays(t, page, rng.choice(legal), keyboard=moves % 2 == 1)
        moves += 1
    state = t.ctl.state()
    assert state["stage"] == "over" and moves >= 10 and state["result"]["end"] == "ply-limit"
    page_state(page, state["events"])
    wait_js(page, "!document.querySelector('#over').classList.contains('hidden')")
    record = Peer(t.server.dispatcher).req("games.get", id=state["game_id"])["result"]["game"]
    parsed = parse_record(json.dumps(record))
    *_, (_, _, last) = parsed.replay()
    assert last.result == parsed.result and parsed.result is not None
    assert page.errors == []


def test_the_seat_offers_and_resigns_by_keyboard_at_desktop_width(twin: Twin) -> None:
    t = twin
    t.ctl.call("new_game", mode="two", web="N", pace="instant", variant={"V2": True})
    page, _ = seat_page(t, DESKTOP)
    t.ctl.press(t.ctl.state()["position"]["legal"][0])
    page_state(page, events(t))
    page.focus("#seat-end")
    page.keyboard.press("Enter")  # an offer to end by agreement
    poll_until(lambda: t.ctl.state()["offer"], "the seat's offer on the board")
    assert t.ctl.ask(Controller.instruction).startswith("The web player offers to end")
    wait_js(page, "document.querySelector('#cue').textContent.startsWith('You offered')")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "seat-desktop.png"), full_page=True)
    assert violations(page) == []
    page.focus("#seat-resign")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # the confirmation's "Yes, resign" has the focus
    poll_until(lambda: t.ctl.state()["stage"] == "over", "the seat's resignation")
    assert t.ctl.state()["result"]["by"] == "N"
    assert page.errors == []


def test_the_board_guides_its_hand_through_the_web_players_move(twin: Twin) -> None:
    """Step pace: the seat's move is lit on the board pit by pit, and the fake hand at the
    board presses each lit pit until the move is done."""
    t = twin
    t.ctl.call("new_game", mode="two", web="N", pace="step", variant={"V2": True, "ply_limit": 6})
    page, _ = seat_page(t, PHONE)
    for _ in range(2):
        t.ctl.press(t.ctl.state()["position"]["legal"][0])  # South lifts; the hand sows
        t.follow()
        state = t.ctl.state()
        pit = state["position"]["legal"][-1]
        page_state(page, state["events"])
        seat_plays(t, page, pit, keyboard=False)
        line = t.ctl.ask(Controller.instruction)
        assert line.startswith(f"The web player plays {pit}: lift "), line
        assert t.ctl.ask(Controller.expected_pit) == pit_index(pit)
        wait_js(page, "document.querySelector('#cue').textContent.includes('sowing your move')")
        t.follow()  # the fake hand presses every lit pit of the web player's move
        assert t.ctl.state()["position"]["to_move"] == "S"
    assert page.errors == []


def pit_index(name: str) -> int:
    return int(name[1:]) - 1 + (10 if name[0] == "N" else 0)


def test_the_operator_page_makes_a_seat_link_and_starts_the_game(twin: Twin) -> None:
    """The staff's way in: the operator page's seat panel makes a link (which seats a
    phone as North) and starts a game whose North the web player plays."""
    t = twin
    page = operator_page(t.browser, t.url, "en", 390)
    t.pages.append(page)
    page.wait_for_selector("#conn.up")
    page.select_option("#seat-side", "N")
    page.click("#seat-link")
    wait_js(page, "document.querySelector('#seat-url').value.includes('/#seat=')")
    link = page.evaluate("document.querySelector('#seat-url').value")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#seat-panel").screenshot(path=str(SHOTS / "seat-operator-phone.png"))
    page.click("#seat-start")
    poll_until(lambda: t.ctl.state()["settings"].get("web") == ["N"], "the web game")
    phone = t.browser.new_page(viewport=PHONE)
    t.pages.append(phone)
    phone.goto(link)
    wait_js(phone, "window.kiothiTwin.client.hello && window.kiothiTwin.client.hello.role")
    assert phone.evaluate("window.kiothiTwin.client.hello.seat") == "N"
    assert violations(page) == [] and page.errors == []
