"""A board for simulated exhibition days: a real daemon process on fake time.

`BoardProcess` starts `kiothi-board run --fake-clock …` with the simulated pit input and,
for its LEDs, a simulated co-processor on a pseudo-terminal (so the link can be unplugged
and replugged); it can be SIGKILLed and restarted at the same fake wall time. The crowd
that plays it is in `exhibit_crowd`. Used by the simulated-day test and by
`kiothi-board bench exhibit`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path
from typing import Any

from kiothi_board.hardware.link_sim import FdPort, SimulatedCoprocessor

__all__ = ["PIN", "PITS", "TOKEN", "ZONE", "BoardProcess", "Client", "config_text"]

OPEN_H, CLOSE_H = 9, 18  # the museum's hours (local)
QUIET = "12:30-13:15"
ZONE = "Europe/Paris"
IDLE_S, COUNTDOWN_S, HINT_S, TWO_S, OVER_S, HOLD_S = 60, 15, 30, 3, 5, 1.0
EXTRA_ENV = dict(e.split("=", 1) for e in os.environ.get("DAY_ENV", "").split() if "=" in e)
TOKEN = "museum-staff-token-0123456789"
PIN = "97531086"  # the curators' PIN on the operator page
PITS = [f"S{i}" for i in range(1, 11)] + [f"N{i}" for i in range(1, 11)]


VOICE = """
[voice]
enabled = true
output = "sim"            # the worker and its queue as on a board; the lines go to stdout
what = ["guide", "events", "accessibility"]
"""


def config_text(state: Path, port: str, *, voice: bool = False) -> str:
    """The museum's config for the day (a short ply limit keeps full games short); `voice`:
    the board speaks (`bench exhibit --voice`)."""
    return (
        (VOICE if voice else "")
        + f"""
[board]
input = "coprocessor"     # the buttons on the co-processor (the LEDs on the Pi itself)
port = "{port}"
heartbeat_timeout = 5.0     # real time: a loaded machine may be seconds late to read
hold_s = {HOLD_S}
language = "en"
languages = ["en", "sw"]   # visitors switch with S9+S10
[leds]
output = "sim"
[game]
over_seconds = {OVER_S}
[exhibit]
enabled = true
timezone = "{ZONE}"
opening_hours = ["daily {OPEN_H:02d}:00-{CLOSE_H:02d}:00"]
quiet_hours = ["{QUIET}"]
brightness = ["09:00=0.8", "16:00=0.5"]
idle_s = {IDLE_S}
countdown_s = {COUNTDOWN_S}
hint_after_s = {HINT_S}
two_player_s = {TWO_S}
level = 1
variant = "ply_limit=30"
[api]
tcp_port = -1
web_port = 0
unix_path = "{state / "api.sock"}"
token = "{TOKEN}"
staff_pin = "{PIN}"
rate = 100000             # the test drives the board far faster than a person
burst = 1000000
[daemon]
log_level = "warning"
"""
    )


class Client:
    """A blocking JSON-lines client on the daemon's Unix socket (events are skipped)."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(30)
        self.sock.connect(str(path))
        self.file = self.sock.makefile("rwb")
        self.n = 0

    def __call__(self, cmd: str, **args: Any) -> dict[str, Any]:
        """The result of a command; an error reply raises."""
        self.n += 1
        self.file.write(json.dumps({"id": self.n, "cmd": cmd, "args": args}).encode() + b"\n")
        self.file.flush()
        while True:
            line = self.file.readline()
            if not line:
                raise ConnectionError(f"daemon closed the socket during {cmd}")
            msg = json.loads(line)
            if msg.get("id") == self.n:
                if not msg["ok"]:
                    raise AssertionError(f"{cmd} {args}: {msg['error']}")
                result: dict[str, Any] = msg["result"]
                return result

    def close(self) -> None:
        self.file.close()
        self.sock.close()


class BoardProcess:
    """The daemon as a process, with its co-processor on a pty that outlives it."""

    def __init__(self, state: Path, wall: float, *, voice: bool = False) -> None:
        self.state = state
        self.wall = wall
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.slave = slave
        self.device = SimulatedCoprocessor(FdPort(self.master))
        self.config = state / "exhibit.toml"
        self.config.write_text(config_text(state, os.ttyname(slave), voice=voice))
        self.proc: subprocess.Popen[bytes] | None = None
        self.client: Client | None = None
        self.web_url = ""
        self.starts = 0

    def start(self) -> Client:
        sock = self.state / "api.sock"
        if sock.exists():
            sock.unlink()  # a SIGKILLed daemon leaves its socket behind
        err = open(self.state / f"daemon-{self.starts}.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kiothi_board", "run", "--config", str(self.config),
             "--state-dir", str(self.state), "--fake-clock", repr(self.wall),
             "--seed", str(self.starts), "--no-terminal"],
            stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, **EXTRA_ENV},
        )  # fmt: skip
        err.close()
        self.starts += 1
        ready = threading.Event()
        deadline = time.monotonic() + 60
        while not sock.exists() or "web page is at " not in self._log():
            assert self.proc.poll() is None, self._log()
            assert time.monotonic() < deadline, "the daemon did not open its doors"
            ready.wait(0.02)  # bounded wait for a process to bind
        self.client = Client(sock)
        self.web_url = self._log().split("web page is at ")[1].split()[0]
        return self.client

    def _log(self) -> str:
        return (self.state / f"daemon-{self.starts - 1}.log").read_text(errors="replace")

    def rss_kb(self) -> int:
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def kill(self) -> None:
        """A power cut: SIGKILL, nothing flushed or closed by the daemon."""
        assert self.proc is not None and self.client is not None
        self.client.close()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.device.close()
        os.close(self.master)
        os.close(self.slave)
