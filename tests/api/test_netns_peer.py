"""A peer that is not loopback, for real: a client in a network namespace over a veth pair.

The test host (198.18.0.2, in a namespace this test makes and removes) reaches the daemon at
198.18.0.1 on the host side of the veth; nothing leaves the machine. Needs root and `ip`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.daemon_proc import DaemonProc

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "netns-test-token-0123456789"
HOST, PEER = "198.18.0.1", "198.18.0.2"

CLIENT = r"""
import json, socket, sys
sys.path.insert(0, sys.argv[3])
from tests.api.helpers import socket_client
from tests.api.wire import RawWebSocket
host, tcp_port, web_port = sys.argv[4], int(sys.argv[1]), int(sys.argv[2])
out = {}
c = socket_client(socket.create_connection((host, tcp_port), timeout=5))
out["tcp_role"] = c.request("hello")["result"]["role"]
out["tcp_check"] = c.request("check").get("error", {}).get("code")
out["tcp_auth"] = c.request("auth", {"token": sys.argv[5]})["result"]["role"]
out["tcp_check_after"] = c.request("check")["ok"]
ws = RawWebSocket(web_port, {"Origin": "http://evil.example"}, host=host)
out["ws_status"] = ws.status
out["ws_role"] = ws.request(1, "hello")["result"]["role"]
out["ws_check"] = ws.request(2, "check")["error"]["code"]
print(json.dumps(out))
"""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@pytest.fixture
def netns() -> Iterator[str]:
    name = f"k9t{os.getpid() % 100000}"
    veth = f"k9v{os.getpid() % 100000}"
    try:
        _ip("netns", "add", name)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"needs root and ip netns: {exc}")
    try:
        _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", name)
        _ip("addr", "add", f"{HOST}/30", "dev", veth)
        _ip("link", "set", veth, "up")
        _ip("-n", name, "addr", "add", f"{PEER}/30", "dev", "eth0")
        _ip("-n", name, "link", "set", "eth0", "up")
        _ip("-n", name, "link", "set", "lo", "up")
        yield name
    finally:
        subprocess.run(["ip", "link", "del", veth], capture_output=True, timeout=10)
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10)


def test_a_non_loopback_peer_and_a_foreign_page_get_spectator_rights(
    netns: str, tmp_path: Path
) -> None:
    # Even with trust_loopback_tcp on, a peer from another address needs the token.
    api = {"host": HOST, "web_host": HOST, "token": TOKEN, "trust_loopback_tcp": True}
    with DaemonProc(tmp_path, api) as d:
        proc = subprocess.run(
            ["ip", "netns", "exec", netns, sys.executable, "-c", CLIENT,
             str(d.tcp_port), str(d.web_port), str(ROOT), HOST, TOKEN],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout)
    assert got == {
        "tcp_role": "spectator",
        "tcp_check": "unauthorized",
        "tcp_auth": "control",
        "tcp_check_after": True,
        "ws_status": 101,  # the Host is this machine's own address: served
        "ws_role": "spectator",
        "ws_check": "unauthorized",
    }
