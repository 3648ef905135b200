"""`kiothi-board bench fleet --soak SECONDS`: the fleet under attack for a while.

Starts a private mosquitto on a free loopback port with users and the shipped ACL
(`kiothi_board/fleet/kiothi.acl`), one board daemon (simulated, playing by itself, with a
token and `staff_users = ["staff"]`) and the fleet dashboard, each as its own process.
Normal clients: the staff act over MQTT and through a signed-in dashboard page, and a page
reads every update. Hostile clients: `display` subscribed to `#` (every secret it sees is
counted: it must see none) that also writes under the staff's name and as a fake board; a
compromised board account sending `[` x 100,000, 2 MB and garbage; pages that never read;
pages that guess the staff token. Prints the RSS of the board and the dashboard at start,
peak and end, what each client achieved, and the secrets seen (exit 1 unless 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from kiothi_board.fleet.acl import fleet_acl

__all__ = ["soak"]

USERS = ("staff", "display", "b1", "b2")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _wait(pred: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench fleet --soak: timed out waiting for {what}")
        time.sleep(0.1)


class _Setup:
    """The broker, the board and the dashboard as processes under one temporary root."""

    def __init__(self, root: Path) -> None:
        if not shutil.which("mosquitto"):
            raise SystemExit("bench fleet --soak: needs mosquitto (apt install mosquitto)")
        self.root = root
        self.passwords = {u: secrets.token_urlsafe(12) for u in USERS}
        self.token = secrets.token_urlsafe(24)
        self.fleet_token = secrets.token_urlsafe(24)
        self.mqtt_port, self.tcp_port, self.dash_port = (_free_port() for _ in range(3))
        self.procs: list[subprocess.Popen[bytes]] = []

    def _spawn(self, name: str, cmd: list[str], **kw: Any) -> subprocess.Popen[bytes]:
        log = open(self.root / f"{name}.log", "wb")  # noqa: SIM115 - lives with the process
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.root, **kw)
        self.procs.append(proc)
        return proc

    def start(self) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
        pw = self.root / "passwd"
        pw.touch(mode=0o600)
        for user, password in self.passwords.items():
            subprocess.run(["mosquitto_passwd", "-b", str(pw), user, password], check=True)
        (self.root / "acl").write_text(fleet_acl(["b1", "b2"]))
        conf = [f"listener {self.mqtt_port} 127.0.0.1", "persistence false"]
        conf += ["allow_anonymous false", f"password_file {pw}", f"acl_file {self.root / 'acl'}"]
        conf += [f"user {getpass.getuser()}"]
        (self.root / "mosquitto.conf").write_text("\n".join(conf) + "\n")
        self._spawn("mosquitto", ["mosquitto", "-c", str(self.root / "mosquitto.conf")])
        _wait(self._broker_up, 30, "mosquitto")
        (self.root / "b1.toml").write_text(
            f'[game]\nmode = "two"\n[api]\ntcp_port = {self.tcp_port}\nweb_port = -1\n'
            f'token = "{self.token}"\n[mqtt]\nurl = "mqtt://127.0.0.1:{self.mqtt_port}"\n'
            f'board_id = "b1"\nusername = "b1"\npassword = "{self.passwords["b1"]}"\n'
            'staff_users = ["staff"]\nperiodic_s = 2\n'
        )
        board = self._spawn("board", [sys.executable, "-m", "kiothi_board", "run", "--sim",
                                      "--no-terminal", "--config", str(self.root / "b1.toml"),
                                      "--state-dir", str(self.root / "state"),
                                      "--autoplay", "0.3"])  # fmt: skip
        env = {**os.environ, "KIOTHI_FLEET_TOKEN": self.fleet_token}
        env["KIOTHI_FLEET_MQTT_PASSWORD"] = self.passwords["staff"]
        env.pop("KIOTHI_BOARD_TOKEN", None)
        dash = self._spawn("dashboard", [sys.executable, "-m", "kiothi_board", "fleet",
                                         "--broker", f"mqtt://127.0.0.1:{self.mqtt_port}",
                                         "--username", "staff", "--port",
                                         str(self.dash_port)], env=env)  # fmt: skip
        _wait(lambda: "fleet dashboard on" in (self.root / "dashboard.log").read_text(), 60, "dash")
        return board, dash

    def _broker_up(self) -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.mqtt_port)) == 0

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(15)


def _mqtt(setup: _Setup, user: str) -> Any:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{user}-{uuid.uuid4().hex[:6]}")
    c.username_pw_set(user, setup.passwords[user])
    c.connect("127.0.0.1", setup.mqtt_port)
    c.loop_start()
    return c


def _broker_clients(setup: _Setup, stop: threading.Event, counts: dict[str, int]) -> None:
    """Staff over MQTT, the reader of everything, and the hostile accounts, until `stop`."""
    secrets_ = (setup.token.encode(), setup.fleet_token.encode(), b'"ticket"')
    display, staff, board2 = _mqtt(setup, "display"), _mqtt(setup, "staff"), _mqtt(setup, "b2")

    def seen(c: Any, u: Any, m: Any) -> None:
        counts["display_messages"] += 1
        others = "/cmd/" in m.topic or ("/reply/" in m.topic and m.topic[-8:] != "/display")
        if others or any(s in m.payload for s in secrets_):  # (its own replies are its own)
            counts["secrets_seen"] += 1

    def replied(c: Any, u: Any, m: Any) -> None:
        counts["staff_replies_ok" if b'"ok":true' in m.payload else "staff_replies_error"] += 1

    display.on_message = seen
    display.subscribe("#")
    staff.on_message = replied
    staff.subscribe("kiothi/v1/b1/reply/staff")
    hostile = [b"[" * 100_000, b"x" * 2_000_000, b'{"a":' * 30_000, b"\xff\xfe garbage"]
    i = 0
    while not stop.wait(0.5):
        i += 1
        value = 0.3 if i % 2 else 0.6
        staff.publish("kiothi/v1/b1/cmd/staff", json.dumps(
            {"id": i, "cmd": "settings.set", "args": {"brightness": value}}), qos=1)  # fmt: skip
        display.publish("kiothi/v1/b1/cmd/staff", b'{"id":1,"cmd":"new_game"}')
        display.publish("kiothi/v1/b1/cmd/display", hostile[i % 4])
        display.publish("kiothi/v1/fake/status", b"online", retain=True)
        board2.publish(f"kiothi/v1/b2/{('state', 'info', 'events')[i % 3]}", hostile[i % 4],
                       retain=i % 3 != 2)  # fmt: skip
        counts["hostile_mqtt"] += 5
    for c in (display, staff, board2):
        c.loop_stop()
        c.disconnect()


async def _pages(setup: _Setup, seconds: float, counts: dict[str, int]) -> None:
    """A staff page that reads and acts, ten that never read, ten that guess the token."""
    import aiohttp

    url = f"http://127.0.0.1:{setup.dash_port}/ws"
    end = time.monotonic() + seconds

    async def staff(http: aiohttp.ClientSession) -> None:
        async with http.ws_connect(url) as ws:
            await ws.send_json({"auth": setup.fleet_token})
            last = 0.0
            while time.monotonic() < end:
                with contextlib.suppress(TimeoutError):
                    msg = await ws.receive_json(timeout=1.0)
                    counts["page_updates"] += 1
                    counts["page_role_control"] += msg.get("role") == "control"
                if time.monotonic() - last > 2.0:
                    last = time.monotonic()
                    await ws.send_json(
                        {"action": "settings.set", "board": "b1", "args": {"brightness": 0.5}}
                    )

    async def guesser(http: aiohttp.ClientSession) -> None:
        with contextlib.suppress(aiohttp.ClientError, ConnectionError, TypeError):
            async with http.ws_connect(url) as ws:
                while time.monotonic() < end:
                    await ws.send_json({"auth": secrets.token_urlsafe(24)})
                    while (got := await ws.receive_json(timeout=30)).get("type") != "error":
                        pass
                    key = (
                        "guesses_checked" if got["message"] == "wrong token" else "guesses_refused"
                    )
                    counts[key] += 1

    readers = [socket.create_connection(("127.0.0.1", setup.dash_port)) for _ in range(10)]
    for sock in readers:  # pages that never read what they asked for
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{setup.dash_port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
    async with aiohttp.ClientSession() as http:
        await asyncio.gather(staff(http), *(guesser(http) for _ in range(10)))
    for sock in readers:
        sock.close()


def soak(seconds: float) -> int:
    """Run the soak for `seconds`; print the figures; 0 if no reader saw a secret."""
    counts: dict[str, int] = dict.fromkeys(
        ("display_messages", "secrets_seen", "staff_replies_ok", "staff_replies_error",
         "hostile_mqtt", "page_updates", "page_role_control", "guesses_checked",
         "guesses_refused"), 0)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="kiothi-soak-") as tmp:
        setup = _Setup(Path(tmp))
        try:
            board, dash = setup.start()
            time.sleep(3.0)  # the board connects and the dashboard fills its table
            start = {"board": _rss(board.pid), "dashboard": _rss(dash.pid)}
            peak = dict(start)
            stop = threading.Event()
            worker = threading.Thread(target=_broker_clients, args=(setup, stop, counts))
            worker.start()
            sampler = threading.Thread(target=_sample, args=(board, dash, peak, stop))
            sampler.start()
            asyncio.run(_pages(setup, seconds, counts))
            stop.set()
            worker.join(30)
            sampler.join(30)
            end = {"board": _rss(board.pid), "dashboard": _rss(dash.pid)}
            alive = board.poll() is None and dash.poll() is None
        finally:
            setup.close()
    print(f"bench fleet --soak: {seconds:.0f} s, private mosquitto with the shipped ACL")
    for name in ("board", "dashboard"):
        print(f"  {name} RSS: start {start[name]:.1f} MB, peak {peak[name]:.1f} MB, "
              f"end {end[name]:.1f} MB")  # fmt: skip
    print("  " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"  both processes alive at the end: {alive}; secrets seen by readers: "
          f"{counts['secrets_seen']}")  # fmt: skip
    return 0 if alive and counts["secrets_seen"] == 0 else 1


def _sample(board: Any, dash: Any, peak: dict[str, float], stop: threading.Event) -> None:
    while not stop.wait(1.0):
        with contextlib.suppress(OSError):
            peak["board"] = max(peak["board"], _rss(board.pid))
            peak["dashboard"] = max(peak["dashboard"], _rss(dash.pid))
