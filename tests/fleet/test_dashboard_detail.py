"""The fleet dashboard's detail dialog says only what the staff use, in words and in every
language (issue 31 item 7); an offline tile keeps the age of the board's own last message
(item 15); and a board's fields are shown as text, never as markup (issue 30 item 10)."""

from __future__ import annotations

from typing import Any

from kiothi_board.clock import FakeClock
from kiothi_board.fleet.hub import FleetHub
from tests.browser import WAIT_MS, chromium, wait_js
from tests.fleet.feed import START, Served, feed
from tests.i18n.english import english_in

# What a real board publishes (`kiothi-board run --sim` with [exhibit] enabled, via mosquitto).
HEALTH: dict[str, Any] = {
    "status": "ok", "uptime": 2.122, "clients": {"web": 2, "tcp": 1}, "events": 45,
    "requests": 0, "errors": 0, "dropped": 0,
    "ai_core": {"core": "native", "why": "the native core (/opt/kiothi-board/_core.so)"},
    "auth": {"failures": 0, "limited": 0, "sessions": 0},
    "connections": {"open": 0, "max": 512, "shed": 0, "refused": 0, "timed_out": 0,
                    "fd_exhausted": 0},
    "exhibit": {
        "enabled": True, "phase": "playing", "countdown": None, "open": True, "quiet": False,
        "brightness": 1.0, "day": "2026-12-03", "showing": None, "instruction": None,
        "board": None, "pending": None, "uptime": 2.314,
        "loop": {"rate": 50.0, "jitter_ms": 0.167, "count": 106},
        "frames": {"rate": 9.96, "jitter_ms": 73.837, "count": 24},
        "cpu_temperature": 51.0, "throttled": None, "free_disk": 80322600960,
        "input_faults": 0, "link": {"state": "up", "error": None}, "store_bytes": 71552,
    },
    "store": {"status": "ok", "quarantined": [], "salvage": None, "problems": [],
              "clock_steps": 0},
    "mqtt": {"status": "up", "broker": "mqtt://127.0.0.1:1883", "published": 65, "dropped": 0,
             "reconnects": 0, "commands": 0, "refused": 0},
}  # fmt: skip
STATS: dict[str, Any] = {
    "today": {
        "day": "2026-12-03", "games": {"started": 3, "finished": 1, "abandoned": 1, "playing": 1},
        "duration": {"mean": 400.0, "median": 400.0, "bins": [120, 300, 600, 900, 1200, 1800],
                     "histogram": [0, 0, 1, 0, 0, 0, 0]},
        "hours": [0] * 12 + [3] + [0] * 11, "results": {"ai:2:playing": 1, "two:2:S": 1},
        "presses": {"S6": 2}, "wrong": 4, "hints": 2, "hints_offered": 0, "errors": 0,
        "restarts": 1, "input_faults": 0, "link_down": 0,
    }
}  # fmt: skip
RAW = ("fd_exhausted", "failures", "limited", "bins", "histogram", "results", "ai:2",
       "two:2", "jitter", "store_bytes", "_", "native core (", "{", "…")  # fmt: skip


def _hub(clock: FakeClock) -> FleetHub:
    hub = FleetHub("mqtt://127.0.0.1:9", clock=clock)  # never started: fed by hand
    feed(hub, "hall-1", "status", b"online")
    feed(hub, "hall-1", "state", {"state": {"stage": "turn", "board": START,
         "position": {"board": START, "captured": [3, 1], "to_move": "N"}}})  # fmt: skip
    feed(hub, "hall-1", "health", HEALTH)
    feed(hub, "hall-1", "stats", STATS)
    return hub


def _page(browser: Any, url: str, lang: str, width: int = 1280) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url + f"?lang={lang}")
    wait_js(page, "l => document.documentElement.lang === l && !!document.querySelector('.tile')"
            " && document.querySelector('#count').textContent !== ''", lang)  # fmt: skip
    return page


def _detail(page: Any, board: str) -> str:
    page.click(f".tile[data-board={board}]")
    page.wait_for_selector("#detail[open]")
    return str(page.inner_text("#detail")).replace("\t", " ")


def test_the_detail_dialog_says_what_the_staff_use_in_words_in_every_language() -> None:
    dash = Served(_hub(FakeClock(1000.0)), token=None)
    try:
        with chromium() as browser:
            texts = {lang: _detail(_page(browser, dash.url, lang), "hall-1")
                     for lang in ("en", "sw", "fr", "de")}  # fmt: skip
    finally:
        dash.close()
    english = texts["en"]
    for raw in RAW:
        assert raw not in english, f"{raw!r} in the detail dialog:\n{english}"
    for line in ("Status\nall well", "Free disk\n80.3 GB", "AI core\nnative (fast)",
                 "Connections\n3", "Exhibition\na game is on, open", "CPU temperature\n51 °C",
                 "Co-processor link\nworking", "Game store\nall well",
                 "Games\n3 games started, 1 finished, 1 abandoned",
                 "Median length\n6\u00a0min 40\u00a0s", "Wrong presses\n4"):  # fmt: skip
        assert line in english, f"{line!r} not in\n{english}"
    found = {lang: bad for lang, text in texts.items() if lang != "en"
             if (bad := english_in(text, lang))}  # fmt: skip
    assert found == {}, f"English in the detail dialog: {found}\n{texts}"


