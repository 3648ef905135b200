"""`kiothi-board bench api`: round-trip latency per transport and event fan-out rate.

Runs the real servers (serial over a pseudo-terminal, TCP, Unix socket, WebSocket) in
this process against a real controller on fake drivers, so the figures measure the API and not the
game: `ping` round trips one at a time (p50/p99), then events delivered to 10
subscribers over TCP (events/s per subscriber and in all).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import select
import socket
import statistics
import tempfile
import threading
import time
import tty
from collections.abc import Callable, Sequence

from kiothi_board.api.doors import start_api
from kiothi_board.board import Board
from kiothi_board.clock import SystemClock
from kiothi_board.controller import random_opponents
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.store.memory import MemoryStore

__all__ = ["main", "percentile"]


def percentile(values: Sequence[float], q: float) -> float:
    """The `q`-th percentile (0–100) by nearest rank."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


class _Lines:
    """Blocking line reader over a recv function."""

    def __init__(self, recv: Callable[[], bytes]) -> None:
        self._recv = recv
        self._buf = b""

    def line(self) -> bytes:
        while b"\n" not in self._buf:
            data = self._recv()
            if not data:
                raise ConnectionError("closed")
            self._buf += data
        line, _, self._buf = self._buf.partition(b"\n")
        return line


def _pings(send: Callable[[bytes], object], lines: _Lines, n: int) -> list[float]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        send(b'{"id":%d,"cmd":"ping"}\n' % i)
        while b'"id":%d,' % i not in lines.line():
            pass
        out.append(time.perf_counter() - t0)
    return out


def _socket_pings(sock: socket.socket, n: int) -> list[float]:
    sock.setsockopt(
        socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
    ) if sock.family != socket.AF_UNIX else None
    return _pings(sock.sendall, _Lines(lambda: sock.recv(65536)), n)


def _pty_pings(master: int, n: int) -> list[float]:
    def recv() -> bytes:
        select.select([master], [], [], 5.0)
        return os.read(master, 65536)

    return _pings(lambda b: os.write(master, b), _Lines(recv), n)


async def _ws_pings(port: int, n: int) -> list[float]:
    import aiohttp

    out = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
    ):
        for i in range(n):
            t0 = time.perf_counter()
            await ws.send_str(json.dumps({"id": i, "cmd": "ping"}))
            while json.loads((await ws.receive()).data).get("id") != i:
                pass
            out.append(time.perf_counter() - t0)
    return out


def _fanout(port: int, service: Board, subscribers: int, events: int) -> float:
    """Seconds until every subscriber has received `events` events."""
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(subscribers)]
    readers = [_Lines(lambda s=s: s.recv(1 << 16)) for s in socks]  # type: ignore[misc]
    for s, r in zip(socks, readers, strict=True):
        s.sendall(b'{"id":"s","cmd":"subscribe","args":{"topics":["hint"]}}\n')
        r.line()
    done = threading.Barrier(subscribers + 1)

    def drain(r: _Lines) -> None:
        for _ in range(events):
            r.line()
        done.wait()

    threads = [threading.Thread(target=drain, args=(r,), daemon=True) for r in readers]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    for i in range(events):
        service.loop.listeners.emit({"type": "hint", "pit": "S1", "n": i})
    done.wait(timeout=120)
    elapsed = time.perf_counter() - t0
    for s in socks:
        s.close()
    return elapsed


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kiothi-board bench api", formatter_class=DefaultsFormatter
    )
    parser.add_argument("--pings", type=int, default=2000, help="round trips per transport")
    parser.add_argument("--events", type=int, default=20000, help="events for the fan-out")
    parser.add_argument("--subscribers", type=int, default=10, help="clients for the fan-out")
    # Run by tools/soak.py (cli.py sends `--soak` there); listed here so --help shows it.
    parser.add_argument(
        "--soak",
        type=float,
        metavar="SECONDS",
        help="instead of the figures: run the real daemon under mixed clients (readers, "
        "slow readers, reconnects, malformed lines, HTTP polls) for SECONDS and check it "
        "stays up and lean (docs/api.md, Soak)",
    )
    parser.add_argument(
        "--warmup", type=float, default=10.0, metavar="SECONDS", help="with --soak: warm-up"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Print p50/p99 round-trip latency per transport and the fan-out rate."""
    args = _parser().parse_args(argv)
    service = Board(
        sink=FakePixelSink(keep=1),
        clock=SystemClock(),
        store=MemoryStore(),
        opponent_factory=random_opponents(random.Random(1)),
        resume=False,
    )
    master, slave = os.openpty()
    tty.setraw(slave)
    with tempfile.TemporaryDirectory() as tmp:
        unix_path = os.path.join(tmp, "api.sock")
        config = {
            "tcp_port": 0,
            "unix_path": unix_path,
            "web_port": 0,
            "serial": [os.ttyname(slave)],
            "rate": 1e9,
            "burst": 1e9,
            "outbox_limit": args.events + 10,
            "health_interval": 0,
        }
        print(
            f"kiothi-board bench api: {platform.python_implementation()} "
            f"{platform.python_version()} on {platform.machine()}, the board loop on fake drivers, "
            f"{args.pings} pings per transport"
        )
        with service.start(), start_api(service, config) as server:
            assert server.tcp_port is not None and server.web_port is not None
            results: dict[str, list[float]] = {}
            results["serial (pty)"] = _pty_pings(master, args.pings)
            with socket.create_connection(("127.0.0.1", server.tcp_port)) as s:
                results["tcp"] = _socket_pings(s, args.pings)
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(unix_path)
                results["unix"] = _socket_pings(s, args.pings)
            results["websocket"] = asyncio.run(_ws_pings(server.web_port, args.pings))
            for name, values in results.items():
                print(
                    f"  {name:13} round trip  p50 {percentile(values, 50) * 1e3:7.3f} ms"
                    f"  p99 {percentile(values, 99) * 1e3:7.3f} ms"
                    f"  mean {statistics.fmean(values) * 1e3:7.3f} ms"
                )
            elapsed = _fanout(server.tcp_port, service, args.subscribers, args.events)
            rate = args.events / elapsed
            print(
                f"  fan-out: {args.events} events to {args.subscribers} TCP subscribers in "
                f"{elapsed:.2f} s: {rate:,.0f} events/s each, "
                f"{rate * args.subscribers:,.0f} deliveries/s in all"
            )
    os.close(master)
    os.close(slave)
    return 0
