"""Issue 21 item 8: a full disk sets `health` to degraded and is logged once per interval.

The real daemon's state directory is a 512 KiB tmpfs filled to the last byte; then staff
press pits, start games and change settings. On the old code every `new_game` logged a
traceback (10,742 log lines in 15 s under a crowd) while `health.status` said `ok`. A game
started while the disk is full is kept with its step, like a press, and written once there
is space again.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.api.daemon_proc import DaemonProc
from tests.api.helpers import socket_client

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")


@contextlib.contextmanager
def _tmpfs(state: Path, size: str) -> Iterator[Path]:
    state.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(state)], check=True)
    try:
        yield state
    finally:
        subprocess.run(["umount", "-l", str(state)], check=False)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with _tmpfs(tmp_path / "state", "512k") as state:
        yield state


@pytest.fixture
def demo_disk(tmp_path: Path) -> Iterator[Path]:
    """Room for the demo's write-ahead log to grow until the filler takes the rest."""
    with _tmpfs(tmp_path / "state", "8m") as state:
        yield state


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


def _lines(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line)
    into.put("")  # the stream closed: the process ended


def test_the_demo_on_a_full_disk_plays_on(tmp_path: Path, demo_disk: Path) -> None:
    """Issue 30 item 4: `--autoplay` starting its next game on a full disk ended the daemon
    (the store's error went up through the loop's hook). Now a game start is written with
    its step, as a press is (the journal keeps what the disk refuses and writes it when
    there is space), so the demo plays on through the full disk and after it."""
    conf = tmp_path / "c.toml"
    conf.write_text('[game]\nmode = "two"\nvariant = "ply_limit=12"\nover_seconds = 0.2\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-api", "--no-terminal",
         "--state-dir", str(demo_disk), "--config", str(conf), "--autoplay", "0.005",
         "--trace", "--seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    out: queue.Queue[str] = queue.Queue()
    err: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stdout, out), daemon=True).start()
    threading.Thread(target=_lines, args=(proc.stderr, err), daemon=True).start()
    log: list[str] = []

    def game_reaches(n: int) -> int:
        while True:
            line = out.get(timeout=60)
            assert line, "the daemon ended:\n" + "".join(log) + _drain(err)
            game = json.loads(line)["game"] or 0
            if game >= n:
                return int(game)

    try:
        first = game_reaches(2)  # the demo plays its games
        _fill(demo_disk / "filler")
        full = game_reaches(first + 2)  # new games start and play on the full disk
        assert proc.poll() is None
        (demo_disk / "filler").unlink()  # space again: the demo's next game starts
        assert game_reaches(full + 1) > full
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    log.append(_drain(err))
    assert "Traceback" not in "".join(log), "".join(log)[-3000:]


def _drain(lines: queue.Queue[str]) -> str:
    got = []
    while True:
        try:
            got.append(lines.get(timeout=1))
        except queue.Empty:
            return "".join(got)
        if not got[-1]:
            return "".join(got)
