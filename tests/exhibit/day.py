"""A simulated exhibition day: a real daemon process on fake time, a seeded crowd of visitors.

`BoardProcess` starts `kiothi-board run --fake-clock …` with the simulated pit input and,
for its LEDs, a simulated co-processor on a pseudo-terminal (so the link can be unplugged
and replugged); it can be SIGKILLed and restarted at the same fake wall time. `Crowd`
decides, from one seed, who arrives when and how they play. `Day` plays them through the
board and records what a recount needs.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import tty
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiothi_board.hardware.link_sim import FdPort, SimulatedCoprocessor

OPEN_H, CLOSE_H = 9, 18  # the museum's hours (local)
QUIET = "12:30-13:15"
ZONE = "Europe/Paris"
IDLE_S, COUNTDOWN_S, HINT_S, TWO_S, OVER_S, HOLD_S = 60, 15, 30, 3, 5, 1.0
EXTRA_ENV = dict(e.split("=", 1) for e in os.environ.get("DAY_ENV", "").split() if "=" in e)
TOKEN = "museum-staff-token-0123456789"
PIN = "975310"  # the curators' PIN on the operator page
PITS = [f"S{i}" for i in range(1, 11)] + [f"N{i}" for i in range(1, 11)]


def config_text(state: Path, port: str) -> str:
    """The museum's config for the day (a short ply limit keeps full games short)."""
    return f"""
[board]
input = "coprocessor"     # the buttons on the co-processor (the LEDs on the Pi itself)
port = "{port}"
heartbeat_timeout = 1.0
hold_s = {HOLD_S}
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

    def __init__(self, state: Path, wall: float) -> None:
        self.state = state
        self.wall = wall
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.slave = slave
        self.device = SimulatedCoprocessor(FdPort(self.master), leds_per_ring=16)
        self.config = state / "exhibit.toml"
        self.config.write_text(config_text(state, os.ttyname(slave)))
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
        deadline = time.monotonic() + 20
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


@dataclass
class Visitor:
    """One arrival: when, and how they play."""

    at: float  # seconds after the day's start
    kind: str  # full, leave, pause, two, two-leave
    leave_after: int = 0  # presses before walking away
    wrong_rate: float = 0.05
    hint: bool = False


@dataclass
class Crowd:
    """A seeded day of visitors: arrivals while open, a mix of behaviours."""

    seed: int
    hours: float = 12.0
    start_h: int = 7
    visitors: list[Visitor] = field(default_factory=list)

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        t = (OPEN_H - self.start_h) * 3600 + rng.uniform(60, 600)
        close = (CLOSE_H - self.start_h) * 3600
        kinds = ["full"] * 8 + ["leave"] * 6 + ["pause"] * 2 + ["two"] * 3 + ["two-leave"] * 1
        while t < close - 900:
            kind = rng.choice(kinds)
            self.visitors.append(
                Visitor(t, kind, leave_after=rng.randint(3, 60),
                        wrong_rate=rng.choice([0.0, 0.03, 0.08]), hint=rng.random() < 0.4)
            )  # fmt: skip
            t += rng.expovariate(1 / 1800)  # one visitor every half hour on average


class Stuck(AssertionError):
    """The board stayed in a phase that should have left by time."""


class Day:
    """Plays a crowd through a board process and keeps what the invariants need."""

    def __init__(self, board: BoardProcess, crowd: Crowd, kills: list[float],
                 unplug_at: float) -> None:  # fmt: skip
        self.board = board
        self.crowd = crowd
        self.rng = random.Random(crowd.seed + 1)
        self.kills = sorted(kills)
        self.unplug_at = unplug_at
        self.t = 0.0
        self.ask = board.start()
        self.state: dict[str, Any] = self.ask("sim.advance", seconds=0.0)
        self.sent = dict.fromkeys(PITS, 0)
        self.hints_asked = 0
        self.game_ids: set[int] = set()
        self.kinds: dict[str, int] = {}
        self.rss: list[tuple[int, float, int]] = []  # (process, fake s, RSS kB)
        self.killed_at: list[float] = []
        self.records_before_kill: list[dict[int, Any]] = []
        self.link_seen: list[str] = []
        self.phases: set[str] = set()
        self.countdowns: list[float] = []
        self._next_hour = 3600.0

    # ------------------------------------------------------------------ time
    def advance(self, seconds: float, step: float = 1.0, press: str | None = None) -> dict:
        args: dict[str, Any] = {"seconds": seconds, "step": step}
        if press is not None:
            args["press"] = press
            self.sent[press] += 1
        self.state = self.ask("sim.advance", **args)
        self.t += seconds
        self.board.wall = self.state["wall"]
        ex = self.state["exhibit"]
        self.phases.add(ex["phase"])
        if ex["countdown"] is not None:
            self.countdowns.append(ex["countdown"])
        if self.t >= self._next_hour:
            self._next_hour += 3600.0
            self.rss.append((self.board.starts, self.t, self.board.rss_kb()))
        if self.kills and self.t >= self.kills[0]:
            self.kills.pop(0)
            self.power_cut()
        if self.unplug_at and self.t >= self.unplug_at:
            self.unplug_at = 0.0
            self.unplug_and_replug()
        return self.state

    def phase(self) -> str:
        return str(self.state["exhibit"]["phase"])

    def idle_until(self, t: float) -> None:
        """Nobody at the board until `t`: the board must rest (never stuck in a game)."""
        limit = IDLE_S + COUNTDOWN_S + OVER_S + 30
        since_game = None
        while self.t < t:
            self.advance(min(600.0, t - self.t), step=15.0)
            if self.phase() in ("playing", "countdown", "waking"):
                since_game = self.t if since_game is None else since_game
                if self.t - since_game > limit:
                    raise Stuck(f"{self.phase()} for {self.t - since_game:.0f} s with nobody there")
            else:
                since_game = None

    # ------------------------------------------------------------------ faults
    def power_cut(self) -> None:
        self.records_before_kill.append(self.finished_records())
        self.killed_at.append(self.t)
        self.board.kill()
        self.ask = self.board.start()
        self.state = self.ask("sim.advance", seconds=0.0)
        after = self.finished_records()
        lost = {k: v for k, v in self.records_before_kill[-1].items() if after.get(k) != v}
        assert not lost, f"records lost or changed across the kill: {sorted(lost)}"

    def unplug_and_replug(self) -> None:
        device = self.board.device
        hellos = device.hellos
        device.go_silent()  # the cable is pulled: not a byte more
        self.link_seen.append(self._wait_link("down"))
        device.resume()
        self.link_seen.append(self._wait_link("up"))
        assert device.hellos > hellos, "the daemon greeted the device again"
        self.advance(2.0, step=0.5)

    def _wait_link(self, want: str) -> str:
        deadline = time.monotonic() + 10.0
        pause = threading.Event()
        while time.monotonic() < deadline:  # the link's heartbeat runs on real time
            link = self.ask("health")["exhibit"]["link"]
            if link and link["state"] == want:
                return want
            pause.wait(0.05)
        raise AssertionError(f"link never went {want}")

    def finished_records(self) -> dict[int, Any]:
        out: dict[int, Any] = {}
        offset = 0
        while True:
            page = self.ask("games.list", limit=100, offset=offset)["games"]
            for g in page:
                if g["status"] != "current":
                    out[g["id"]] = (g["status"], g["result"], g["finished"])
            if len(page) < 100:
                return out
            offset += 100

    # ------------------------------------------------------------------ visitors
    def confirm_reset(self) -> None:
        if self.phase() == "reset":
            pit = self.rng.choice(PITS)
            self.sent[pit] += 1
            self.ask("sim.hold", pit=pit, seconds=HOLD_S + 0.2)
            self.advance(1.0)
            assert self.phase() in ("attract", "closed"), self.state

    def serve(self, v: Visitor) -> None:
        self.idle_until(v.at)
        if self.phase() == "closed":
            return
        self.confirm_reset()
        self.kinds[v.kind] = self.kinds.get(v.kind, 0) + 1
        south, north = self.rng.choice(PITS[:10]), self.rng.choice(PITS[10:])
        if v.kind.startswith("two"):
            self.advance(1.0, press=south)
            self.advance(TWO_S + 1.0, press=north)
            assert self.state["mode"] == "two", self.state
        else:
            self.advance(TWO_S + 1.0, press=self.rng.choice([south, north]))
            assert self.state["mode"] == "ai", self.state
        assert self.phase() == "playing" and self.state["game_id"], self.state
        self.game_ids.add(int(self.state["game_id"]))
        self.play(v)

    def play(self, v: Visitor) -> None:
        presses = 0
        guard = 0
        while self.phase() in ("playing", "countdown"):
            guard += 1
            assert guard < 5000, f"a game that never ends: {self.state}"
            st = self.state
            if st["stage"] in ("over", "none", None):
                self.advance(1.0)  # the result shows, then the board asks for a reset
                continue
            leaving = v.kind.endswith("leave") and presses >= v.leave_after
            if leaving:
                self.walk_away()
                return
            if v.kind == "pause" and presses == v.leave_after:
                self.advance(HINT_S + 5.0, step=1.0)  # a long think: a hint is offered
                presses += 1
                continue
            if v.hint and presses >= 6 and st["stage"] == "turn" and not st["ai_to_move"]:
                v.hint = False
                self.ask("hint")  # from the page (or the hint button), then a look at it
                self.hints_asked += 1
                self.advance(1.0, step=0.5)
                presses += 1
                continue
            pit = self.choose(st, v)
            if pit is None:
                self.advance(0.5, step=0.5)
                continue
            if pit == "hold":
                self.sent[st["legal"][0]] += 1
                self.ask("sim.hold", pit=st["legal"][0], seconds=HOLD_S + 0.1)
                self.advance(0.5, step=0.5)
            else:
                self.advance(0.8, step=0.8, press=pit)
            presses += 1
            self.game_ids.add(int(self.state["game_id"] or 0))

    def choose(self, st: dict[str, Any], v: Visitor) -> str | None:
        if self.rng.random() < v.wrong_rate:
            return self.rng.choice(PITS)  # a wrong press (or, by luck, the right one)
        if st["expect"]:
            return str(st["expect"])
        if st["ai_to_move"] or not st["legal"]:
            return None
        if st["stage"] == "open":
            return "hold"  # a hold on an own pit passes the opening (R3)
        if st["stage"] == "set":
            return "hold"  # a long move: the words say "set the pits, then hold any pit"
        return str(self.rng.choice(st["legal"]))

    def walk_away(self) -> None:
        """Nobody presses: the countdown shows, runs out, the game is abandoned."""
        start = self.t
        while self.phase() != "reset":
            self.advance(2.0, step=1.0)
            if self.t - start > IDLE_S + COUNTDOWN_S + 20:
                raise Stuck(
                    f"an abandoned game still {self.phase()} after {self.t - start} s: {self.state}"
                )

    def run(self) -> None:
        self.advance(300.0, step=5.0)  # 07:05: staff switch the board on and confirm the reset
        self.confirm_reset()
        for v in self.crowd.visitors:
            self.serve(v)
        self.idle_until(self.crowd.hours * 3600)
