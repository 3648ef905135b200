"""Fleet fixtures: a private mosquitto with users and an ACL, and board daemons as processes."""

from __future__ import annotations

import getpass
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(pred: Callable[[], object], timeout: float, what: str) -> None:
    """The shared poll (tests/conftest.py), failing with what was awaited."""
    if not poll_until(pred, timeout):
        raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Broker:
    """A mosquitto on a free loopback port, with a password file and an ACL."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        passwords = root / "passwd"
        passwords.touch()
        for user, password in USERS.items():
            subprocess.run(
                ["mosquitto_passwd", "-b", str(passwords), user, password],
                check=True,
                capture_output=True,
            )
        (root / "acl").write_text(ACL)
        (root / "mosquitto.conf").write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous false\n"
            f"password_file {passwords}\n"
            f"acl_file {root / 'acl'}\n"
            "persistence false\n"
            # Run as whoever runs the tests: as root, mosquitto would drop to its own user,
            # which cannot read the test's private temporary directory.
            f"user {getpass.getuser()}\n"
            f"log_dest file {root / 'mosquitto.log'}\n"
        )
        os.chmod(passwords, 0o600)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["mosquitto", "-c", str(self.root / "mosquitto.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._listening, 10, "mosquitto to listen")

    def _listening(self) -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None


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
