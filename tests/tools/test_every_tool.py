"""Every `kiothi-board` subcommand (each benchmark too) and every `python -m` tool runs once,
at a tiny size, as a process (issue 30 item 18: `bench fleet` had crashed unseen with
`AttributeError: 'Daemon' object has no attribute 'mqtt'`, leaving its dashboard running).
The list comes from the CLI itself (`cli.subcommands()`) and from the tools' `__main__`
guards: a new command without a case here fails `test_every_command_has_a_case`.

Only what the user runs is checked here (it starts, does its work, exits 0, leaves no
process behind); the figures and behaviours have their own tests.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kiothi_board import cli
from kiothi_board.exhibit.words import ATTRACT
from kiothi_board.tools.seat_link import request
from tests.conftest import Mosquitto, poll_until

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "kiothi_board/tools"
QUIET_CONFIG = "[api]\ntcp_port = -1\nweb_port = -1\n"  # no fixed ports: other tests run too
RECORD = {"format": "kiothi-game/1", "variant": {}, "opening": ["pass", "pass"], "moves": []}

Case = Callable[[Path, Mosquitto], None]


def kiothi(*args: str, stdin: str | None = None, timeout: float = 60) -> str:
    """Run `kiothi-board ARGS` to its end; its stdout (exit status 0 asserted)."""
    done = subprocess.run(
        [sys.executable, "-m", "kiothi_board", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    return done.stdout


def until_line(proc: subprocess.Popen[str], want: str) -> None:
    """Read the process's stdout until a line holds `want` (it ends: fail)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if want in line:
            return
    raise AssertionError(f"ended (exit {proc.wait()}) before printing {want!r}")


