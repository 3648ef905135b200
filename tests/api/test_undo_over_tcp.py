"""Issue 24 #4 over the API: one `undo` during the AI's guided move goes back to the
player's own turn (it answered `{}` and the state said "North (AI) to move")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.controller import Controller
from kiothi_board.daemon import Daemon
from kiothi_board.rules import parse_pit


def _ask(daemon: Daemon, session: Any, n: int, cmd: str, **args: Any) -> dict[str, Any]:
    assert daemon.api is not None
    got = daemon.api.dispatcher.handle_line(
        session, json.dumps({"id": n, "cmd": cmd, "args": args}).encode()
    )
    assert got is not None
    return got


def test_undo_during_the_ais_guided_move_goes_back_to_the_players_turn(tmp_path: Path) -> None:
    cfg = validate({
        "api": {"tcp_port": -1, "web_port": -1},
        "game": {"mode": "ai", "human_side": "S", "level": 1, "pace": "step"},
    })  # fmt: skip
    clock = FakeClock()
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=clock, seed=3)
    try:
        assert daemon.api is not None
        staff = daemon.api.dispatcher.open_session("direct", "t", trusted=True, wake=lambda: None)
        board = daemon.board
        board.call("new_game", mode="ai", sides="S", level=1, pace="step")
        mine: dict[str, Any] | None = None
        for _ in range(2000):
            st = board.state()
            if st["stage"] in ("sow", "guided_open") and st["position"]["to_move"] == "N":
                break
            pit = board.ask(Controller.expected_pit)
            if pit is not None and st["position"]["to_move"] == "S":
                board.press(pit)
            elif st["stage"] == "open" and not st["ai_to_move"]:
                mine = st["position"]
                board.press("S6", hold=True)  # South passes
            elif st["stage"] == "turn" and not st["ai_to_move"]:
                mine = st["position"]
                board.press(st["position"]["legal"][0])
            else:
                clock.advance(0.05)
                board.tick()
        else:
            raise AssertionError(f"the AI's move was never guided: {board.state()}")
        assert mine is not None
        assert _ask(daemon, staff, 1, "undo")["ok"]
        if board.state()["stage"] == "set":
            board.press("S1", hold=True)  # one hold confirms the board set back
        st = _ask(daemon, staff, 2, "state")["result"]
        st = st["state"]
        assert st["position"] == mine, st["instruction"]
        assert st["position"]["to_move"] == "S" and not st["ai_to_move"]
        assert parse_pit(st["position"]["legal"][0]) >= 0
    finally:
        daemon.close()
