"""Fleet fixtures: a private mosquitto with users and an ACL, and board daemons as processes."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Mosquitto
from tests.conftest import wait_until as poll_until

USERS = {
    "staff": "staff-secret-pass",  # may read everything and command every board
    "visitor": "visitor-pass",  # may read, never command
    "b1": "b1-pass",  # each board writes only under its own name
    "b2": "b2-pass",
    "b3": "b3-pass",
}

ACL = """\
user staff
topic readwrite kiothi/v1/#

user visitor
topic read kiothi/v1/#

pattern readwrite kiothi/v1/%u/#
"""


def wait_until(pred: Callable[[], object], timeout: float, what: str) -> None:
    """The shared poll (tests/conftest.py), failing with what was awaited."""
    if not poll_until(pred, timeout):
        raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Broker(Mosquitto):
    """A mosquitto on a free loopback port, with the fleet's users and ACL."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, USERS, ACL)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path)
    b.start()
    yield b
    b.kill()


class BoardProcess:
    """One `kiothi-board run --sim` daemon reporting to a broker."""

    def __init__(self, root: Path, name: str, broker_url: str, *, keepalive: int = 2) -> None:
        self.name = name
        self.dir = root / name
        self.dir.mkdir()
        self.config = self.dir / "config.toml"
        self.config.write_text(
            '[game]\nmode = "two"\n'
            "[api]\ntcp_port = 0\nweb_port = 0\n"
            f'[mqtt]\nurl = "{broker_url}"\nboard_id = "{name}"\n'
            f'username = "{name}"\npassword = "{USERS.get(name, "")}"\n'
            f"keepalive = {keepalive}\ntrust_broker = true\nperiodic_s = 1\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *, autoplay: float | None = 0.2) -> None:
        cmd = [sys.executable, "-m", "kiothi_board", "run", "--sim", "--config", str(self.config)]
        cmd += ["--state-dir", str(self.dir / "state")]
        if autoplay is not None:
            cmd += ["--autoplay", str(autoplay)]
        log = open(self.dir / "daemon.log", "wb")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.alive():
            assert self.proc is not None
            self.proc.send_signal(sig)
            self.proc.wait(15)

    def log(self) -> str:
        return (self.dir / "daemon.log").read_text(errors="replace")


@pytest.fixture
def boards(tmp_path: Path, broker: Broker) -> Iterator[list[BoardProcess]]:
    procs = [BoardProcess(tmp_path, f"b{i}", broker.url) for i in (1, 2, 3)]
    for p in procs:
        p.start()
    yield procs
    for p in procs:
        p.stop()
