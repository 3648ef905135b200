"""A real controller behind the API with one Chromium, for the web twin's browser tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiothi_board.api import start_api
from kiothi_board.board import Board
from kiothi_board.clock import SystemClock
from kiothi_board.config import validate
from kiothi_board.controller import Controller
from kiothi_board.controller.opponent import ReadyHandle
from kiothi_board.guide.tutorial import TUTORIAL_OPENING, tutorial_move
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.rules import Lift, OpeningAction, Position
from kiothi_board.store.memory import MemoryStore
from tests.api.helpers import ARTIFACTS, Ticker
from tests.browser import WAIT_MS, PageWaitTimeout, wait_js

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SHOTS = ARTIFACTS / "guide-states"
TOKEN = "twin-test-token-0123456"
PIN = "24681359"

# The WCAG 2 contrast of every visible text on the page against the colour behind it
# (the nearest opaque background-color, translucent layers blended in). Returns failures.
CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text()


@dataclass
class Twin:
    """The controller, its page URL and a launched Chromium."""

    ctl: Board
    sink: FakePixelSink
    url: str
    browser: Any
    pages: list[Any] = field(default_factory=list)
    desk: Any = None
    phone: Any = None
    server: Any = None  # the ApiServer (its dispatcher, for a door's own commands)

    def page(self, viewport: dict[str, int], **kw: Any) -> Any:
        """A page on the twin (under its real CSP), connected, with JS errors collected in
        `page.errors`."""
        page = self.browser.new_page(viewport=viewport, **kw)
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.errors = errors
        self.pages.append(page)
        # Loopback alone gives no control: the staff PIN buys the page's session cookie.
        got = page.request.post(self.url + "session", data={"pin": PIN})
        assert got.status == 200, got.text()
        page.goto(self.url)
        page.wait_for_selector("#conn.up")
        return page

    def synced(self, page: Any) -> None:
        """Wait until the page shows the controller's instruction for now."""
        for _ in range(8):  # the AI may move meanwhile: compare with the line of the moment
            want = self.ctl.ask(Controller.instruction)
            try:
                wait_js(
                    page,
                    f"document.querySelector('#cue').textContent === {json.dumps(want)}",
                    timeout=1_000,
                )
                return
            except PageWaitTimeout:
                continue
        raise AssertionError(f"the page never showed {self.ctl.ask(Controller.instruction)!r}")

    def follow(self, stop: str | None = None) -> None:
        """Press wherever the guide points until it points nowhere (or at a `stop` kind)."""
        for _ in range(200):
            state = self.ctl.state()
            if state["stage"] == "set":
                self.ctl.press(0, hold=True)  # setting the board: one hold confirms it
                continue
            guide = state.get("guide")
            pit = self.ctl.ask(Controller.expected_pit)
            if pit is None or (stop and guide and guide["kind"] == stop):
                return
            self.ctl.press(pit)
        raise AssertionError("the guide never settled")


class LiftingOpponent:
    """A predictable AI: lifts its fullest pit in the opening (so the guided opening shows),
    spreading the seeds over the next pits; then the first legal move."""

    def start(self, position: Position) -> ReadyHandle:
        """Choose at once."""
        legal = position.legal_moves()
        if position.phase == "opening":
            pit = max(legal, key=lambda p: (position.board[p], -p))
            place = tuple((pit + 1 + k) % 20 for k in range(position.board[pit]))
            return ReadyHandle(OpeningAction((Lift(pit, place),)))
        return ReadyHandle(legal[0])


@contextmanager
def serve(browser: Any) -> Iterator[Twin]:
    """A fresh controller (no game yet) and the API with the web door, in sim mode."""
    sink = FakePixelSink(leds_per_ring=16, keep=5000)
    ctl = Board(
        sink=sink,
        clock=SystemClock(),
        store=MemoryStore(),
        opponent_factory=lambda level: LiftingOpponent(),
        flow_seconds=0.01,
        over_seconds=-1,
        resume=False,
        defaults={"level": validate({})["game"]["level"]},  # as the daemon passes its config
    )
    ticker = Ticker(ctl)
    try:
        cfg = {"tcp_port": None, "web_port": 0, "sim": True, "token": TOKEN, "staff_pin": PIN}
        with start_api(ctl, cfg) as server:
            twin = Twin(ctl, sink, f"http://127.0.0.1:{server.web_port}/", browser, server=server)
            try:
                yield twin
            finally:
                for page in twin.pages:  # closed sockets let the server stop at once
                    page.close()
    finally:
        ticker.close()
        ctl.close()


def no_horizontal_scroll(page: Any) -> tuple[int, int]:
    """(scrollWidth, innerWidth) of the page."""
    got = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    return int(got[0]), int(got[1])


def boxes_overlap(boxes: list[dict[str, float]]) -> list[tuple[int, int]]:
    """Pairs of boxes (x, y, width, height) that overlap by more than half a pixel."""
    bad = []
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            dx = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
            dy = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
            if dx > 0.5 and dy > 0.5:
                bad.append((i, j))
    return bad


def opening_and_turn(t: Twin) -> None:
    """A two-player game: South lifts S7 and places it as the tutorial's opening; North passes."""
    ctl = t.ctl
    ctl.call("new_game", mode="two", sides="SN", level=3, pace="step", variant={})
    lift, places = TUTORIAL_OPENING.split(">")
    ctl.press(lift)
    for pit in places.split(","):
        ctl.press(pit)
    ctl.call("opening", action="pass")


def relay_pit(t: Twin) -> int:
    """The tutorial's first move after that opening (the pit that relays)."""
    pos = Position.initial().open(TUTORIAL_OPENING).open("pass")
    return tutorial_move(pos)
