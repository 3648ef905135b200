"""The controller as the board service: protocol, events, settings, games, frames; bench."""

from __future__ import annotations

from typing import Any

import pytest

from kiothi_board.api import ApiConfig, BoardService, frame_to_hex
from kiothi_board.board import Board
from kiothi_board.controller.notices import SettingsChanged
from kiothi_board.errors import ConfigError, NotFoundError
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.tools.bench_api import main as bench_main
from kiothi_board.tools.bench_api import percentile
from tests.api.helpers import validator


def test_the_controller_is_the_board_service(
    real_service: tuple[Board, FakePixelSink],
) -> None:
    assert isinstance(real_service[0], BoardService)


def test_adapter_events_settings_and_games(
    real_service: tuple[Board, FakePixelSink],
) -> None:
    ctl, sink = real_service
    service = ctl
    events: list[dict[str, Any]] = []
    applied: list[dict[str, Any]] = []
    service.add_listener(events.append)
    service.add_notice_listener(  # what the loop applies (brightness) and tells the API
        lambda n: applied.append(n.settings) if isinstance(n, SettingsChanged) else None
    )
    gid = service.call(
        "new_game",
        mode="two",
        sides="SN",
        level=3,
        pace="instant",
        variant={"V2": True, "ply_limit": 2},
    )
    service.press(5)
    ctl.handle_event(InputEvent("pressed", 15, 0.0))  # as the daemon's pit input does
    ctl.handle_event(InputEvent("released", 15, 0.0))
    kinds = [e["type"] for e in events]
    assert kinds[0] == "new_game" and "move" in kinds and "game_over" in kinds
    inputs = [e for e in events if e["type"] == "input"]
    assert [(e["kind"], e["pit"]) for e in inputs] == [
        ("pressed", "S6"),
        ("released", "S6"),
        ("pressed", "N6"),
        ("released", "N6"),
    ]
    st = service.state()
    assert st["stage"] == "over" and st["actions"] == ["S6", "N6"]
    validator("common").validate({})  # the shared definitions load
    merged = service.call("settings.set", **{"palette": "night", "brightness": 0.3})
    assert merged["palette"] == "night" and applied == [merged]
    assert service.call("settings.get")["brightness"] == 0.3
    games = service.call("games.list", limit=10, offset=0)
    assert games[0]["id"] == gid and games[0]["result"]["end"] == "ply-limit"
    assert service.call("games.get", id=gid) is not None
    with pytest.raises(NotFoundError, match="no game 999"):
        service.call("games.get", id=999)
    frame = service.frame()
    assert len(frame) == 20
    assert frame_to_hex(frame) in [frame_to_hex(f) for f in sink.history()]  # what the rings got
    service.remove_listener(events.append)


def test_config_from_mapping() -> None:
    cfg = ApiConfig.from_mapping({"tcp_port": 0, "serial": "/dev/ttyGS0", "token": "hunter2"})
    assert cfg.serial == ("/dev/ttyGS0",) and "hunter2" not in repr(cfg)
    with pytest.raises(ConfigError, match="bogus"):
        ApiConfig.from_mapping({"bogus": 1})


def test_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["--pings", "50", "--events", "500"]) == 0
    out = capsys.readouterr().out
    for name in ("serial (pty)", "tcp", "unix", "websocket", "fan-out"):
        assert name in out
    assert percentile([1.0, 2.0, 3.0], 50) == 2.0
