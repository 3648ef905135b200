"""Issue 9, item 7: each small failure now ends in one clear line naming the config key."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.api import Dispatcher, start_api
from kiothi_board.api.serial_port import SerialTransport
from kiothi_board.board import Board
from kiothi_board.config import load, validate
from kiothi_board.errors import ConfigError
from tests.api.conftest import make_board

TOKEN = "hardening-token-0123456789"


def test_a_non_utf8_config_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'[game]\nmode = "two"\n# caf\xe9\n')
    with pytest.raises(ConfigError, match=r"latin1.toml: not UTF-8 \(byte 0xe9 at offset"):
        load(path)


def test_short_tokens_and_pins_are_refused_naming_the_key_without_showing_them() -> None:
    with pytest.raises(ConfigError, match=r"api.token = \(hidden\): must be at least 16") as exc:
        validate({"api": {"token": "tooshort"}})
    assert "tooshort" not in str(exc.value)
    with pytest.raises(ConfigError, match=r"api.staff_pin = \(hidden\): must be ASCII digits"):
        validate({"api": {"staff_pin": "abcdefgh"}})
    with pytest.raises(ConfigError, match=r"api.staff_pin = \(hidden\): must be 8 to 12 digits"):
        validate({"api": {"staff_pin": "246813"}})  # 6 digits: 10^6 fall in weeks
    assert validate({"api": {"token": TOKEN, "staff_pin": "24681359"}})["api"]["token"] == TOKEN


@pytest.mark.parametrize(
    ("pin", "why"),
    [
        ("00000000", "one repeated digit"),
        ("77777777777", "one repeated digit"),
        ("12345678", "a run of consecutive digits"),
        ("98765432", "a run of consecutive digits"),
        ("78901234", "a run of consecutive digits"),
        ("12121212", "two alternating digits"),
        ("\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668", "must be ASCII digits"),
        ("\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18", "must be ASCII digits"),
    ],
)
def test_weak_and_non_ascii_pins_are_refused_naming_the_key(pin: str, why: str) -> None:
    with pytest.raises(ConfigError, match=r"api.staff_pin = \(hidden\): .*" + why) as exc:
        validate({"api": {"staff_pin": pin}})
    assert pin not in str(exc.value) and "\n" not in str(exc.value)


def test_unix_path_in_a_missing_directory_names_the_key(board: Board) -> None:
    cfg = {"tcp_port": None, "web_port": None, "unix_path": "/nonexistent-dir/api.sock"}
    with pytest.raises(ConfigError, match=r"api.unix_path = .*'/nonexistent-dir' does not exist"):
        start_api(board, cfg)


def test_a_second_instance_leaves_the_first_ones_socket(board: Board, tmp_path: Path) -> None:
    path = str(tmp_path / "api.sock")
    with start_api(board, {"tcp_port": 0, "web_port": None, "unix_path": path}) as first:
        busy = {"tcp_port": first.tcp_port, "web_port": None, "unix_path": path}
        with pytest.raises(ConfigError, match=r"api\.tcp_port.*already in use"):
            start_api(make_board(), busy)
        with pytest.raises(ConfigError, match=r"api\.unix_path.*live socket"):
            start_api(make_board(), {**busy, "tcp_port": None})
        with socket.socket(socket.AF_UNIX) as s:  # the first one still serves its door
            s.connect(path)
            s.sendall(b'{"id":1,"cmd":"ping"}\n')
            assert b'"ok":true' in s.recv(1000)
    assert not Path(path).exists()  # removed by its owner on close


def test_a_store_path_under_a_regular_file_names_the_key(tmp_path: Path) -> None:
    from kiothi_board.daemon import Daemon

    (tmp_path / "file").write_text("x")
    cfg = validate({"store": {"path": str(tmp_path / "file" / "games.sqlite3")}})
    with pytest.raises(ConfigError, match=r"store.path = .*/file is not a directory"):
        Daemon(cfg, sim=True, state_dir=str(tmp_path / "state"), api=False)


def test_malformed_and_unreachable_redis_urls_are_reported(
    board: Board, caplog: pytest.LogCaptureFixture
) -> None:
    base = {"tcp_port": None, "web_port": None}
    for url in ("http://127.0.0.1:6379", "redis://127.0.0.1:notaport/0"):
        with pytest.raises(ConfigError, match=r"api\.redis_url"):
            start_api(board, {**base, "redis_url": url})
    with socket.socket() as probe:  # a port with nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"redis://:hunter2-password@127.0.0.1:{port}/0"
    with start_api(board, {**base, "redis_url": url}) as server:
        assert server.redis.unreachable.wait(30)
        health = server.dispatcher.health()["redis"]
    assert health["status"] == "down" and "cannot reach redis://:***@127.0.0.1" in health["error"]
    assert caplog.text.count("api.redis_url: cannot reach") == 1
    assert "hunter2" not in caplog.text and "hunter2" not in json.dumps(health)


class _TimeoutPort:
    """A serial port whose first write times out halfway through (a blocked USB host)."""

    def __init__(self) -> None:
        self.wire = bytearray()
        self.writes = 0
        self.cond = threading.Condition()
        self.in_waiting = 0

    def read(self, n: int) -> bytes:
        with self.cond:
            self.cond.wait(0.05)
        return b""

    def write(self, data: bytes) -> int:
        with self.cond:
            self.writes += 1
            if self.writes == 1:
                self.wire += data[: len(data) // 2]
                self.cond.notify_all()
                raise TimeoutError("Write timeout")
            self.wire += data
            self.cond.notify_all()
            return len(data)

    def close(self) -> None:
        pass


def test_after_a_serial_write_timeout_lines_are_not_glued(board: Board) -> None:
    d = Dispatcher(board)
    port = _TimeoutPort()
    with SerialTransport(d, port=port).start() as transport:
        session = transport.session
        assert session is not None
        for i in range(3):
            d.handle_line(session, json.dumps({"id": i, "cmd": "ping"}).encode())
            with port.cond:
                assert port.cond.wait_for(lambda n=i: port.writes > n, 5)
    lines = bytes(port.wire).split(b"\n")
    parsed: list[Any] = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            parsed.append(None)  # the fragment cut by the timeout stands alone
    assert [m["id"] for m in parsed if m] == [1, 2]
    assert parsed.count(None) == 2  # the fragment, and the empty tail after the last LF


def test_a_serial_client_over_its_budget_starts_a_fresh_session(
    board: Board,
) -> None:
    d = Dispatcher(board, budget=64 * 1024)
    port = _TimeoutPort()
    port.writes = 1  # no timeout this time
    with SerialTransport(d, port=port).start() as transport:
        first = transport.session
        assert first is not None
        first.topics = frozenset({"hint"})
        with port.cond:
            for i in range(200):  # the writer cannot keep up with a flood of events
                board.loop.listeners.emit({"type": "hint", "pit": "S1", "pad": "x" * 1000, "n": i})
            assert port.cond.wait_for(lambda: b'"event":"closed"' in port.wire, 5)
        assert transport.session is not first and first.closed


def test_settings_get_and_a_bare_new_game_use_the_configs_level_and_pace(tmp_path: Path) -> None:
    from kiothi_board.clock import FakeClock
    from kiothi_board.daemon import Daemon

    cfg = validate(
        {
            "game": {"mode": "ai", "level": 5, "pace": "instant", "variant": "V3"},
            "api": {"tcp_port": -1, "web_port": -1},
        }
    )
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=FakeClock())
    try:
        assert daemon.api is not None
        d = daemon.api.dispatcher
        session = d.open_session("direct", "test", trusted=True, wake=lambda: None)
        got = d.handle_line(session, b'{"id":1,"cmd":"settings.get"}')
        assert got is not None
        settings = got["result"]["settings"]
        assert (settings["level"], settings["pace"]) == (5, "instant")
        assert settings["variant"] == {"V3": True} and settings["mode"] == "ai"
        running = daemon.board.state()["settings"]
        assert (running["level"], running["pace"]) == (5, "instant")  # the same game
        assert d.handle_line(session, b'{"id":2,"cmd":"new_game"}')["ok"]  # type: ignore[index]
        fresh = daemon.board.state()["settings"]
        assert (fresh["level"], fresh["pace"]) == (5, "instant")
    finally:
        daemon.close()
