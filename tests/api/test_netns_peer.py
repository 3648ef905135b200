"""A peer that is not loopback, for real: a client in a network namespace over a veth pair.

The test host (198.18.0.2, in a namespace this test makes and removes) reaches the daemon at
198.18.0.1 on the host side of the veth; nothing leaves the machine. Needs root and `ip`.
"""

from __future__ import annotations

import json
import os
import shutil
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


def _why(exc: Exception) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        said = (exc.stderr or b"").decode(errors="replace").strip()
        return f"`ip {' '.join(exc.cmd[1:])}` failed: {said or exc}"
    return str(exc)


@pytest.fixture
def netns() -> Iterator[str]:
    """A namespace with a veth pair to this one; skips, saying why, where the machine
    cannot make one (no root, no `ip`, no netns or veth support, `ip -n` refused)."""
    name = f"k9t{os.getpid() % 100000}"
    veth = f"k9v{os.getpid() % 100000}"
    made = False
    try:
        try:
            _ip("netns", "add", name)
            made = True
            _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", name)
            _ip("addr", "add", f"{HOST}/30", "dev", veth)
            _ip("link", "set", veth, "up")
            _ip("-n", name, "addr", "add", f"{PEER}/30", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "up")
            _ip("-n", name, "link", "set", "lo", "up")
        except (OSError, subprocess.SubprocessError) as exc:
            pytest.skip(f"needs root and network namespaces with veth: {_why(exc)}")
        yield name
    finally:
        subprocess.run(["ip", "link", "del", veth], capture_output=True, timeout=10)
        if made:
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


def test_where_ip_n_is_refused_the_peer_test_skips_saying_why(tmp_path: Path) -> None:
    """A machine that can add a namespace but not enter it (a container, a chroot) skips the
    peer test with the reason; it must not error."""
    fake = tmp_path / "bin"
    fake.mkdir()
    real = shutil.which("ip") or "/usr/sbin/ip"
    (fake / "ip").write_text(
        "#!/bin/sh\n"
        'if [ "$1" = -n ]; then echo "Cannot open network namespace: Permission denied" >&2; '
        f'exit 1; fi\nexec {real} "$@"\n'
    )
    (fake / "ip").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    test = f"{Path(__file__)}::test_a_non_loopback_peer_and_a_foreign_page_get_spectator_rights"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", test],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SKIPPED [1]" in proc.stdout and "Cannot open network namespace" in proc.stdout
