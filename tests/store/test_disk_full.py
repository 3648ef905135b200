"""Issue 21 item 8: a full disk sets `health` to degraded and is logged once per interval.

The real daemon's state directory is a 512 KiB tmpfs filled to the last byte; then staff
press pits, start games and change settings. On the old code every `new_game` logged a
traceback (10,742 log lines in 15 s under a crowd) while `health.status` said `ok`. A game
started while the disk is full is kept with its step, like a press, and written once there
is space again.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.daemon_proc import DaemonProc
from tests.api.helpers import socket_client

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    state = tmp_path / "state"
    state.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(state)], check=True)
    try:
        yield state
    finally:
        subprocess.run(["umount", "-l", str(state)], check=False)


def _fill(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError:
        pass  # ENOSPC: full
    finally:
        os.close(fd)


def test_a_full_disk_degrades_health_and_logs_once(tmp_path: Path, small_disk: Path) -> None:
    with DaemonProc(tmp_path, {"trust_loopback_tcp": True}) as d:
        assert d.tcp_port is not None
        client = socket_client(socket.create_connection(("127.0.0.1", d.tcp_port)))
        assert client.request("new_game", {"mode": "two"})["ok"]
        _fill(small_disk / "filler")
        codes = []
        for _ in range(20):
            client.request("press", {"pit": "S6"})
            codes.append(client.request("new_game", {"mode": "two"}).get("error", {}).get("code"))
            client.request("settings.set", {"level": 3})
        health = client.request("health")["result"]
        assert health["status"] == "degraded" and "store" in health["degraded"], health
        assert any("cannot write" in p for p in health["store"]["problems"])
        # A game start is written with its step, like a press: kept, and the board plays on.
        assert set(codes) == {None}, codes
        (small_disk / "filler").unlink()  # space again: the next step writes what was kept
        client.request("press", {"pit": "S7"})
        again = client.request("new_game", {"mode": "two"})
        assert again["ok"], (again, os.statvfs(small_disk).f_bavail, sorted(os.listdir(small_disk)))
        games = client.request("games.list", {"limit": 100})["result"]["games"]
        assert [g["id"] for g in games] == list(range(again["result"]["game_id"], 0, -1))
        after = client.request("health")["result"]
        assert after["status"] == "ok", (after.get("degraded"), after.get("store"))
        log = d.log()
    assert "Traceback" not in log, log[-3000:]
    errors = [line for line in log.splitlines() if " ERROR " in line]
    assert 1 <= len(errors) <= 4, errors  # one per kind of failure a minute, with counts