def started(args: list[str], want: str, tmp: Path, ends: tuple[int, ...] = (0,)) -> None:
    """A long-running command: it prints `want`, then ends on SIGTERM with one of `ends`."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tmp,
    )
    try:
        until_line(proc, want)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) in ends
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def config(tmp: Path) -> str:
    path = tmp / "config.toml"
    path.write_text(QUIET_CONFIG)
    return str(path)


def left_running(marker: str) -> list[str]:
    """Processes whose command line holds `marker` (other than this one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in line:
            found.append(f"{entry.name}: {line}")
    return found


def bench_fleet(tmp: Path, broker: Mosquitto) -> None:
    out = kiothi(
        "bench", "fleet", "--broker", broker.url, "--boards", "2", "--seconds", "1",
        "--settle", "0.5", "--autoplay", "0.1",
    )  # fmt: skip
    assert "bench fleet: 2 simulated boards" in out and "messages published by the boards" in out
    assert left_running(f"fleet --broker {broker.url}") == [], "its dashboard still runs"


def run(tmp: Path) -> None:
    args = ["run", "--sim", "--no-terminal", "--trace", "--autoplay", "0.05"]
    args += ["--config", config(tmp), "--state-dir", str(tmp / "state")]
    started(args, '"stage": "guided_open"', tmp)


def answers(path: str) -> bool:
    """Whether the board answers a ping on the Unix socket `path` yet."""
    try:
        return bool(request(path, "ping", {})["ok"])
    except OSError:
        return False


def seat_link(tmp: Path) -> None:
    """A simulator with a Unix socket; `seat-link` asks it for a link and prints it."""
    sock = tmp / "api.sock"
    (tmp / "seat.toml").write_text(QUIET_CONFIG + f'unix_path = "{sock}"\n')
    args = ["run", "--sim", "--no-terminal", "--trace", "--config", str(tmp / "seat.toml")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", *args, "--state-dir", str(tmp / "state")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp,
    )
    try:
        poll_until(lambda: answers(str(sock)), "the simulator's Unix socket")
        out = kiothi("seat-link", "--side", "N", "--socket", str(sock), "--base", "http://b/")
        assert out.startswith("http://b/#seat=") and len(out.strip()) > 30
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def replay(tmp: Path, broker: Mosquitto) -> None:
    (tmp / "game.json").write_text(json.dumps(RECORD))
    assert kiothi("replay", str(tmp / "game.json")).count("\n") == 3  # start, two passes


def engine(tmp: Path, broker: Mosquitto) -> None:
    assert "keiok" in kiothi("engine", stdin="kei\nisready\nquit\n")


CASES: dict[str, Case] = {
    "replay": replay,
    "bench rules": lambda tmp, _: kiothi("bench", "rules", "--seconds", "0.05"),
    "bench ai": lambda tmp, _: kiothi("bench", "ai", "--positions", "1", "--time", "0.02"),
    "bench guide": lambda tmp, _: kiothi(
        "bench", "guide", "--presses", "3", "--games", "0", "--store-presses", "1"
    ),
    "bench api": lambda tmp, _: kiothi(
        "bench", "api", "--pings", "5", "--events", "20", "--subscribers", "1"
    ),
    "bench fleet": bench_fleet,
    "bench exhibit": lambda tmp, _: kiothi("bench", "exhibit", "--days", "1", "--visitors", "1"),
    "bench remote": lambda tmp, _: kiothi("bench", "remote", "--moves", "4"),
    "engine": engine,
    "match": lambda tmp, _: kiothi(
        "match", "level:1", "level:1", "--games", "1", "--movetime", "5", "--max-plies", "6"
    ),
    "run": lambda tmp, _: run(tmp),
    "seat-link": lambda tmp, _: seat_link(tmp),
    "fleet": lambda tmp, broker: started(
        ["fleet", "--broker", broker.url, "--port", "0", "--prefix", "kiothi-tools/v1"],
        "fleet dashboard on",
        tmp,
        (0, -signal.SIGTERM),  # the dashboard leaves SIGTERM's default
    ),
    "token": lambda tmp, _: kiothi("token"),
    "remote": lambda tmp, _: kiothi("remote", "--help"),
    "help": lambda tmp, _: kiothi("help", "--lang", "sw"),
    "pinout": lambda tmp, _: kiothi("pinout", "direct"),
    "bom": lambda tmp, _: kiothi("bom"),
    "doctor": lambda tmp, _: kiothi("doctor", "--no-leds", "--no-press", "--config", config(tmp)),
    "firmware": lambda tmp, _: kiothi("firmware", "install", "--dry-run"),
    "i18n": lambda tmp, _: kiothi("i18n", "check"),
    "voice": lambda tmp, _: kiothi(
        "voice", "say", "--lang", "sw", "--sim", "--message", str(ATTRACT)
    ),
    "leds": lambda tmp, _: kiothi("leds", "off", "--config", config(tmp)),
    "guide-pictures": lambda tmp, _: kiothi("guide-pictures", str(tmp / "pictures")),
    "python -m kiothi_board.tools.tune": lambda tmp, _: tool(
        "tune", "--depth", "1", "--plies", "4", "--pairs", "1"
    ),
}


def tool(name: str, *args: str) -> None:
    """`python -m kiothi_board.tools.NAME ARGS` to its end, exit status 0."""
    done = subprocess.run(
        [sys.executable, "-m", f"kiothi_board.tools.{name}", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def python_m_tools() -> list[str]:
    """The tools run as `python -m` (a `__main__` guard), but those the CLI runs too."""
    guarded = sorted(
        path.stem for path in TOOLS.glob("*.py") if '__name__ == "__main__"' in path.read_text()
    )
    via_cli = {"guide_pictures"}  # kiothi-board guide-pictures
    return [f"python -m kiothi_board.tools.{name}" for name in guarded if name not in via_cli]


def test_every_command_has_a_case() -> None:
    assert set(CASES) == {*cli.subcommands(), *python_m_tools()}


@pytest.mark.parametrize("name", list(CASES))
def test_each_command_runs_once(name: str, tmp_path: Path, mosquitto: Mosquitto) -> None:
    CASES[name](tmp_path, mosquitto)
