"""Exhibition mode switched on and off while the board runs (staff, through the API)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.exhibit.attendant import Timing
from kiothi_board.exhibit.director import Director, ExhibitSettings
from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.guide import Renderer
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.store.memory import MemoryStore
from tests.exhibit.test_director import Clock, Control, Rig, step

BRIGHT = [((200, 100, 50),) * 16] * 20  # a game's frame at full brightness


def make_off() -> tuple[Any, Control, Clock, FakePixelSink]:
    clock = Clock()
    sink = FakePixelSink(16, keep=4)
    timing = Timing(idle_after=60, countdown=10, hint_after=30, two_player_window=3, over_seconds=5)
    store = MemoryStore()
    director = Director(
        ExhibitSettings(timing, level=LevelChoice(1), enabled=False), clock=clock,
        store=store, renderer=Renderer(leds=16), schedule=Schedule(timezone="UTC"),
    )  # fmt: skip
    control = Control(store)
    return Rig(director, control, sink, clock), control, clock, sink


def test_off_the_director_steps_aside_but_still_counts() -> None:
    director, control, clock, sink = make_off()
    assert director.status()["phase"] == "off" and director.status()["enabled"] is False
    director.handle_event(InputEvent("pressed", 3, clock.t))
    assert [e.pit for e in control.inputs] == [3], "a press goes straight to the game"
    assert director.presses[3] == 1, "and is counted for the curators"
    step(director, clock, 600)  # no idle countdown, no abandon, no attract loop
    assert control.calls == [] and director.status()["phase"] == "off"
    director.game.show(BRIGHT)
    assert list(sink.last) == BRIGHT, "the game's frames reach the rings undimmed"


def test_switched_on_mid_game_the_game_plays_on_then_an_abandoned_game_is_caught() -> None:
    director, control, clock, sink = make_off()
    director.loop.call(
        lambda: control.new_game("two", "S", LevelChoice(1), "step")
    )  # on the plain board
    director.game.show(BRIGHT)
    director.set_enabled(True)
    assert director.status()["phase"] == "playing"
    assert list(sink.last) == BRIGHT, "the game stays on the rings"
    step(director, clock, 61)
    assert director.status()["phase"] == "countdown"
    step(director, clock, 11)
    assert control.calls[-1] == ("abandon",)
    assert director.status()["phase"] == "reset"


def test_switched_off_from_the_attract_loop_the_game_picture_comes_back() -> None:
    director, _control, clock, sink = make_off()
    director.game.show(BRIGHT)
    director.set_enabled(True)
    assert director.status()["phase"] == "reset", "no game: the board asks for its start"
    director.handle_event(InputEvent("held", 4, clock.t, seconds=1.0))
    step(director, clock, 10)
    assert director.status()["phase"] == "attract" and list(sink.last) != BRIGHT
    director.set_enabled(False)
    assert list(sink.last) == BRIGHT and director.status()["phase"] == "off"
    director.set_enabled(False)  # idempotent


def _ask(daemon: Daemon, session: Any, n: int, cmd: str, **args: Any) -> dict[str, Any]:
    assert daemon.api is not None
    line = json.dumps({"id": n, "cmd": cmd, "args": args}).encode()
    got = daemon.api.dispatcher.handle_line(session, line)
    assert got is not None
    return got


def test_exhibit_set_is_staff_only_checked_and_switches_the_running_board(
    tmp_path: Path,
) -> None:
    cfg = validate({"api": {"tcp_port": -1, "web_port": -1}})
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=FakeClock())
    try:
        assert daemon.api is not None
        d = daemon.api.dispatcher
        visitor = d.open_session("direct", "visitor", trusted=False, wake=lambda: None)
        staff = d.open_session("direct", "staff", trusted=True, wake=lambda: None)
        assert _ask(daemon, visitor, 1, "exhibit")["result"]["exhibit"]["phase"] == "off"
        refused = _ask(daemon, visitor, 2, "exhibit.set", enabled=True)
        assert not refused["ok"] and refused["error"]["code"] == "unauthorized", refused
        bad = _ask(daemon, staff, 3, "exhibit.set", enabled="yes")
        assert not bad["ok"] and "enabled must be true or false" in bad["error"]["message"]
        extra = _ask(daemon, staff, 4, "exhibit.set", enabled=True, level=1)
        assert not extra["ok"] and "level" in extra["error"]["message"]
        assert daemon.exhibition is not None and not daemon.exhibition.director.enabled
        on = _ask(daemon, staff, 5, "exhibit.set", enabled=True)["result"]["exhibit"]
        assert on["enabled"] is True and on["phase"] in ("reset", "playing")
        # A press on the board now goes through the attendant: in the reset picture a
        # tap is not a move.
        before = daemon.board.state()["events"]
        daemon.board.handle_event(InputEvent("pressed", 2, 0.0))
        assert daemon.board.state()["events"] == before
        off = _ask(daemon, staff, 6, "exhibit.set", enabled=False)["result"]["exhibit"]
        assert off == {**off, "enabled": False, "phase": "off"}
    finally:
        daemon.close()


def test_a_press_from_the_api_goes_through_the_attendant(tmp_path: Path) -> None:
    cfg = validate({"api": {"tcp_port": -1, "web_port": -1}, "exhibit": {"enabled": True}})
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=FakeClock())
    try:
        assert daemon.exhibition is not None
        director = daemon.exhibition.director
        assert director.status()["phase"] == "reset"
        staff = daemon.api.dispatcher.open_session(  # type: ignore[union-attr]
            "direct", "staff", trusted=True, wake=lambda: None
        )
        before = daemon.board.state()["events"]
        assert _ask(daemon, staff, 1, "press", pit="S3")["ok"]
        assert director.presses[2] == 1, "counted for the curators like a board press"
        assert daemon.board.state()["events"] == before, "in the reset picture: no move"
        assert _ask(daemon, staff, 2, "press", pit="S3", hold=True)["ok"]
        assert director.status()["phase"] == "attract", "a hold confirms the reset"
    finally:
        daemon.close()


def test_the_running_loop_and_api_threads_never_wait_on_each_other() -> None:
    """The loop owns the game on its own thread; API threads only queue calls and wait for
    the answers, while the loop ticks and draws: nothing is held across the two (the old
    director and controller each had a lock, and had to be taken in one order)."""
    import threading

    director, control, clock, _sink = make_off()
    director.set_enabled(True)
    director.loop.start()
    answers: list[object] = []

    def api_thread() -> None:
        for _ in range(200):
            answers.append(director.loop.ask(director.director.status))
            director.loop.call(lambda: control.run("hint"))

    threads = [threading.Thread(target=api_thread, daemon=True) for _ in range(3)]
    for t in threads:
        t.start()
    for _ in range(200):
        clock.t += 0.5
        director.loop.feed(InputEvent("pressed", 2, clock.t))
    for t in threads:
        t.join(30)
    director.loop.close()
    assert not any(t.is_alive() for t in threads), "an API thread waited for ever"
    assert len(answers) == 600 and control.calls.count(("hint",)) == 600
