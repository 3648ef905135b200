"""A real Chromium plays on the web twin in sim mode (Playwright, Debian's chromium)."""

from __future__ import annotations

import json
from pathlib import Path

from kiothi_board.api import frame_to_hex, start_api
from kiothi_board.board import Board
from kiothi_board.hardware.fakes import FakePixelSink
from tests.api.helpers import ARTIFACTS
from tests.browser import WAIT_MS, chromium, wait_js

TOKEN = "browser-test-token-0123"
PIN = "24681037"


def test_browser_plays_a_move_by_clicking_pits(
    real_service: tuple[Board, FakePixelSink],
) -> None:
    ctl, sink = real_service
    service = ctl
    cfg = {"tcp_port": None, "web_port": 0, "sim": True, "token": TOKEN, "staff_pin": PIN}
    with start_api(service, cfg) as server:
        ctl.call("new_game", mode="ai", sides="S", level=3, pace="step", variant={"V2": True})
        url = f"http://127.0.0.1:{server.web_port}/"
        with chromium() as browser:  # every page under the page's real CSP
            page = browser.new_page(viewport={"width": 1180, "height": 560})
            page.set_default_timeout(WAIT_MS)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            # Loopback alone gives no control: the staff PIN buys a session cookie,
            # which the page's WebSocket then carries.
            wrong = page.request.post(url + "session", data={"pin": "00000000"})
            assert wrong.status == 401
            got = page.request.post(url + "session", data={"pin": PIN})
            assert got.status == 200 and got.json()["role"] == "control"
            page.goto(url)
            page.wait_for_selector("#conn.up")
            page.wait_for_selector("#sim:not(.hidden)")
            wait_js(page, "document.querySelector('#turn').textContent.includes('South')")
            s6 = page.locator('[data-pit="S6"] .count')
            assert s6.inner_text() == "6"
            wait_js(
                page,
                "document.querySelector('[data-pit=\"S6\"]').dataset.leds"
                ".replaceAll('000000', '').length > 0",
            )  # the ring shows its count as lit LEDs
            page.click('[data-pit="S6"]')  # lift S6: the guide now asks for drops
            wait_js(
                page, "document.querySelector('#cue').textContent.startsWith('Drop one seed in S7')"
            )
            assert s6.inner_text() == "0"
            # Follow the guide, clicking wherever it points (South's move, then the AI's
            # move, which the human makes on the board too) until South is to move again.
            key = (
                "(s => [s.stage, s.guide && s.guide.index, s.actions.length, s.expect]"
                ".join('|'))(window.kiothiTwin.state)"
            )
            settled = (
                "(s => s.expect || (s.stage === 'turn' && !s.ai_to_move))(window.kiothiTwin.state)"
            )
            for _ in range(80):
                wait_js(page, settled)
                expect = page.evaluate("window.kiothiTwin.state.expect")
                if expect is None:
                    break
                before = page.evaluate(key)
                page.click(f'[data-pit="{expect}"]')
                wait_js(page, f"{key} !== {json.dumps(before)}")
            assert page.evaluate("window.kiothiTwin.state.position.to_move") == "S"
            wait_js(page, "document.querySelectorAll('#moves li').length >= 1")
            assert page.locator("#moves li .what").first.inner_text() == "sows S6"
            # The twin's counts match the controller's board exactly.
            board = ctl.state()["board"]
            wait_js(
                page,
                "JSON.stringify(window.kiothiTwin.state.board) === "
                f"'{json.dumps(board, separators=(',', ':'))}'",
            )
            shown = page.evaluate(
                "[...document.querySelectorAll('.pit .count')].map(c => Number(c.textContent))"
            )
            assert shown == board
            # Every LED exactly as lit: the dots show the last frame event, and that frame
            # is one the rings were really given.
            dots, last = page.evaluate("[window.kiothiTwin.shown(), window.kiothiTwin.lastFrame]")
            assert dots == last
            assert dots in [frame_to_hex(f) for f in sink.history()]
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "web-twin.png"))
            phone = browser.new_page(
                viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
            )
            phone.set_default_timeout(WAIT_MS)
            console: list[str] = []
            phone.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
            phone.on("pageerror", lambda e: errors.append(str(e)))
            phone.goto(url)
            phone.wait_for_selector("#conn.up")
            phone.wait_for_selector(".pit[data-leds]")
            phone.screenshot(path=str(ARTIFACTS / "web-twin-phone.png"), full_page=True)
            # The operator page (under its real CSP) starts a game with its settings.
            phone.goto(url + "operator")
            phone.wait_for_selector("#conn.up")
            phone.wait_for_selector("#role.spectator")
            phone.fill("#token", TOKEN)  # the operator page keeps it in localStorage
            phone.click("#save-token")
            phone.wait_for_selector("#role.control")
            phone.select_option("#mode", "two")
            phone.select_option("#pace", "instant")
            phone.check('#variants input[value="V2"]')
            phone.fill("#ply", "12")
            old_game = ctl.state()["game_id"]
            phone.click("#start")
            phone.locator("#toast", has_text="started").wait_for()
            settings = ctl.state()["settings"]
            assert ctl.state()["game_id"] != old_game
            assert settings["mode"] == "two" and settings["pace"] == "instant"
            assert settings["variant"] == {"V2": True, "ply_limit": 12}
            assert service.call("settings.get")["pace"] == "instant"  # remembered as defaults
            phone.select_option("#palette", "night")
            phone.click("#save-lights")
            phone.locator("#toast", has_text="Lights applied").wait_for()
            assert service.call("settings.get")["palette"] == "night"
            phone.screenshot(path=str(ARTIFACTS / "web-operator-phone.png"), full_page=True)
            assert errors == [] and console == []  # no CSP violation, no JS error
    assert Path(ARTIFACTS / "web-twin.png").stat().st_size > 10_000
