"""Real peers on real transports: a pty serial client plays a whole game while socket
clients watch; loop:// serial; Unix socket; a WebSocket client; clean shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
import serial  # type: ignore[import-untyped]

from kiothi_board.api import Dispatcher, start_api
from kiothi_board.api.serial_port import SerialTransport
from kiothi_board.board import Board
from tests.api.helpers import pty_client, socket_client, validator
from tests.conftest import PtyPair


def _play(client: Any, *, limit: int = 400) -> dict[str, Any]:
    """Play legal moves (first legal; passes in the opening) until the game is over."""
    for _ in range(limit):
        st = client.request("state")["result"]["state"]
        if st["stage"] == "over":
            return st
        pos = st["position"]
        if pos["phase"] == "opening":
            r = client.request("opening", {"action": "pass"})
        else:
            r = client.request("move", {"pit": pos["legal"][-1]})
        assert r["ok"], r
    raise AssertionError("the game did not end")


def test_pty_serial_client_plays_a_full_game_while_sockets_watch(
    real_service: tuple[Board, Any], tmp_path: Path, pty_pair: PtyPair
) -> None:
    service, _sink = real_service
    master, slave = pty_pair
    unix_path = str(tmp_path / "api.sock")
    server = start_api(
        service,
        {
            "tcp_port": 0,
            "unix_path": unix_path,
            "web_port": None,
            "serial": [os.ttyname(slave)],
            "health_interval": 0,
            "trust_loopback_tcp": True,
        },
    )
    try:
        tcp = socket.create_connection(("127.0.0.1", server.tcp_port))
        watcher = socket_client(tcp)
        usock = socket.socket(socket.AF_UNIX)
        usock.connect(unix_path)
        unix_watcher = socket_client(usock)
        for w in (watcher, unix_watcher):
            # Loopback TCP only because trust_loopback_tcp says so; Unix: the file's mode.
            assert w.request("hello")["result"]["role"] == "control"
            w.request("subscribe")
        player = pty_client(master)
        hello = player.request("hello", {"client": "pty"})
        assert hello["result"]["transport"] == "serial"
        player.request("subscribe")
        r = player.request(
            "new_game",
            {"mode": "two", "pace": "instant", "variant": {"ply_limit": 14}},
        )
        assert r["ok"], r
        final = _play(player)
        assert final["result"]["end"] == "ply-limit"
        over = watcher.wait_event(lambda e: e["event"] == "game_over")
        unix_watcher.wait_event(lambda e: e["event"] == "game_over")
        player.wait_event(lambda e: e["event"] == "game_over")
        # Every watcher got every event, in order, without a gap, and the same ones.
        seqs = [e["seq"] for e in watcher.events]
        assert seqs == list(range(seqs[0], seqs[-1] + 1))
        assert [e["seq"] for e in unix_watcher.events] == seqs
        assert [e["seq"] for e in player.events][: len(seqs)] == seqs
        kinds = [e["event"] for e in watcher.events]
        assert kinds.count("move") == 12 and kinds[0] == "new_game"
        assert over["record"]["moves"] == final["actions"][2:]
        ev = validator("event")
        for e in watcher.events:
            ev.validate(e)
        rep = validator("reply")
        for m in player.raw:
            (ev if "event" in m else rep).validate(m)
    finally:
        server.close()
        pty_pair.close()
    assert watcher.closed.wait(30) and unix_watcher.closed.wait(30)
    assert not Path(unix_path).exists()


class _Recording:
    """A loop:// port that also records what the transport writes."""

    def __init__(self) -> None:
        self.port = serial.serial_for_url("loop://", timeout=0.1)
        self.written: list[bytes] = []
        self.cond = threading.Condition()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.port, name)

    def write(self, data: bytes) -> int:
        with self.cond:
            self.written.append(bytes(data))
            self.cond.notify_all()
        return int(self.port.write(data))

    def lines(self) -> list[bytes]:
        return [x for x in b"".join(self.written).split(b"\n") if x]


def test_loop_serial_answers_and_ignores_its_own_echo(board: Board) -> None:
    d = Dispatcher(board)
    rec = _Recording()
    with SerialTransport(d, port=rec).start():
        rec.port.write(b'{"id":1,"cmd":"new_game","args":{"mode":"two"}}\n')
        rec.port.write(b"not json\n")
        with rec.cond:
            assert rec.cond.wait_for(lambda: len(rec.lines()) >= 2, 5)
        msgs = [json.loads(x) for x in rec.lines()]
        assert msgs[0] == {"id": 1, "ok": True, "result": {"game_id": 1}}
        assert msgs[1]["error"]["code"] == "parse_error"
        # The replies looped back into the transport's reader and were not taken as
        # requests: one more request round-trips and the count is exact.
        rec.port.write(b'{"id":2,"cmd":"ping"}\n')
        with rec.cond:
            assert rec.cond.wait_for(lambda: len(rec.lines()) >= 3, 5)
        assert d.requests == 3
    current = board.session.store.current_game()
    assert current is not None and current[0] == 1 and current[2] == []  # one new game only


