"""Project-wide pytest options, fixtures and helpers.

Fixtures: the goldens flag, a gpiozero MockFactory, a fake clock, a recording pixel sink,
a pseudo-terminal pair, and the redis-servers and mosquitto brokers the tests start (and
kill) on free loopback ports: no test uses a service it did not start. `poll_until` is the
one bounded poll, for state in another process or thread that cannot notify us.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import settings

from kiothi_board.clock import FakeClock
from kiothi_board.hardware.fakes import FakePixelSink

T = TypeVar("T")

pytest_plugins = ("tests.cpu_times",)  # `--cpu-times DIR`: each test's CPU seconds

# Hypothesis fails an example that takes over 200 ms by default: on a loaded machine that is
# the machine, not the code. Properties are checked for what they say, never for speed.
settings.register_profile("kiothi", deadline=None)
settings.load_profile("kiothi")


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--update-goldens` rewrites golden files instead of comparing against them; `--soak`
    runs the long soaks (`make soak`) that `make test` leaves out."""
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="regenerate golden playthroughs (review the diff before committing)",
    )
    parser.addoption(
        "--soak",
        action="store_true",
        default=False,
        help="run only the long soaks marked `soak` (make soak); without it they are deselected",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Soaks run with `--soak` only, and then alone: deselected (and counted as such in the
    summary), never skipped, so a run says plainly what it left out."""
    soak = bool(config.getoption("--soak"))
    keep = [item for item in items if (item.get_closest_marker("soak") is not None) == soak]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The worker's shared Chromium (tests/browser.py) closes with the session."""
    from tests.browser import shutdown

    shutdown()


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to regenerate goldens."""
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture
def mock_factory() -> Iterator[Any]:
    """A gpiozero `MockFactory`, also installed as the default, reset and removed afterwards."""
    from gpiozero import Device  # type: ignore[import-untyped]
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    previous = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = previous


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock starting at 100 s (not 0, so a time of 0 stands out as a bug)."""
    return FakeClock(100.0)


@pytest.fixture
def pixel_sink() -> Iterator[FakePixelSink]:
    """A fake pixel sink (16 LEDs a ring) that records the last 5000 frames shown."""
    with FakePixelSink(leds_per_ring=16, keep=5000) as sink:
        yield sink


SERVICE_START_S = 30.0
"""How long a service the tests start may take to answer (a loaded machine is slow)."""


def poll_until(
    predicate: Callable[[], T], what: str, timeout: float = 30.0, every: float = 0.01
) -> T:
    """Poll `predicate` every `every` s until it is truthy, and return its value; after
    `timeout` s, fail with an AssertionError naming `what` was awaited.

    The one wait of the suite for what cannot notify us (another process, a server's
    state, a thread's progress): never a bare sleep. Wait on an event or advance the fake
    clock wherever possible.
    """
    found = _poll(predicate, timeout, every)
    if found is None:
        raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
    return found[0]


def wait_until(predicate: Callable[[], object], timeout: float = 30.0) -> bool:
    """`poll_until` for a caller that handles the timeout itself: True, or False when
    `timeout` seconds passed first."""
    return _poll(predicate, timeout, 0.01) is not None


def _poll(predicate: Callable[[], T], timeout: float, every: float) -> tuple[T] | None:
    """The poll itself: (the truthy value,), or None once `timeout` seconds passed."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()  # never set: a bounded pause between polls
    while True:
        value = predicate()
        if value:
            return (value,)
        if time.monotonic() >= deadline:
            return None
        pause.wait(every)


# -- a pseudo-terminal pair (the serial cable) ----------------------------------------------


class PtyPair:
    """A pseudo-terminal: `master` is the far end (a device, a client), `slave` the port.

    Unpacks as `master, slave = pair`; `close()` is idempotent, so a test may pull the
    cable itself.
    """

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo or newline mangling before pyserial opens the slave
        self.path = os.ttyname(self.slave)

    def __iter__(self) -> Iterator[int]:
        return iter((self.master, self.slave))

    def close(self) -> None:
        for name in ("master", "slave"):
            fd = getattr(self, name)
            if fd >= 0:
                setattr(self, name, -1)
                os.close(fd)


@pytest.fixture
def pty_pair() -> Iterator[PtyPair]:
    """A raw pseudo-terminal pair, closed after the test."""
    pair = PtyPair()
    try:
        yield pair
    finally:
        pair.close()


# -- redis-servers started by the tests -----------------------------------------------------


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
        """Start (or restart, on the same port) and wait until it answers PING."""
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        if self.directory is None:
            args += ["--appendonly", "no"]
        else:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
            args += ["--dir", str(self.directory)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_until(self._answers, SERVICE_START_S):
            self.kill()
            raise RuntimeError(f"redis-server on port {self.port} did not answer PING in time")
        return self

    def _answers(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError(f"redis-server on port {self.port} exited early")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

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
def make_redis_server() -> Iterator[type[RedisServer]]:
    """Start extra servers in a test (`make_redis_server(...).start()`); all are killed at
    teardown."""
    started: list[RedisServer] = []

    class Tracked(RedisServer):
        def start(self) -> RedisServer:
            if self not in started:
                started.append(self)
            return super().start()

    try:
        yield Tracked
    finally:
        for server in started:
            server.kill()


# -- mosquitto brokers started by the tests -------------------------------------------------


class Mosquitto:
    """A private mosquitto on a free loopback port: anonymous, or with users and an ACL.

    Runs as whoever runs the tests (as root, mosquitto would drop to its own user, which
    cannot read the test's private directory); keeps nothing on disk.
    """

    def __init__(
        self,
        root: Path,
        users: dict[str, str] | None = None,
        acl: str | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        """`extra`: more lines of mosquitto.conf (the shipped config's policy lines)."""
        assert shutil.which("mosquitto"), "needs mosquitto (scripts/setup-system.sh)"
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        lines = [f"listener {self.port} 127.0.0.1", "persistence false"]
        if users is None:
            lines.append("allow_anonymous true")
        else:
            passwords = root / "passwd"
            passwords.touch()
            for user, password in users.items():
                subprocess.run(
                    ["mosquitto_passwd", "-b", str(passwords), user, password],
                    check=True,
                    capture_output=True,
                )
            os.chmod(passwords, 0o600)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        if acl is not None:
            (root / "acl").write_text(acl)
            lines.append(f"acl_file {root / 'acl'}")
        lines += [*extra, f"user {getpass.getuser()}", f"log_dest file {root / 'mosquitto.log'}"]
        (root / "mosquitto.conf").write_text("\n".join(lines) + "\n")

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        """Start (or restart, on the same port) and wait until it accepts connections."""
        self.proc = subprocess.Popen(
            ["mosquitto", "-c", str(self.root / "mosquitto.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not wait_until(self._listening, SERVICE_START_S):
            self.kill()
            raise RuntimeError(f"mosquitto on port {self.port} did not listen in time")
        return self

    def _listening(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError(f"mosquitto on port {self.port} exited early (see its log)")
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    """One private anonymous broker for the session (tests use their own topic prefixes)."""
    broker = Mosquitto(tmp_path_factory.mktemp("mosquitto")).start()
    try:
        yield broker
    finally:
        broker.kill()
