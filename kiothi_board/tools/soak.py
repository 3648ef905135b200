"""`kiothi-board bench api --soak SECONDS`: the real daemon under mixed hostile clients.

Starts `kiothi-board run --sim --autoplay` as a child process (loopback only, free ports),
then for SECONDS runs: readers (subscribed, asking for state and pages), non-readers (big
pages, never read: cut off by their budget, then back), reconnecting clients, clients
sending malformed and over-long lines, and an HTTP poller. It prints the daemon's RSS, open
descriptors and `ping` latency (p50/p99 of a reading client) at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kiothi_board.helptext import DefaultsFormatter

__all__ = ["main"]

TOKEN = "soak-bench-token-0123456789"


def _fill_store(state: Path, games: int = 200) -> None:
    """Finished games, so that a `games.list` page of 200 is a big reply (~45 KB)."""
    from kiothi_board.store.sqlite import SqliteStore

    state.mkdir(parents=True, exist_ok=True)
    with SqliteStore(state / "games.sqlite3") as store:
        for i in range(games):
            gid = store.begin_game({"mode": "two", "humans": "SN", "note": "soak"})
            store.finish_game(gid, {"format": "kiothi-game/1", "result": {"winner": "S"}, "i": i})


class _Daemon:
    def __init__(self, tmp: Path) -> None:
        _fill_store(tmp / "state")
        conf = tmp / "soak.toml"
        conf.write_text(
            f'[api]\ntcp_port = 0\nweb_port = 0\ntoken = "{TOKEN}"\nhealth_interval = 5\n'
            '[game]\nmode = "ai"\nlevel = 1\npace = "instant"\nover_seconds = 0.2\n'
        )
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-terminal",
                "--autoplay", "0.05", "--config", str(conf), "--state-dir", str(tmp / "state"),
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.tcp = self.web = 0
        self.log_bytes = 0
        self.cut_offs = 0
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stderr is not None
            for raw in self.proc.stderr:
                line = raw.decode("utf-8", "replace")
                self.log_bytes += len(raw)
                if "api: TCP on " in line:
                    self.tcp = int(line.rsplit(":", 1)[1])
                elif "api: web on http://" in line:
                    self.web = int(line.rstrip().rstrip("/").rsplit(":", 1)[1])
                elif "over its budget" in line:
                    self.cut_offs += 1
                if self.tcp and self.web:
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(30) or not self.tcp:
            self.proc.kill()
            raise RuntimeError("the daemon did not start")

    def status(self, field: str) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return -1

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _line(rid: int, cmd: str, args: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"id": rid, "cmd": cmd}
    if args:
        msg["args"] = args
    return json.dumps(msg).encode() + b"\n"


class _Conn:
    """A blocking JSON-lines client that reads every reply."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")
        self.next = 0

    def request(self, cmd: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next += 1
        self.sock.sendall(_line(self.next, cmd, args))
        while True:
            raw = self.file.readline()
            if not raw:
                raise ConnectionError("closed")
            msg: dict[str, Any] = json.loads(raw)
            if msg.get("id") == self.next:
                return msg

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def _latency(port: int, count: int = 300) -> tuple[float, float]:
    conn = _Conn(port)
    times = []
    for _ in range(count):
        t = time.perf_counter()
        conn.request("ping")
        times.append(time.perf_counter() - t)
    conn.close()
    times.sort()
    return times[len(times) // 2] * 1000, times[int(len(times) * 0.99)] * 1000


def _reader(port: int, stop: threading.Event, stats: dict[str, int]) -> None:
    while not stop.is_set():
        try:
            conn = _Conn(port)
            conn.request("hello", {"token": TOKEN, "client": "soak-reader"})
            conn.request("subscribe")
            while not stop.wait(0.05):
                conn.request("state")
                conn.request("games.list", {"limit": 20})
                stats["reads"] += 2
            conn.close()
        except (OSError, ValueError):
            stats["errors"] += 1
            stop.wait(0.5)


def _non_reader(port: int, stop: threading.Event, stats: dict[str, int]) -> None:
    big = _line(1, "games.list", {"limit": 200})
    while not stop.is_set():
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            sock.connect(("127.0.0.1", port))
            while not stop.wait(0.02):  # at the rate limit, never reading
                sock.sendall(big)
        except OSError:
            stats["cut"] += 1
        finally:
            sock.close()
        stop.wait(1.0)


def _reconnecting(port: int, stop: threading.Event, stats: dict[str, int]) -> None:
    while not stop.wait(0.1):
        try:
            conn = _Conn(port)
            conn.request("hello", {"client": "soak-reconnect"})
            conn.request("ping")
            conn.close()
            stats["reconnects"] += 1
        except (OSError, ValueError):
            stats["errors"] += 1


def _malformed(port: int, stop: threading.Event, stats: dict[str, int]) -> None:
    rng = random.Random(7)
    junk = [b"not json", b"{", b'{"id":1}', b"\xff\xfe", b"[1,2]", b"x" * 20_000, b'{"cmd":1}']
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                file = sock.makefile("rb")
                for _ in range(50):
                    if stop.wait(0.05):
                        break
                    sock.sendall(rng.choice(junk) + b"\n")
                    file.readline()
                    stats["malformed"] += 1
        except OSError:
            stats["errors"] += 1
            stop.wait(0.5)


def _http_poller(port: int, stop: threading.Event, stats: dict[str, int]) -> None:
    request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    while not stop.wait(0.5):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(request.encode())
                while sock.recv(65536):
                    pass
            stats["http"] += 1
        except OSError:
            stats["errors"] += 1


def _snapshot(daemon: _Daemon, label: str) -> int:
    rss = daemon.status("VmRSS")
    p50, p99 = _latency(daemon.tcp)
    print(
        f"  {label:5} RSS {rss / 1024:6.1f} MB   descriptors {daemon.fds():4}   "
        f"ping p50 {p50:6.3f} ms  p99 {p99:6.3f} ms",
        flush=True,
    )
    return rss


def main(argv: Sequence[str]) -> int:
    """Entry point of `kiothi-board bench api --soak SECONDS`."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board bench api --soak", formatter_class=DefaultsFormatter
    )
    parser.add_argument("api", nargs="?", help=argparse.SUPPRESS)
    parser.add_argument(
        "--soak", type=float, required=True, metavar="SECONDS", help="how long to soak"
    )
    parser.add_argument(
        "--warmup", type=float, default=10.0, metavar="SECONDS", help="seconds before measuring"
    )
    args = parser.parse_args(list(argv))
    stats = dict.fromkeys(("reads", "cut", "reconnects", "malformed", "http", "errors"), 0)
    workers: list[tuple[Callable[..., None], int]] = [
        (_reader, 4), (_non_reader, 2), (_reconnecting, 2), (_malformed, 2), (_http_poller, 1),
    ]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="kiothi-soak-") as tmp:
        daemon = _Daemon(Path(tmp))
        stop = threading.Event()
        threads = []
        try:
            for func, count in workers:
                port = daemon.web if func is _http_poller else daemon.tcp
                for _ in range(count):
                    t = threading.Thread(target=func, args=(port, stop, stats), daemon=True)
                    t.start()
                    threads.append(t)
            print(
                f"soak: {args.soak:.0f} s of mixed clients against the daemon "
                f"(pid {daemon.proc.pid}), after {args.warmup:.0f} s of warm-up",
                flush=True,
            )
            stop.wait(args.warmup)
            start = _snapshot(daemon, "start")
            stop.wait(args.soak)
            end = _snapshot(daemon, "end")
        finally:
            stop.set()
            for t in threads:
                t.join(5)
            daemon.close()
    print(
        f"  RSS growth {(end - start) / 1024:+.1f} MB; cut off (over budget) "
        f"{daemon.cut_offs}; log {daemon.log_bytes / 1024:.1f} KiB",
    )
    print("  clients: " + ", ".join(f"{k} {v}" for k, v in stats.items()))
    return 0
