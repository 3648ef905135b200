"""Issue 24 #6/#7: words a player reads (each failed on the old code)."""

from __future__ import annotations

import json
from pathlib import Path

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.controller import FirstLegalOpponent
from kiothi_board.daemon import Daemon
from kiothi_board.errors import IllegalMoveError
from kiothi_board.guide.instructions import wrong_text
from kiothi_board.guide.steps import opening_steps
from kiothi_board.guide.views import StepsView
from kiothi_board.rules import INITIAL_BOARD, Side, parse_opening
from kiothi_board.tools.guide_words import rows
from tests.controller.conftest import make_rig


def test_the_capture_line_separates_pits_and_names_the_r7_safe_pit() -> None:
    capture = next(text for state, _, text in rows() if state == "capture")
    assert capture == (
        "Capture: take the seeds out of N10 (1 seed), pressing each pit when done. "
        "S1 is safe: never sown yet (R7)."
    )


def test_a_wrong_press_in_a_guided_opening_says_place() -> None:
    action = parse_opening("S7>S1,S1,N3,N3,N4,S2")
    steps = opening_steps(INITIAL_BOARD, action.lifts)
    view = StepsView(steps, 1, Side.S, None)
    assert wrong_text(view, 15).endswith("— place one seed in S1.")


def test_a_hint_and_an_undo_clear_the_wrong_press_line() -> None:
    rig = make_rig(opponent_factory=lambda level: FirstLegalOpponent())
    rig.ctl.call("new_game", mode="two", pace="step")
    rig.pit_input.hold(5, 1.5)  # both pass
    rig.pit_input.hold(15, 1.5)
    rig.pit_input.tap(0)  # S1 is empty: wrong
    assert rig.ctl.state()["said"] == "S1 is empty: choose a pit with seeds."
    assert rig.ctl.state()["said_kind"] == "wrong"
    rig.ctl.call("hint")  # `h`: no press, a hint without words
    rig.tick()
    assert rig.ctl.state()["said"] is None
    rig.pit_input.tap(0)
    assert rig.ctl.state()["said"]
    rig.ctl.call("undo")  # `z`: no press either
    assert rig.ctl.state()["said"] is None


def test_walk_outside_a_long_move_is_a_plain_sentence() -> None:
    rig = make_rig()
    rig.ctl.call("new_game", mode="two", pace="step")
    try:
        rig.ctl.call("walk")
    except IllegalMoveError as exc:
        assert str(exc).startswith("Nothing to walk: only a long move") and "stage" not in str(exc)
    else:
        raise AssertionError("walk outside a long move was accepted")


def test_a_watchers_hint_is_refused_in_plain_words(tmp_path: Path) -> None:
    cfg = validate({"api": {"tcp_port": -1, "web_port": -1}})
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=FakeClock())
    try:
        assert daemon.api is not None
        d = daemon.api.dispatcher
        watcher = d.open_session("direct", "page", trusted=False, wake=lambda: None)
        got = d.handle_line(watcher, json.dumps({"id": 1, "cmd": "hint"}).encode())
        assert got is not None and got["error"]["code"] == "unauthorized"
        message = got["error"]["message"]
        assert message.startswith("You are only watching this board, so you cannot ask for")
        assert "hello" not in message and "token" not in message
    finally:
        daemon.close()


def test_a_hints_reason_is_drawn_in_yellow_a_wrong_press_in_red() -> None:
    """The terminal drew a hint's reason in the wrong press's red."""
    from kiothi_board.sim import render_board

    frame = [[(0, 0, 0)] * 16 for _ in range(20)]
    hint = render_board(frame, {"said": "S8 captures 2.", "said_kind": "hint"})
    wrong = render_board(frame, {"said": "S1 is empty.", "said_kind": "wrong"})
    assert "\x1b[38;2;255;220;90mS8 captures 2." in hint
    assert "\x1b[38;2;255;140;140mS1 is empty." in wrong
