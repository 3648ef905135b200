"""Issue 21 item 8: lines that are not requests (`{}`) cost a request like any other.

On the old code they were answered before the rate limiter, at any rate (12,500 answers/s
from 4 clients, 88 % of a core); now they spend the client's bucket and, over it, are
dropped unanswered and counted (`health.dropped`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path

from kiothi_board.api import start_api
from kiothi_board.api.lines import MAX_DROPPED_RUN
from kiothi_board.board import Board
from kiothi_board.hardware.fakes import FakePixelSink
from tests.api.daemon_proc import DaemonProc
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
        # dropped and counted, until a run of MAX_DROPPED_RUN of them closed it (item 9)
        assert health["dropped"] == MAX_DROPPED_RUN


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _malformed_until_closed(port: int, deadline: float) -> tuple[int, bytes]:
    """Send `{}` lines until the board closes the connection: (lines sent, what came back)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setblocking(False)
    chunk, sent, got = b"{}\n" * 512, 0, b""
    try:
        while time.monotonic() < deadline:
            with contextlib.suppress(BlockingIOError):
                sent += sock.send(chunk) // 3
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                continue
            if not data:
                return sent, got
            got += data
    except (ConnectionResetError, BrokenPipeError):
        return sent, got
    finally:
        sock.close()
    return -1, got  # still open at the deadline


def test_a_peer_sending_only_malformed_lines_is_closed_and_costs_little(tmp_path: Path) -> None:
    """Issue 30 item 9, on the real daemon over TCP: the old code answered the first 200
    (the burst), dropped the rest for ever and kept the peer (still open after 10 s, 63 % of
    a core). Now a run of MAX_DROPPED_RUN dropped lines closes it."""
    with DaemonProc(tmp_path, {}) as d:
        assert d.tcp_port is not None
        started = time.monotonic()
        sent, got = _malformed_until_closed(d.tcp_port, started + 10)
        took = time.monotonic() - started
        assert sent != -1, "the peer was never disconnected"
        assert d.wait_log(f"disconnected: {MAX_DROPPED_RUN} malformed lines in a row"), got[-300:]
        # A peer that reconnects at once and does it again, for 5 s: the board's CPU.
        before, started, rounds = _cpu_seconds(d.proc.pid), time.monotonic(), 0
        while time.monotonic() - started < 5.0:
            assert _malformed_until_closed(d.tcp_port, time.monotonic() + 10)[0] != -1
            rounds += 1
        share = (_cpu_seconds(d.proc.pid) - before) / (time.monotonic() - started)
        print(f"malformed flood: closed after {took:.2f} s ({sent} lines sent); 5 s more: "
              f"{rounds} connections, board CPU {share:.0%} of a core")  # fmt: skip
        probe = socket_client(socket.create_connection(("127.0.0.1", d.tcp_port)))
        health = probe.request("health")["result"]
        assert health["status"] == "ok" and health["dropped"] > 0
        # The CPU share is a figure, not a bound: on a loaded machine (the suite's other
        # workers) it measured 60 % once where it is 23 % alone; what the item asks is that
        # the peer is closed (above) and that each cut costs one summed log line (below).
        # one summed line per 10 s, not a line per connection cut off
        assert d.log().count("malformed lines in a row") <= 3, rounds
