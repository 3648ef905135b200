"""Fuzz: random and malformed lines get an error reply (or a clean disconnect), change
nothing and crash nothing — 100,000 straight into the dispatcher, thousands per transport."""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kiothi_board.api import COMMANDS, Dispatcher, start_api
from kiothi_board.board import Board
from tests.api.conftest import make_board
from tests.api.helpers import LineClient, pty_client, socket_client
from tests.conftest import PtyPair

_GOOD: list[dict[str, Any]] = [
    {"id": 1, "cmd": "press", "args": {"pit": "S6"}},
    {"id": 2, "cmd": "move", "args": {"pit": 7}},
    {"id": "a", "cmd": "new_game", "args": {"mode": "two", "level": 2}},
    {"id": 3, "cmd": "opening", "args": {"action": "pass"}},
    {"id": 4, "cmd": "resign", "args": {"side": "N"}},
    {"id": 5, "cmd": "settings.set", "args": {"palette": "night"}},
    {"id": 6, "cmd": "undo"},
    {"id": 7, "cmd": "end"},
    {"id": 8, "cmd": "check", "args": {"on": True}},
    {"id": 9, "cmd": "subscribe", "args": {"topics": ["move"]}},
]
_WRONG_VALUES: list[Any] = [
    None,
    True,
    -1,
    20,
    1e308,
    "",
    "S0",
    "N11",
    "X1",
    "s" * 500,
    [],
    [1, 2],
    {},
    {"a": 1},
    "\u0000",
    "\ud800",
    10**30,
]


def _malformed(rng: random.Random) -> bytes:
    """One line (no LF) that is guaranteed not to be an acceptable request."""
    kind = rng.randrange(10)
    good = rng.choice(_GOOD)
    text = json.dumps(good)
    if kind == 0:  # random bytes
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
        raw = raw.replace(b"\n", b"?").replace(b"\r", b"?")
    elif kind == 1:  # a strict prefix of a valid request: never complete JSON
        raw = text[: rng.randrange(1, len(text))].encode()
    elif kind == 2:  # one structural character ({ } : ,) dropped: never valid JSON
        i = rng.choice([k for k, c in enumerate(text) if c in "{}:,"])
        raw = (text[:i] + text[i + 1 :]).encode()
    elif kind == 3:  # a non-object JSON value
        raw = json.dumps(rng.choice([1, "x", [good], None, True, 2.5, []])).encode()
    elif kind == 4:  # an envelope with a wrong id, cmd, v or an extra key
        msg = dict(good)
        field = rng.choice(["id", "cmd", "v", "extra", "noid"])
        if field == "noid":
            del msg["id"]
        elif field == "extra":
            msg[f"x{rng.randrange(9)}"] = 1
        elif field == "id":
            msg["id"] = rng.choice([True, None, [], {}, "", "i" * 65, 2**60])
        elif field == "cmd":
            msg["cmd"] = rng.choice([None, 3, "", "Press", "press ", "rm", "hello2"])
        else:
            msg["v"] = rng.choice([0, 2, "1", True, None])
        raw = json.dumps(msg).encode()
    elif kind == 5:  # wrong argument values or unknown argument keys
        msg = json.loads(text)
        args = msg.setdefault("args", {})
        if args and rng.random() < 0.7:
            value = rng.choice(_WRONG_VALUES)
            # null means "default" for the optional arguments: not a wrong value there.
            args[rng.choice(list(args))] = [] if value is None else value
            if all(v in (True, False) for v in args.values()) and msg["cmd"] == "check":
                args["zz"] = 1  # check's only argument is a boolean: add a bad key
        else:
            args[f"bogus{rng.randrange(99)}"] = rng.choice(_WRONG_VALUES)
        if msg["cmd"] == "subscribe" and isinstance(args.get("topics"), list | type(None)):
            args["zz"] = 1
        raw = json.dumps(msg).encode()
    elif kind == 6:  # an unknown command
        raw = json.dumps({"id": 1, "cmd": "x" + rng.choice(COMMANDS)}).encode()
    elif kind == 7:  # deep nesting
        depth = rng.randrange(100, 5000)
        raw = ("[" * depth + "]" * depth).encode()
    elif kind == 8:  # args not an object
        raw = json.dumps({"id": 1, "cmd": good["cmd"], "args": rng.choice([[], 1, "a"])}).encode()
    else:  # random printable text
        raw = "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(1, 60)))
        raw = raw.encode("utf-8", "surrogatepass")
    try:
        if not raw.decode("utf-8").strip():
            raw = b"#"  # a blank line is skipped silently by design; fuzz something else
    except UnicodeDecodeError:
        pass
    return raw