def test_an_offline_tile_keeps_the_age_of_the_boards_last_message() -> None:
    clock = FakeClock(1000.0)
    hub = _hub(clock)
    clock.advance(95.0)
    feed(hub, "hall-1", "status", b"offline")  # the broker's last will, 95 s later
    view = hub.board("hall-1")
    assert view is not None and view["status"] == "offline"
    assert view["age"] == 95.0, view["age"]
    dash = Served(hub, token=None)
    try:
        with chromium() as browser:
            page = _page(browser, dash.url, "en")
            tile = str(page.inner_text(".tile[data-board=hall-1]")).replace("\n", " ")
    finally:
        dash.close()
    assert "heard 1\u00a0min ago" in tile and "offline" in tile, tile


def test_a_stored_copy_has_no_age_of_its_own() -> None:
    """A retained message the broker replays at the dashboard's start is of unknown age."""
    from types import SimpleNamespace

    hub = FleetHub("mqtt://127.0.0.1:9", clock=FakeClock(1000.0))
    for topic, payload in (("status", b"offline"), ("health", b'{"status": "ok"}')):
        message = SimpleNamespace(topic=f"kiothi/v1/old/{topic}", payload=payload, retain=True)
        hub._on_message(None, None, message)
    view = hub.board("old")
    assert view is not None and view["age"] is None


MARKUP = '<img src=x id=injected onerror="document.title=1"><b id=bold>b</b>'


def test_a_boards_fields_are_text_never_markup() -> None:
    hub = FleetHub("mqtt://127.0.0.1:9", clock=FakeClock(1000.0))
    feed(hub, "evil", "status", b"online")
    feed(hub, "evil", "info", {"web": "javascript:document.title='owned'", "version": MARKUP})
    feed(
        hub,
        "evil",
        "state",
        {
            "state": {
                "stage": MARKUP,
                "expect": MARKUP,
                "position": {"board": [MARKUP] * 20, "captured": [MARKUP, 1], "to_move": MARKUP},
            }
        },
    )
    feed(
        hub,
        "evil",
        "health",
        {
            "status": MARKUP,
            "degraded": [MARKUP],
            "uptime": MARKUP,
            "exhibit": {"enabled": True, "phase": MARKUP, "link": {"state": MARKUP}},
        },
    )
    feed(hub, "evil", "stats", {"today": {"games": {"started": MARKUP}, "wrong": MARKUP}})
    feed(hub, "evil", "events", {"event": MARKUP, "pit": MARKUP})  # fmt: skip
    dash = Served(hub, token=None)
    try:
        with chromium() as browser:
            page = _page(browser, dash.url, "en")
            text = _detail(page, "evil")
            made = page.evaluate("document.querySelectorAll('#injected, #bold, img').length")
            href = page.evaluate("document.querySelector('#detail-twin').getAttribute('href')")
            hidden = page.evaluate("document.querySelector('#detail-twin').hidden")
            errors = page.errors
    finally:
        dash.close()
    assert made == 0, "markup from a board became elements"
    assert "<img src=x" in text, text  # shown as the text it is
    assert href is None and hidden, f"a board's script URL became a link: {href!r}"
    assert errors == []


PLACEHOLDER_FITS = """() => {
  const input = document.querySelector('#token');
  const st = getComputedStyle(input);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
  const room = input.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
  return [ctx.measureText(input.placeholder).width, room];
}"""


def test_the_dashboard_fits_320_px_in_every_language_with_its_token_placeholder_whole() -> None:
    """Issue 31 item 18: the Swahili placeholder 'Tokeni ya wafanyakazi' was cut at 320 px."""
    from tests.i18n.test_layout import CUT_OFF_JS

    dash = Served(_hub(FakeClock(1000.0)), token="staff-token-0123456789")
    problems: list[str] = []
    try:
        with chromium() as browser:
            for lang in ("en", "sw", "fr", "de"):
                for width in (320, 390, 1280):
                    page = _page(browser, dash.url, lang, width)
                    text, room = page.evaluate(PLACEHOLDER_FITS)
                    if text > room:
                        problems.append(f"{lang} {width}px: placeholder {text:.0f} > {room:.0f}")
                    scroll = page.evaluate("document.documentElement.scrollWidth")
                    if scroll > width:
                        problems.append(f"{lang} {width}px: scrollWidth {scroll}")
                    problems += [f"{lang} {width}px: {x}" for x in page.evaluate(CUT_OFF_JS)]
                    _detail(page, "hall-1")  # the dialog too: ten pits across, every fact
                    cut = page.evaluate(CUT_OFF_JS)
                    problems += [f"{lang} {width}px detail: {x}" for x in cut]
                    page.close()
    finally:
        dash.close()
    assert problems == []