TOKEN = "a-test-token-of-24-chars"


def test_remote_tcp_peer_is_spectator_until_token(board: Board) -> None:
    from kiothi_board.api.server import _loopback

    assert _loopback("127.0.0.1") and _loopback("::1") and not _loopback("192.168.1.5")
    with start_api(board, {"tcp_port": 0, "web_port": None, "token": "t0k"}) as server:
        assert "t0k" not in repr(server.config)


def test_websocket_client_and_spectator_origin(board: Board) -> None:
    import aiohttp

    cfg = {"tcp_port": None, "web_port": 0, "sim": True, "token": TOKEN}
    with start_api(board, cfg) as server:

        async def run() -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
            url = f"http://127.0.0.1:{server.web_port}/ws"
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(url) as ws:
                    hello = {"id": 1, "cmd": "hello", "args": {"token": TOKEN}}
                    await ws.send_str(json.dumps(hello) + '\n{"id":2,"cmd":"subscribe"}')
                    await ws.send_str('{"id":3,"cmd":"new_game","args":{"mode":"two"}}')
                    got: list[dict[str, Any]] = []
                    while not any(m.get("id") == 3 for m in got):
                        got.append(json.loads((await ws.receive()).data))
                hostile = {"Origin": "http://evil.example"}
                async with http.ws_connect(url, headers=hostile) as ws:
                    await ws.send_str(json.dumps(hello))  # even with the token
                    refused = json.loads((await ws.receive()).data)
                    assert refused["error"]["code"] == "unauthorized", refused
                    await ws.send_str('{"id":2,"cmd":"hello"}')
                    evil = json.loads((await ws.receive()).data)
                async with http.get(f"http://127.0.0.1:{server.web_port}/") as page:
                    assert page.status == 200
                    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
                async with http.get(f"http://127.0.0.1:{server.web_port}/healthz") as h:
                    health = await h.json()
            return got[0], evil, [health, *got]

        hello, evil, rest = asyncio.run(run())
        assert hello["result"]["role"] == "control" and hello["result"]["sim"] is True
        assert evil["result"]["role"] == "spectator"  # another site's page is not trusted
        assert any(m.get("event") == "new_game" for m in rest)


def test_a_client_that_falls_behind_gets_an_overflow_notice(
    board: Board,
) -> None:
    cfg = {"tcp_port": 0, "web_port": None, "outbox_limit": 50, "health_interval": 0}
    with start_api(board, cfg) as server:
        sock = socket.create_connection(("127.0.0.1", server.tcp_port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client = socket_client(sock)
        client.request("subscribe")
        # The board publishes far more than the client's socket and outbox hold; the
        # client is not reading fast enough, so the board drops its backlog (bounded
        # memory), says so, and carries on serving it.
        for i in range(20000):
            board.loop.listeners.emit({"type": "hint", "pit": "S1", "n": i})
        client.wait_event(lambda e: e["event"] == "overflow", timeout=10)
        assert client.request("ping")["ok"]
        hints = [e for e in client.events if e["event"] == "hint"]
        assert 0 < len(hints) < 20000
        sock.close()


def test_a_serial_port_that_cannot_open_fails_start_and_frees_the_rest(
    board: Board,
) -> None:
    from kiothi_board.errors import LinkError

    cfg = {"tcp_port": 0, "web_port": None, "serial": ["/dev/kiothi-no-such-port"]}
    with pytest.raises(LinkError, match="kiothi-no-such-port"):
        start_api(board, cfg)
    assert not board.loop.listeners  # the dispatcher let go of the service


def test_serial_peer_hangup_is_survived(board: Board, pty_pair: PtyPair) -> None:
    master, slave = pty_pair
    d = Dispatcher(board)
    transport = SerialTransport(d, os.ttyname(slave), backoff=(0.01, 0.05)).start()
    client = pty_client(master)
    assert client.request("ping")["ok"]
    pty_pair.close()  # the cable is pulled: reads fail, the transport keeps retrying
    assert board.state()["stage"] == "none"
    transport.close()  # and still stops promptly
    assert all(s.transport != "serial" for s in d.sessions())
