"""The twin with the keyboard and a screen reader only (issue 24): a whole game against the AI
played with Tab, the arrow keys, Enter and Shift+Enter; at every step the live region says the
controller's words and every pit's label says its name, its seeds, whose it is and what may be
done with it. Pits are at least 44×44 px from 320 px up, without sideways scrolling; a watcher's
page never calls them "you"."""

from __future__ import annotations

import json
import re
from typing import Any

from kiothi_board.controller import Controller
from tests.api.twin_harness import PIN, Twin, no_horizontal_scroll, serve
from tests.browser import WAIT_MS, chromium, wait_js
from tests.conftest import poll_until

LABEL = re.compile(r"^(?P<pit>[SN]\d+), (?P<n>\d+) seeds?(?:, (?P<rest>.*))?$")


def labels(page: Any) -> dict[str, str]:
    """Every pit's accessible name (its aria-label), by pit."""
    got = page.evaluate(
        "Object.fromEntries([...document.querySelectorAll('#board .pit')]"
        ".map(p => [p.dataset.pit, p.getAttribute('aria-label')]))"
    )
    return dict(got)


def progress(twin: Twin) -> str:
    """What changes with every accepted press (the controller's own view)."""
    s = twin.ctl.state()
    pos = s.get("position") or {}
    return json.dumps([s["stage"], s.get("expect"), s.get("lifted"), s.get("board"),
                       pos.get("ply"), s.get("guide"), s.get("restore")], default=str)  # fmt: skip


def settle(twin: Twin, page: Any, before: str | None) -> None:
    """Wait until the controller took the press (and the AI is not mid-thought), then until
    the page shows its line."""
    if before is not None:
        poll_until(lambda: progress(twin) != before, "the press to be taken", WAIT_MS / 1000)
    poll_until(lambda: not twin.ctl.state().get("thinking"), "the AI's answer", WAIT_MS / 1000)
    twin.synced(page)


def focused(page: Any) -> str | None:
    value = page.evaluate("document.activeElement && document.activeElement.dataset.pit || null")
    return str(value) if value else None


def walk_to(page: Any, pit: str) -> None:
    """Move the focus to `pit` with the arrow keys only, by where the pits are drawn."""
    for _ in range(40):
        here = focused(page)
        assert here is not None, "the focus left the board"
        if here == pit:
            return
        a = page.locator(f'[data-pit="{here}"]').bounding_box()
        b = page.locator(f'[data-pit="{pit}"]').bounding_box()
        assert a and b
        dx, dy = b["x"] - a["x"], b["y"] - a["y"]
        if abs(dy) > a["height"] / 2:
            page.keyboard.press("ArrowDown" if dy > 0 else "ArrowUp")
        else:
            page.keyboard.press("ArrowRight" if dx > 0 else "ArrowLeft")
    raise AssertionError(f"the arrow keys never reached {pit}")


def check_labels(twin: Twin, page: Any, seen: dict[str, str]) -> None:
    """Every pit's label against the controller's state of the moment."""
    state = twin.ctl.state()
    board = state["board"]
    pos = state["position"]
    shown = labels(page)
    kind = state["stage"] + (f":{state['guide']['kind']}" if state.get("guide") else "")
    legal = pos["legal"] or ["S1"]
    seen.setdefault(kind, shown[state.get("expect") or legal[-1]])
    for pit, label in shown.items():
        m = LABEL.match(label or "")
        assert m, f"{pit}: {label!r}"
        index = int(pit[1:]) - 1 + (0 if pit[0] == "S" else 10)
        assert m["pit"] == pit and int(m["n"]) == board[index], (label, board[index])
        rest = m["rest"] or ""
        assert rest.startswith("yours" if pit[0] == "S" else "North's, the AI's"), label
        if state.get("expect") == pit:
            assert "the guide asks you to press it" in rest, label
        elif state["stage"] == "turn" and not state.get("expect"):
            legal = pit in pos["legal"] and pos["to_move"] == "S"
            assert ("you may sow it" in rest) == legal, label
        elif state["stage"] == "open" and state.get("lifted"):
            assert "you may place a seed here" in rest, label
        unsown = pos["phase"] == "play" and board[index] > 0 and not pos["sown"][index]
        assert ("protected" in rest) == unsown, label


