"""`kiothi-board bench fleet`: many simulated boards, one broker, the real dashboard.

N daemons (simulated boards playing by themselves, MQTT adapter on) run in this process;
the fleet dashboard runs as its own process (`kiothi-board fleet`), so its CPU time and
memory are its own; a WebSocket client stands in for the staff's browser. Latency is
end to end: from the moment a board's dispatcher publishes an event to the moment the
dashboard's WebSocket delivers the update that carries it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kiothi_board.helptext import DefaultsFormatter

__all__ = ["main"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _proc_usage(pid: int) -> tuple[float, float]:
    """(CPU seconds, RSS MB) of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = 0.0
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
    return cpu, rss


def _boards(n: int, broker: str, prefix: str, root: Path, autoplay: float) -> list[Any]:
    from kiothi_board.config import validate
    from kiothi_board.daemon import Daemon

    boards = []
    for i in range(n):
        cfg = validate(
            {
                "game": {"mode": "two", "pace": "step"},
                "api": {"tcp_port": -1, "web_port": -1},
                "mqtt": {"url": broker, "board_id": f"bench-{i:02d}", "prefix": prefix},
            }
        )
        boards.append(
            Daemon(cfg, sim=True, state_dir=str(root / f"b{i}"), autoplay=autoplay, seed=i)
        )
    return boards


def _tick(boards: list[Any], stop: threading.Event) -> None:
    while not stop.is_set():
        for board in boards:
            board.tick()
        stop.wait(0.02)


async def _watch(url: str, sent: dict[tuple[str, int], float], seconds: float) -> list[float]:
    import aiohttp

    latencies: list[float] = []
    last: dict[str, int] = {}
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = await ws.receive(timeout=left)
            except TimeoutError:
                break
            now = time.monotonic()
            data = json.loads(msg.data)
            if data.get("type") != "board":
                continue
            board = data["board"]
            name = board["board"]
            for event in board["events"]:
                seq = event.get("seq", 0)
                if seq > last.get(name, 0) and (name, seq) in sent:
                    latencies.append(now - sent[(name, seq)])
                    last[name] = seq
    return latencies


def main(argv: Sequence[str]) -> int:
    """Run the fleet benchmark and print its figures."""
    p = argparse.ArgumentParser(
        prog="kiothi-board bench fleet",
        description=__doc__.split("\n")[0],
        formatter_class=DefaultsFormatter,
    )
    p.add_argument("--boards", type=int, default=50)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--broker", default="mqtt://127.0.0.1:1883")
    p.add_argument("--autoplay", type=float, default=0.5, help="seconds between presses per board")
    p.add_argument(
        "--settle", type=float, default=2.0, help="seconds for the boards to connect first"
    )
    p.add_argument(
        "--soak",
        type=float,
        metavar="SECONDS",
        help="instead: one board and the dashboard under hostile and normal clients on a "
        "private broker with the shipped ACL; prints RSS and the secrets readers saw",
    )
    args = p.parse_args(argv)
    if args.soak is not None:
        from kiothi_board.tools.bench_fleet_soak import soak

        return soak(args.soak)
    prefix = f"kiothi-bench-{uuid.uuid4().hex[:6]}/v1"
    port = _free_port()
    dashboard = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "fleet", "--broker", args.broker,
         "--prefix", prefix, "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    boards: list[Any] = []
    stop = threading.Event()
    ticker = threading.Thread(target=_tick, args=(boards, stop), daemon=True)
    try:
        assert dashboard.stdout is not None
        if not dashboard.stdout.readline():  # "fleet dashboard on …": it is listening
            print(f"bench fleet: the dashboard did not start (exit {dashboard.wait()})")
            return 1
        with tempfile.TemporaryDirectory() as tmp:
            boards += _boards(args.boards, args.broker, prefix, Path(tmp), args.autoplay)
            figures = _run(args, boards, dashboard.pid, port, ticker)
    finally:
        # Every child and thread is stopped, whatever failed: no dashboard left running.
        stop.set()
        if ticker.is_alive():
            ticker.join()
        for b in boards:
            b.close()
        dashboard.terminate()
        try:
            dashboard.wait(10)
        except subprocess.TimeoutExpired:
            dashboard.kill()
            dashboard.wait()
    _report(args, *figures)
    return 0


def _published(boards: list[Any]) -> int:
    """Messages the boards' MQTT doors published (their `health`'s mqtt.published)."""
    return sum(int(b.api.dispatcher.health()["mqtt"]["published"]) for b in boards)


def _run(
    args: argparse.Namespace, boards: list[Any], pid: int, port: int, ticker: threading.Thread
) -> tuple[list[float], int, float, tuple[float, float, float, float]]:
    """The measured run: latencies, messages published, seconds, the dashboard's usage."""
    sent: dict[tuple[str, int], float] = {}
    for b in boards:
        name = b.config["mqtt"]["board_id"]
        b.api.dispatcher.add_tap(
            lambda kind, msg, line, name=name: sent.__setitem__(
                (name, msg["seq"]), time.monotonic()
            )
        )
    time.sleep(args.settle)  # let every board connect and the dashboard fill its table
    cpu0, rss0 = _proc_usage(pid)
    published0 = _published(boards)
    ticker.start()
    started = time.monotonic()
    latencies = asyncio.run(_watch(f"http://127.0.0.1:{port}/ws", sent, args.seconds))
    elapsed = time.monotonic() - started
    cpu1, rss1 = _proc_usage(pid)
    published = _published(boards) - published0
    return latencies, published, elapsed, (cpu0, rss0, cpu1, rss1)


def _report(
    args: argparse.Namespace,
    latencies: list[float],
    published: int,
    elapsed: float,
    usage: tuple[float, float, float, float],
) -> None:
    cpu0, rss0, cpu1, rss1 = usage
    print(f"bench fleet: {args.boards} simulated boards, {elapsed:.1f} s, broker {args.broker}")
    print(f"  messages published by the boards: {published} ({published / elapsed:,.0f}/s)")
    if latencies:
        ms = sorted(x * 1000 for x in latencies)
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        print(
            f"  board -> dashboard latency over {len(ms)} events: "
            f"p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms"
        )
    else:
        print("  no event reached the dashboard")
    print(
        f"  dashboard process: CPU {100 * (cpu1 - cpu0) / elapsed:.1f} % of a core, "
        f"RSS {rss0:.1f} -> {rss1:.1f} MB"
    )
