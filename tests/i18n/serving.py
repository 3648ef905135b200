"""A board served in every shipped language for the i18n browser tests (one harness)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from kiothi_board.api import start_api
from kiothi_board.board import Board
from kiothi_board.clock import FakeClock, SystemClock
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.store.memory import MemoryStore
from tests.api.helpers import Ticker
from tests.api.twin_harness import PIN, TOKEN, LiftingOpponent
from tests.browser import WAIT_MS

LANGS = ("en", "sw", "fr", "de")


@contextmanager
def served(
    setup: Callable[[Any], None] | None = None,
    clock: FakeClock | None = None,
    langs: tuple[str, ...] = LANGS,
) -> Iterator[tuple[Board, str]]:
    """A board speaking `langs` on a free web port (with the staff's token and PIN): (board, url).

    On the system clock a thread ticks it, as the daemon's loop does; on a fake `clock` the
    test ticks it as it advances the clock (no LED animation runs while nothing happens)."""
    board = Board(
        sink=FakePixelSink(leds_per_ring=16, keep=50), clock=clock or SystemClock(),
        store=MemoryStore(),
        opponent_factory=lambda level: LiftingOpponent(), flow_seconds=0.01, over_seconds=-1,
        resume=False, languages=langs,
    )  # fmt: skip
    ticker = Ticker(board) if clock is None else None
    cfg = {
        "tcp_port": None, "web_port": 0, "sim": True, "token": TOKEN, "staff_pin": PIN,
        "languages": langs,
    }  # fmt: skip
    try:
        with start_api(board, cfg, setup=setup) as server:
            yield board, f"http://127.0.0.1:{server.web_port}/"
    finally:
        if ticker is not None:
            ticker.close()
        board.close()


def operator_page(browser: Any, url: str, lang: str, width: int) -> Any:
    """The operator page in `lang` at `width`, signed in with the staff PIN (not yet waited
    on: each test waits for what it reads); `page.errors` collects the page's errors."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.add_init_script(f"localStorage.setItem('kiothi-lang', '{lang}')")
    assert page.request.post(url + "session", data={"pin": PIN}).status == 200
    page.goto(url + "operator")
    return page
