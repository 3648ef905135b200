"""What a press costs the store: fsyncs and bytes written, measured on the real daemon.

Part of `kiothi-board bench guide`. The simulator daemon (SQLite store in a fresh state
directory) is started; once it answers, `strace -f -c -e trace=fsync,fdatasync -p PID` is
attached (when strace is installed) and a client on loopback TCP plays guided presses
through the API (`press` where the guide points, a legal move at a turn); the daemon's
`/proc/PID/io` `write_bytes` is read before the first press and after the last. The
figures are per press; the store's writes at start (the schema, the first game) are left out.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["StoreCost", "game_start_cost", "store_cost"]

CONFIG = """[game]
mode = "two"
pace = "step"
variant = "V2"
over_seconds = 0.2
[api]
tcp_port = 0
web_port = -1
trust_loopback_tcp = true
rate = 100000.0  # the bench measures the store, not the limiter
burst = 100000.0
"""


@dataclass(frozen=True, slots=True)
class StoreCost:
    """The store's cost of `presses` guided presses."""

    presses: int
    syncs: int | None  # fsync + fdatasync calls (None: no strace on this machine)
    write_bytes: int
    seconds: float

    def lines(self) -> list[str]:
        """The figures, for the benchmark's report."""
        n = max(self.presses, 1)
        syncs = (
            "fsync/fdatasync not counted (install strace)"
            if self.syncs is None
            else f"{self.syncs} fsync/fdatasync, {self.syncs / n:.2f} a press (aim <= 1.1)"
        )
        return [
            f"store, {self.presses} guided presses through the API on the simulator: {syncs}",
            f"store: {self.write_bytes / 1024:.0f} KiB written, "
            f"{self.write_bytes / n / 1024:.1f} KiB a press (aim <= 8 KiB)",
        ]


class _ApiLines:
    """Requests and their answers, one JSON line each, over a socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""
        self.n = 0

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.n += 1
        line = json.dumps({"id": self.n, "cmd": cmd, "args": args}) + "\n"
        self.sock.sendall(line.encode())
        while True:
            while b"\n" not in self.buf:
                chunk = self.sock.recv(1 << 16)
                if not chunk:
                    raise RuntimeError("the daemon closed the connection")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\n", 1)
            msg = json.loads(raw)
            if msg.get("id") == self.n:
                if not msg.get("ok"):
                    raise RuntimeError(f"{cmd} {args}: {msg}")
                return msg  # type: ignore[no-any-return]


def _attach(strace: str, pid: int, summary: Path) -> subprocess.Popen[bytes]:
    """strace every thread of the running daemon, counting fsync and fdatasync."""
    cmd = [strace, "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(summary), "-p", str(pid)]
    tracer = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    tasks = Path(f"/proc/{pid}/task")
    while time.monotonic() < deadline:  # wait until every thread is traced
        if all(_tracer(task) for task in tasks.iterdir()):
            return tracer
        time.sleep(0.01)
    tracer.kill()
    raise RuntimeError("strace did not attach to the daemon")


def _tracer(task: Path) -> int:
    try:
        for line in (task / "status").read_text().splitlines():
            if line.startswith("TracerPid:"):
                return int(line.split()[1])
    except OSError:
        return 1  # the thread is gone: nothing to wait for
    return 0


def _write_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise RuntimeError(f"no write_bytes for {pid}")


def _syncs(summary: Path) -> int:
    total = 0
    for line in summary.read_text().splitlines():
        parts = line.split()
        if parts and parts[-1] in ("fsync", "fdatasync"):
            total += int(parts[3])  # % time, seconds, usecs/call, calls, [errors,] name
    return total


def _play(client: _ApiLines, presses: int, rng: random.Random) -> int:
    done = 0
    while done < presses:
        state = client.ask("state")["result"]["state"]
        if state["stage"] in ("none", "over"):
            client.ask("new_game", mode="two", pace="step", variant={"V2": True})
            continue
        if state["stage"] == "set":
            pit = "S1"
            client.ask("press", pit=pit, hold=True)  # a long move's counts: one hold
        else:
            pit = state.get("expect") or rng.choice(state["position"]["legal"])
            client.ask("press", pit=pit)
        done += 1
    return done


def _start_games(client: _ApiLines, games: int) -> int:
    for _ in range(games):
        client.ask("new_game", mode="two", pace="step", variant={"V2": True})
    return games


def store_cost(presses: int = 400, seed: int = 1) -> StoreCost:
    """Start the daemon, play `presses` guided presses, stop it; the store's cost of them.

    strace is attached after the daemon opened its store and first game and detached after
    the last press was answered, so the count is the presses' and nothing else's.
    """
    rng = random.Random(seed)
    return _measure(lambda client: _play(client, presses, rng))


def game_start_cost(games: int = 20) -> StoreCost:
    """The store's cost of `games` game starts through the API (`presses` counts them)."""
    return _measure(lambda client: _start_games(client, games))


def _measure(play: Callable[[_ApiLines], int]) -> StoreCost:
    strace = shutil.which("strace")
    with tempfile.TemporaryDirectory(prefix="kiothi-store-bench-") as tmp:
        root = Path(tmp)
        (root / "c.toml").write_text(CONFIG)
        summary = root / "strace.txt"
        cmd = [sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-terminal",
               "--config", str(root / "c.toml"), "--state-dir", str(root / "state")]  # fmt: skip
        log = open(root / "daemon.log", "wb")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, cwd=tmp)
        try:
            port = _tcp_port(root / "daemon.log", time.monotonic() + 60)
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                client = _ApiLines(sock)
                client.ask("state")  # the game the daemon opened is written: start here
                tracer = _attach(strace, proc.pid, summary) if strace else None
                before, t0 = _write_bytes(proc.pid), time.perf_counter()
                played = play(client)
                client.ask("state")  # every press's step is committed before it answers
                os.sync()  # written back: write_bytes counts what reached the disk layer
                written, seconds = _write_bytes(proc.pid) - before, time.perf_counter() - t0
                if tracer is not None:
                    tracer.send_signal(signal.SIGINT)  # detach and write the summary
                    tracer.wait(timeout=30)
        finally:
            _stop(proc)
            log.close()
        syncs = _syncs(summary) if strace else None
    return StoreCost(played, syncs, written, seconds)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the daemon; killed if it hangs, so a failure above is the one reported."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _tcp_port(log: Path, deadline: float) -> int:
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if "api: TCP on " in line:
                return int(line.rsplit(":", 1)[1])
        time.sleep(0.02)
    raise RuntimeError("the daemon did not open its TCP door:\n" + log.read_text())