def test_a_whole_game_with_the_keyboard_only() -> None:
    with chromium() as browser, serve(browser) as twin:
        ctl = twin.ctl
        page = twin.page({"width": 320, "height": 700})
        ctl.call("new_game", mode="ai", sides="S", level=3, pace="step", variant={"ply_limit": 6})
        settle(twin, page, None)
        for _ in range(12):  # Tab from the top of the page reaches the board
            page.keyboard.press("Tab")
            if focused(page):
                break
        assert focused(page), "Tab never reached the pits"
        lines: dict[str, str] = {}
        seen: dict[str, str] = {}
        placed = iter(["S1", "S2", "S3", "N3", "N4", "S2"])
        for _ in range(600):
            state = ctl.state()
            if state["stage"] == "over":
                break
            check_labels(twin, page, seen)
            cue = page.text_content("#cue")  # what the live region says
            assert cue == ctl.ask(Controller.instruction)
            lines.setdefault(state["stage"], cue)
            before = progress(twin)
            if state["stage"] == "set":
                page.keyboard.press("Shift+Enter")  # a hold confirms the board
            elif state.get("expect"):
                assert focused(page) == state["expect"], "the focus follows the lit pit"
                page.keyboard.press("Enter")
            elif state["stage"] == "open" and not state.get("lifted"):
                walk_to(page, "S7")  # the lift of the rules' example
                page.keyboard.press("Enter")
            elif state["stage"] == "open":
                walk_to(page, next(placed))
                page.keyboard.press("Enter")
            else:
                assert state["stage"] == "turn", state["stage"]
                walk_to(page, state["position"]["legal"][-1])
                page.keyboard.press("Enter")
            settle(twin, page, before)
        else:
            raise AssertionError("the game never ended")
        result = ctl.state()["result"]
        assert result["end"] == "ply-limit"
        wait_js(page, "!document.querySelector('#over').classList.contains('hidden')")
        over = page.inner_text("#over")
        first, second = (1, 0) if result["winner"] == "N" else (0, 1)  # the winner's first
        assert f"{result['captured'][first]} – {result['captured'][second]}" in over
        assert page.text_content("#cue") == ctl.ask(Controller.instruction)
        for label in labels(page).values():
            assert "you may" not in label
        assert {"open", "guided_open", "turn", "sow"} <= set(lines), sorted(lines)
        print(json.dumps({"lines": lines, "labels": seen}, indent=1))


def test_pits_are_finger_sized_at_every_width() -> None:
    with chromium() as browser, serve(browser) as twin:
        twin.ctl.call("new_game", mode="two", sides="SN", level=3, pace="step", variant={})
        page = twin.page({"width": 320, "height": 700})
        for width in (320, 390, 540, 768, 1280):
            page.set_viewport_size({"width": width, "height": 800})
            twin.synced(page)
            sw, inner = no_horizontal_scroll(page)
            assert sw <= inner, f"{width} px: scrollWidth {sw}"
            sizes = page.evaluate(
                "[...document.querySelectorAll('#board .pit')].map(p => {"
                " const r = p.getBoundingClientRect(); return [r.width, r.height]; })"
            )
            small = min(min(w, h) for w, h in sizes)
            assert small >= 44, f"{width} px: a pit is {small:.0f} px"


def test_a_watchers_page_never_says_you() -> None:
    with chromium() as browser, serve(browser) as twin:
        twin.ctl.call("new_game", mode="ai", sides="S", level=3, pace="step", variant={})
        player = twin.page({"width": 390, "height": 800})  # with the staff PIN
        twin.synced(player)
        assert PIN and "press" in player.inner_text("#cue")
        watcher = browser.new_page(viewport={"width": 390, "height": 800})
        watcher.set_default_timeout(WAIT_MS)
        watcher.goto(twin.url)
        watcher.wait_for_selector("#role.spectator")
        wait_js(watcher, "document.querySelector('#cue').textContent.includes('watching')")
        cue = watcher.inner_text("#cue")
        assert not re.search(r"\b(you|your|press)\b", cue.replace("You are watching", "")), cue
        for label in labels(watcher).values():
            assert "yours" not in label and "you may" not in label, label
        assert watcher.inner_text("#label-bottom") == "South's row"


def test_the_first_tab_into_the_board_lands_on_the_pit_the_guide_asks_for() -> None:
    """Issue 31 item 10: the first Tab landed on S1 whatever the guide asked for."""
    with chromium() as browser, serve(browser) as twin:
        ctl = twin.ctl
        page = twin.page({"width": 1280, "height": 800})
        ctl.call("new_game", mode="ai", sides="S", level=3, pace="step", variant={})
        ctl.press(0, hold=True)  # South passes; the AI lifts, and South's hand places its seeds
        poll_until(lambda: ctl.state().get("expect"), "the guide to ask for a pit", WAIT_MS / 1000)
        settle(twin, page, None)
        want = ctl.state()["expect"]
        assert want != "S1", "the check needs a pit other than the roving default"
        for _ in range(12):  # Tab from the top of the page
            page.keyboard.press("Tab")
            if focused(page):
                break
        assert focused(page) == want, f"the first Tab landed on {focused(page)}, not {want}"


def test_with_no_game_the_numbers_say_what_the_rings_show() -> None:
    """Issue 31 item 18: with no game (as after an agreement, once the result was shown) the
    rings glow the start layout but the pits' numbers read 0."""
    start = [0, 0, 0, 0, 0, 6, 6, 6, 6, 6] * 2
    with chromium() as browser, serve(browser) as twin:
        page = twin.page({"width": 1280, "height": 800})
        assert twin.ctl.state()["stage"] == "none"
        wait_js(page, "window.kiothiTwin.shown()[5] !== window.kiothiTwin.shown()[0]")
        shown = page.evaluate("window.kiothiTwin.shown()")
        lit = [sum(h[k : k + 6] != "000000" for k in range(0, len(h), 6)) for h in shown]
        assert [n > 0 for n in lit] == [n > 0 for n in start], lit  # the rings: the start
        counts = page.evaluate(
            "[...document.querySelectorAll('#board .pit')].map(p => p.dataset.pit + '='"
            " + p.querySelector('.count').textContent)"
        )
        names = [f"S{k}" for k in range(1, 11)] + [f"N{k}" for k in range(1, 11)]
        assert sorted(counts) == sorted(f"{p}={n}" for p, n in zip(names, start, strict=True))
