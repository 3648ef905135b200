"""The web twin in exhibition mode says one thing at a time (notes/page-texts.md, "Left"):
after an abandoned game the heading, the line and the game-over veil agree on what the
board does next (the reset, then the attract loop), the pits show the reset's targets,
the countdown keeps its number with its unit at 320 px, and every line is the exhibit
status' own (the board's catalogs), not a copy in the page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.tools.exhibit_day import Client
from tests.api.helpers import ARTIFACTS
from tests.browser import WAIT_MS, chromium, wait_js
from tests.conftest import poll_until

PIN = "24681357"
START = [0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6]
CUE = "document.querySelector('#cue').textContent"
OVER = "[...document.querySelectorAll('#over > *')].map(e => e.textContent)"
COUNTS = "[...document.querySelectorAll('#board .pit .count')].map(c => +c.textContent).join()"


class Sim:
    """`kiothi-board run --sim --fake-clock` in exhibition mode, and its Unix socket."""

    def __init__(self, tmp: Path, extra: str = "") -> None:
        sock = self.sock = tmp / "api.sock"
        (tmp / "c.toml").write_text(f"""{extra}
[game]
over_seconds = 30
[exhibit]
enabled = true
idle_s = 20
countdown_s = 9
hint_after_s = 15
two_player_s = 1
level = 1
[api]
tcp_port = -1
web_port = 0
unix_path = "{sock}"
staff_pin = "{PIN}"
rate = 100000
burst = 1000000
""")
        self.log = tmp / "daemon.log"
        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-terminal",
                 "--config", str(tmp / "c.toml"), "--state-dir", str(tmp / "state"),
                 "--fake-clock", "1780000000", "--seed", "3"],
                stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
                env={**os.environ},
            )  # fmt: skip
        poll_until(self._doors_open, "the daemon to open its doors", 60)
        self.ask = Client(sock)
        self.url = self.log.read_text().split("web page is at ")[1].split()[0]

    def _doors_open(self) -> bool:
        assert self.proc.poll() is None, self.log.read_text()
        return self.sock.exists() and "web page is at " in self.log.read_text()

    def advance(self, seconds: float, **args: Any) -> dict[str, Any]:
        return self.ask("sim.advance", seconds=seconds, step=0.5, **args)

    def phase(self) -> str:
        return str(self.ask("exhibit")["exhibit"]["phase"])

    def stop(self) -> None:
        self.ask.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[Sim]:
    board = Sim(tmp_path)
    try:
        yield board
    finally:
        board.stop()


def _page(browser: Any, url: str, width: int) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 844})
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.add_init_script("localStorage.setItem('kiothi-lang', 'en')")
    assert page.request.post(url + "session", data={"pin": PIN}).status == 200
    page.goto(url)
    wait_js(page, "document.querySelector('#conn.up') && document.querySelector('#role.control')")
    return page


def _same_line(page: Any, text: str) -> bool:
    """Whether `text` in the line is drawn on one line (no wrap inside it)."""
    return bool(
        page.evaluate(
            """t => { const node = document.querySelector('#cue').firstChild;
            const at = node.textContent.indexOf(t); if (at < 0) return false;
            const r = document.createRange(); r.setStart(node, at); r.setEnd(node, at + t.length);
            return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size === 1; }""",
            text,
        )
    )


def test_an_abandoned_game_in_exhibition_mode_says_one_thing(sim: Sim) -> None:
    with chromium() as browser:
        page = _page(browser, sim.url, 320)
        assert sim.phase() == "reset"
        sim.ask("sim.hold", pit="S3", seconds=1.2)  # the boot reset, confirmed
        sim.advance(1.0)
        assert sim.phase() == "attract"
        status = sim.ask("exhibit")["exhibit"]
        wait_js(page, f"{CUE} === {json.dumps(status['instruction'])}")
        sim.advance(3.0, press="S3")  # a visitor, alone: a game against the AI
        assert sim.phase() == "playing"
        sim.ask("sim.press", pit="S6")  # lifts S6 for the opening (R3): its seeds in hand
        sim.advance(21.0)  # and walks away: the countdown
        assert sim.phase() == "countdown"
        for _ in range(4):  # every second's line, number and unit together at 320 px
            want = sim.ask("exhibit")["exhibit"]["instruction"]
            assert "\u00a0s." in want, want
            wait_js(page, f"{CUE} === {json.dumps(want)}")
            seconds = want.rsplit(" ", 1)[1].rstrip(".")  # "8\u00a0s"
            assert _same_line(page, seconds), f"{seconds!r} wraps at 320 px"
            sim.advance(1.0)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "exhibit-countdown-320.png"))
        sim.advance(8.0)  # the countdown runs out: abandoned, the reset (result still shown)
        assert sim.phase() == "reset"
        status = sim.ask("exhibit")["exhibit"]
        assert sim.ask("state")["state"]["stage"] == "over"
        wait_js(page, f"{CUE} === {json.dumps(status['instruction'])}")
        wait_js(page, f"{OVER}.length === 3")
        veil = page.evaluate(OVER)
        assert veil[0] == "Abandoned: no winner"
        assert veil[2] == (
            "Reset the board to the start, then hold any pit: it invites the next visitors."
        ), veil
        assert page.inner_text("#turn") == "Game over"
        # The pits show what the reset asks for, as in the reset with no game.
        wait_js(page, f"{COUNTS} === {','.join(map(str, START))!r}")
        # Issue 31 item 14: it said "S6, 6 seeds, the reset asks for 6 seeds" (the target
        # as its count) while S6 held none: now what it holds, and what to set.
        assert "S6" in status["pending"] and status["holds"][5] == 0, status
        label = page.get_attribute('[data-pit="S6"]', "aria-label")
        assert label == "S6, 0 seeds: set it to 6 seeds", label
        label = page.get_attribute('[data-pit="S1"]', "aria-label")
        assert label == "S1, 0 seeds", label  # right already: it holds its target
        differs = page.evaluate(
            "[...document.querySelectorAll('#board .pit.differs')].map(p => p.dataset.pit)"
        )
        assert sorted(differs) == sorted(status["pending"]), (differs, status["pending"])
        page.screenshot(path=str(ARTIFACTS / "exhibit-reset-after-game-320.png"))
        # The hold confirms the reset, as the veil said; the attract loop follows.
        sim.ask("sim.hold", pit="N2", seconds=1.2)
        sim.advance(1.0)
        assert sim.phase() == "attract"
        wait_js(page, f"{CUE}.startsWith('Press any pit to play')")
        assert not page.errors, page.errors


def test_the_cycled_invitation_carries_its_own_language(tmp_path: Path) -> None:
    """Issue 31 item 6: the attract loop's sentence cycled through the languages while the
    page stayed `lang="en"`: a screen reader read Swahili with English rules."""
    sim = Sim(tmp_path, '[board]\nlanguage = "en"\nlanguages = ["en", "sw"]\n')
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.set_default_timeout(WAIT_MS)
            page.goto(sim.url)  # nobody chose a language on this device: the page follows
            wait_js(page, "!!document.querySelector('#conn.up')")
            sim.ask("sim.hold", pit="S3", seconds=1.2)  # the boot reset, confirmed
            sim.advance(1.0)
            assert sim.phase() == "attract"
            sentences = sim.ask("exhibit")["exhibit"]["invitations"]
            for lang in ("sw", "en"):  # each turn of the invitation, with its language
                wait_js(page, f"document.querySelector('#cue').lang === {lang!r}", timeout=15_000)
                got = page.evaluate(
                    "[document.querySelector('#cue').textContent, document.documentElement.lang]"
                )
                assert got == [sentences[lang], "en"], got
            sim.ask("sim.press", pit="S3")  # a visitor: the waking line, the page's language
            wait_js(page, "!document.querySelector('#cue').hasAttribute('lang')")
    finally:
        sim.stop()


def test_the_result_screen_says_the_reset_follows(sim: Sim) -> None:
    """Issue 31 item 1: while a result showed (game.over_seconds) the line and the veil
    invited "Hold any pit for a new game." and a hold started a game nobody played."""
    with chromium() as browser:
        page = _page(browser, sim.url, 390)
        sim.ask("sim.hold", pit="S3", seconds=1.2)  # the boot reset, confirmed
        sim.advance(1.0)
        sim.ask("sim.press", pit="S3")
        sim.advance(0.5, press="N3")  # a press on each side: two players
        sim.advance(1.5)
        assert sim.phase() == "playing"
        sim.ask("resign", side="S")
        sim.advance(0.5)
        status = sim.ask("exhibit")["exhibit"]
        assert status["phase"] == "playing" and status["instruction"], status
        then = "Reset the board to the start, then hold any pit: it invites the next visitors."
        assert status["instruction"].endswith(then), status["instruction"]
        wait_js(page, f"{CUE} === {json.dumps(status['instruction'])}")
        wait_js(page, f"{OVER}.length === 3")
        assert page.evaluate(OVER)[2] == then
        sim.ask("sim.hold", pit="S6", seconds=1.2)  # the hold the old line invited
        sim.advance(0.5)
        assert sim.ask("state")["state"]["game_id"] == 1, "the hold started a game"
        assert not page.errors, page.errors
