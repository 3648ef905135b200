"""Issue 21 item 8: lines that are not requests (`{}`) cost a request like any other.

On the old code they were answered before the rate limiter, at any rate (12,500 answers/s
from 4 clients, 88 % of a core); now they spend the client's bucket and, over it, are
dropped unanswered and counted (`health.dropped`).
"""

from __future__ import annotations

import socket
import time

from kiothi_board.api import start_api
from kiothi_board.board import Board
from kiothi_board.hardware.fakes import FakePixelSink
from tests.api.helpers import socket_client

LINES = 2000


def test_a_flood_of_malformed_lines_is_limited(real_service: tuple[Board, FakePixelSink]) -> None:
    ctl, _ = real_service
    cfg = {"tcp_port": 0, "web_port": None, "rate": 50, "burst": 200}
    with start_api(ctl, cfg) as server:
        assert server.tcp_port is not None
        flood = socket.create_connection(("127.0.0.1", server.tcp_port), timeout=10)
        started = time.monotonic()
        flood.sendall(b"{}\n" * LINES + b'{"id": "last", "cmd": "ping"}\n')
        flood.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := flood.recv(65536):
            data += chunk
        elapsed = time.monotonic() - started
        flood.close()
        answered = data.count(b"invalid_request")
        assert answered <= 200 + 50 * elapsed + 1, (answered, elapsed)
        probe = socket_client(socket.create_connection(("127.0.0.1", server.tcp_port)))
        health = probe.request("health")["result"]
        assert health["dropped"] >= LINES - answered - 1
