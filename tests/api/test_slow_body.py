"""Issue 21 item 8: `header_timeout` covers the request body too.

A `POST /session` whose body trickles in a byte at a time used to keep its connection (and
a handler) for as long as the client liked (open after 41 s); now the whole request must be
in within `header_timeout`.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

from tests.api.daemon_proc import DaemonProc

PIN = "40718263"


def test_a_trickled_body_is_closed_by_the_header_timeout(tmp_path: Path) -> None:
    with DaemonProc(tmp_path, {"staff_pin": PIN, "header_timeout": 2}) as d:
        assert d.web_port is not None
        body = b'{"pin": "40718263", "pad": "' + b"x" * 200 + b'"}'
        sock = socket.create_connection(("127.0.0.1", d.web_port), timeout=30)
        sock.sendall(
            b"POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
        )
        started = time.monotonic()
        closed_after = None
        sock.settimeout(0.5)  # the interval between trickled bytes
        for i in range(len(body)):
            if time.monotonic() - started > 20:
                break  # the old code: still open, still waiting for the body
            try:
                sock.sendall(body[i : i + 1])
                got = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                got = b""
            closed_after = time.monotonic() - started
            assert got == b"" or got.startswith(b"HTTP/1.1 408"), got
            break
        sock.close()
    assert closed_after is not None, "the trickled request was never closed"
    assert closed_after < 2 + 8, closed_after  # header_timeout, and slack for a loaded machine
