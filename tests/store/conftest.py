"""Store fixtures: a real redis-server on a free port (started and killed by the tests)."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A private redis-server process; persistence only when given a directory."""

    def __init__(self, port: int | None = None, directory: Path | None = None) -> None:
        assert shutil.which("redis-server"), "needs redis-server (scripts/setup-system.sh)"
        self.port = port or free_port()
        self.directory = directory
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        if self.directory is None:
            args += ["--appendonly", "no"]
        else:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
            args += ["--dir", str(self.directory)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_ready()
        return self

    def _wait_ready(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        pause = threading.Event()
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server on port {self.port} exited early")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            pause.wait(0.01)  # bounded readiness poll
        raise RuntimeError(f"redis-server on port {self.port} did not answer PING in {timeout}s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=5)
        self.proc = None


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One private, non-persistent redis-server for the whole session."""
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def make_redis_server(tmp_path: Path) -> Iterator[type[RedisServer]]:
    """Start extra servers in a test; all are killed at teardown."""
    started: list[RedisServer] = []

    class Tracked(RedisServer):
        def start(self) -> RedisServer:
            started.append(self)
            return super().start()

    try:
        yield Tracked
    finally:
        for server in started:
            server.kill()
