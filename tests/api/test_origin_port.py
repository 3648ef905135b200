"""Issue 21 item 7: the Origin check and the staff cookie include the port.

In Chromium, a page on another port of the board's host (another program's page: a printer's
admin, a dev server) used to get `role=control` over the board's WebSocket with the staff's
cookie and change a setting. And the staff's cookie session used to end after 256 `auth`s
elsewhere (one pool of tickets for every purpose).
"""

from __future__ import annotations

import http.client
import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kiothi_board.api import start_api
from kiothi_board.board import Board
from kiothi_board.hardware.fakes import FakePixelSink
from tests.api.helpers import socket_client
from tests.api.wire import RawWebSocket
from tests.browser import WAIT_MS, chromium, wait_js

PIN = "58302719"
TOKEN = "origin-port-token-0123456789"

ATTACK = """async (port) => {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  const replies = [];
  await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
  const ask = (id, cmd, args) => new Promise((ok) => {
    ws.onmessage = (m) => { const r = JSON.parse(m.data); if (r.id === id) ok(r); };
    ws.send(JSON.stringify({ id, cmd, args }));
  });
  replies.push(await ask(1, "hello", {}));
  replies.push(await ask(2, "settings.set", { brightness: 0.11 }));
  ws.close();
  return replies;
}"""


@contextmanager
def other_site() -> Iterator[int]:
    """Another program's web page on another port of the same host."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>other</title><p>another program's page</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_on_another_port_gets_no_control_with_the_staff_cookie(
    real_service: tuple[Board, FakePixelSink],
) -> None:
    ctl, _ = real_service
    cfg = {"tcp_port": None, "web_port": 0, "staff_pin": PIN}
    with start_api(ctl, cfg) as server, other_site() as port, chromium() as browser:
        url = f"http://127.0.0.1:{server.web_port}/"
        context = browser.new_context()
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        got = page.request.post(url + "session", data={"pin": PIN})  # the staff's cookie
        assert got.status == 200
        page.goto(url + "operator")  # the board's own page controls with it
        page.wait_for_selector("#role.control")
        before = ctl.call("settings.get")["brightness"]
        evil = context.new_page()
        evil.goto(f"http://127.0.0.1:{port}/")
        hello, change = evil.evaluate(ATTACK, server.web_port)
        assert hello["result"]["role"] == "spectator", hello
        assert change["error"]["code"] == "unauthorized", change
        assert ctl.call("settings.get")["brightness"] == before
        # nor can a page of that origin buy a cookie with a PIN
        conn = http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=10)
        conn.request("POST", "/session", body=f'{{"pin": "{PIN}"}}',
                     headers={"Origin": f"http://127.0.0.1:{port}"})  # fmt: skip
        assert conn.getresponse().status == 403
        conn.close()
        wait_js(page, "document.querySelector('#role').classList.contains('control')")
        names = [c["name"] for c in context.cookies()]
        assert names == [f"kiothi_session_{server.web_port}"], names


def _post_session(port: int) -> tuple[str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(
        "POST", "/session", body=f'{{"pin": "{PIN}"}}', headers={"Content-Type": "application/json"}
    )
    response = conn.getresponse()
    assert response.status == 200
    cookie = response.getheader("Set-Cookie") or ""
    conn.close()
    name, _, rest = cookie.partition("=")
    return name, rest.split(";", 1)[0]


def test_260_auths_elsewhere_do_not_end_the_staff_cookie_session(
    real_service: tuple[Board, FakePixelSink],
) -> None:
    ctl, _ = real_service
    cfg = {"tcp_port": 0, "web_port": 0, "staff_pin": PIN, "token": TOKEN, "burst": 1000}
    with start_api(ctl, cfg) as server:
        assert server.web_port is not None and server.tcp_port is not None
        name, value = _post_session(server.web_port)
        tcp = socket_client(socket.create_connection(("127.0.0.1", server.tcp_port)))
        for _ in range(260):  # a dashboard or a script that authenticates before each action
            assert tcp.request("auth", {"token": TOKEN})["ok"]
        ws = RawWebSocket(server.web_port, {"Cookie": f"{name}={value}"})
        assert ws.request(1, "hello")["result"]["role"] == "control"
        ws.close()