def _game_service() -> Board:
    service = make_board()
    service.call("new_game", mode="two", sides="SN", level=3, pace="step", variant={})
    return service  # state() counts the stored events: any change would show there


def test_100k_malformed_lines_into_the_dispatcher() -> None:
    service = _game_service()
    d = Dispatcher(service, rate=1e9, burst=1e9, outbox_limit=10**6)
    control = d.open_session("direct", "fuzz", trusted=True, wake=lambda: None)
    before = service.state()
    rng = random.Random(20261130)
    codes: dict[str, int] = {}
    n = 100_000
    for i in range(n):
        raw = _malformed(rng)
        reply = d.handle_line(control, raw if i % 2 else raw.decode("utf-8", "replace"))
        assert reply is not None and reply["ok"] is False, (raw, reply)
        code = reply["error"]["code"]
        codes[code] = codes.get(code, 0) + 1
        if i % 4096 == 0:
            control.outbox.take()
    assert service.state() == before
    assert codes.get("internal", 0) == 0
    assert {"parse_error", "invalid_request", "bad_args", "unknown_command"} <= set(codes)
    # Spectators: well-formed control commands are refused, and change nothing either.
    spectator = d.open_session("direct", "remote", trusted=False, wake=lambda: None)
    for good in _GOOD[:8] * 100:
        reply = d.handle_line(spectator, json.dumps(good))
        assert reply is not None and reply["error"]["code"] == "unauthorized"
    assert service.state() == before


def _flood(client: LineClient, lines: list[bytes]) -> list[dict[str, Any]]:
    client.send_line(b"".join(line + b"\n" for line in lines))
    return client.wait_raw(len(lines), timeout=60)


def test_thousands_of_malformed_lines_over_each_transport(
    tmp_path: Path, pty_pair: PtyPair
) -> None:
    service = _game_service()
    before = service.state()
    rng = random.Random(7)
    lines = [_malformed(rng) for _ in range(2000)]
    lines.append(b"y" * 20000)  # over the cap: an error reply, the stream goes on
    master, slave = pty_pair
    unix_path = str(tmp_path / "fuzz.sock")
    cfg = {
        "tcp_port": 0,
        "unix_path": unix_path,
        "web_port": 0,
        "serial": [os.ttyname(slave)],
        "rate": 1e9,
        "burst": 1e9,
        "health_interval": 0,
    }
    with start_api(service, cfg) as server:
        peers: dict[str, Callable[[], LineClient]] = {
            "tcp": lambda: socket_client(socket.create_connection(("127.0.0.1", server.tcp_port))),
            "unix": lambda: _unix(unix_path),
            "serial": lambda: pty_client(master),
        }
        for name, make in peers.items():
            client = make()
            got = _flood(client, lines)
            assert len(got) == len(lines), name
            assert all(m["ok"] is False for m in got), name
            assert got[-1]["error"]["code"] == "line_too_long"
            # Still alive and answering after the flood.
            pong = client.request("ping")
            assert pong["ok"], (name, pong)
        codes = asyncio.run(_websocket_flood(server.web_port, lines[:-1]))
        assert len(codes) == len(lines) - 1 and "internal" not in codes
        assert asyncio.run(_websocket_too_long(server.web_port)) == "closed"
    pty_pair.close()
    assert service.state() == before


def _unix(path: str) -> LineClient:
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return socket_client(s)


async def _websocket_flood(port: int | None, lines: list[bytes]) -> list[str]:
    import aiohttp

    codes: list[str] = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
    ):
        if True:
            for line in lines:
                await ws.send_bytes(line)
            while len(codes) < len(lines):
                msg = json.loads((await ws.receive(timeout=30)).data)
                assert msg["ok"] is False
                codes.append(msg["error"]["code"])
    return codes


async def _websocket_too_long(port: int | None) -> str:
    import aiohttp

    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
    ):
        if True:
            await ws.send_str("z" * 100_000)
            msg = await ws.receive(timeout=30)
            return "closed" if msg.type.name in ("CLOSE", "CLOSED", "CLOSING") else msg.type.name
