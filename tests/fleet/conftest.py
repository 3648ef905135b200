"""Fleet fixtures: a private mosquitto with users and an ACL, and board daemons as processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kiothi_board.fleet.acl import SHIPPED_CONF
from kiothi_board.fleet.acl import fleet_acl as acl_for
from tests.conftest import Mosquitto, free_port, poll_until

USERS = {
    "staff": "staff-secret-pass",  # in every board's mqtt.staff_users: controls
    "frontdesk": "frontdesk-pass",  # staff too: a staff tool beside the dashboard
    "display": "display-pass",  # reads what the boards publish; a spectator on cmd/display
    "homeassistant": "ha-pass",
    "b1": "b1-pass",  # each board writes only under its own name
    "b2": "b2-pass",
    "b3": "b3-pass",
}


def fleet_acl(boards: tuple[str, ...] = ("b1", "b2", "b3")) -> str:
    """The shipped ACL as docs/fleet.md shows it, with a board block for each of `boards`
    (what `kiothi-board fleet --print-acl` prints): every other line is used as shipped."""
    return acl_for(boards)


ACL = fleet_acl()


def wait_until(pred: Callable[[], object], timeout: float, what: str) -> None:
    """The shared poll (tests/conftest.py `poll_until`), failing with what was awaited."""
    poll_until(pred, what, timeout)


# Lines of the shipped config the tests' broker does not take: the deployment's own (port,
# certificates, file paths: the fixture has its own), and max_packet_size, because the
# bounds tests send the board and the dashboard what a broker without it lets through.
_NOT_HERE = (
    "listener", "cafile", "certfile", "keyfile", "password_file", "acl_file", "max_packet_size",
)  # fmt: skip


def shipped_policy() -> tuple[str, ...]:
    """The shipped broker config's policy lines (`allow_anonymous false`,
    `use_username_as_clientid true`)."""
    text = SHIPPED_CONF.read_text()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return tuple(ln for ln in lines if ln.split()[0] not in _NOT_HERE)


class Broker(Mosquitto):
    """A mosquitto on a free loopback port, with the fleet's users, ACL and the shipped
    config's policy (`shipped=False`: without it, to show what it prevents)."""

    def __init__(self, root: Path, *, shipped: bool = True) -> None:
        super().__init__(root, USERS, ACL, shipped_policy() if shipped else ())


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path)
    b.start()
    yield b
    b.kill()


class BoardProcess:
    """One `kiothi-board run --sim` daemon reporting to a broker."""

    def __init__(
        self,
        root: Path,
        name: str,
        broker_url: str,
        *,
        keepalive: int = 2,
        api: str = "",
        staff: bool = True,
    ) -> None:
        self.name = name
        self.dir = root / name
        self.dir.mkdir()
        self.config = self.dir / "config.toml"
        self.config.write_text(
            '[game]\nmode = "two"\n'
            f"[api]\n{api or 'tcp_port = 0'}\nweb_port = 0\n"
            f'[mqtt]\nurl = "{broker_url}"\nboard_id = "{name}"\n'
            f'username = "{name}"\npassword = "{USERS.get(name, "")}"\n'
            f"keepalive = {keepalive}\nperiodic_s = 1\n"
            + ('staff_users = ["staff", "frontdesk"]\n' if staff else "")
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *, autoplay: float | None = 0.2) -> None:
        cmd = [sys.executable, "-m", "kiothi_board", "run", "--sim", "--config", str(self.config)]
        cmd += ["--state-dir", str(self.dir / "state")]
        if autoplay is not None:
            cmd += ["--autoplay", str(autoplay)]
        log = open(self.dir / "daemon.log", "wb")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.dir
        )  # cwd: `python -m` puts it first on sys.path (PYTHONPATH picks the code)

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


class DashboardProcess:
    """`kiothi-board fleet` as its own process, signed in to the broker as user `staff`."""

    def __init__(self, root: Path, broker: Broker, token: str, name: str = "dashboard") -> None:
        self.dir = root / name
        self.dir.mkdir(exist_ok=True)
        self.port = free_port()
        env = {**os.environ, "KIOTHI_FLEET_TOKEN": token}
        env["KIOTHI_FLEET_MQTT_PASSWORD"] = USERS["staff"]
        cmd = [sys.executable, "-m", "kiothi_board", "fleet", "--broker", broker.url]
        cmd += ["--username", "staff", "--port", str(self.port)]
        log = open(self.dir / "dashboard.log", "wb")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=root
        )  # cwd: `python -m` puts it first on sys.path
        wait_until(lambda: "fleet dashboard on" in self.log() or not self.alive(), 60, "dashboard")
        assert self.alive(), self.log()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss_mb(self) -> float:
        return rss_mb(self.proc.pid)

    def log(self) -> str:
        return (self.dir / "dashboard.log").read_text(errors="replace")

    def stop(self) -> None:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(15)


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB (from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
