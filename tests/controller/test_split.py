"""The split controller: legacy stores resume, typed events, the command table, gestures,
the notice stream, listener isolation, abandonment, frame events, the injected random source."""

from __future__ import annotations

import json
import logging
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from kiothi_board.controller import (
    CHORDS,
    CONTROLS,
    TABLE,
    Command,
    CommandSpec,
    CommandTable,
    Controller,
    Gestures,
    Settings,
    apply,
    random_opponents,
)
from kiothi_board.controller.events import Advance, Resign, Revert, Select, from_json, to_json
from kiothi_board.controller.game import new_game
from kiothi_board.controller.kinds import Integer
from kiothi_board.controller.notices import Applied, Notice, Started
from kiothi_board.controller.spec import Arg, ArgError
from kiothi_board.errors import BadArgumentError, RecordError
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.i18n import tr
from kiothi_board.rules import Outcome, Side, parse_record
from kiothi_board.store.memory import MemoryStore
from kiothi_board.store.sqlite import SqliteStore

from .conftest import Rig, make_rig

DATA = Path(__file__).parent / "data"


# --------------------------------------------------------------------------- the old format
def _stored_events(db: Path) -> dict[int, list[dict[str, Any]]]:
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT game_id, event FROM events ORDER BY game_id, seq").fetchall()
    out: dict[int, list[dict[str, Any]]] = {}
    for gid, text in rows:
        out.setdefault(gid, []).append(json.loads(text))
    return out


def _replay(meta: dict[str, Any], events: list[dict[str, Any]]) -> Any:
    stack = [new_game(Settings.from_json(meta))]
    for data in events:
        event = from_json(data)
        if isinstance(event, Revert):
            del stack[len(stack) - event.n :]
        else:
            stack.append(apply(stack[-1], event))
    return stack[-1]


def test_a_store_written_by_the_old_controller_resumes(tmp_path: Path) -> None:
    """tests/controller/data/legacy-store.sqlite was written by the code before issue 8
    (make_legacy_store.py.txt): undo, a revert, a resignation, an agreement, a game on."""
    db = tmp_path / "legacy.sqlite"
    shutil.copy(DATA / "legacy-store.sqlite", db)
    want = json.loads((DATA / "legacy-store.json").read_text())
    store = SqliteStore(db)
    ctl = Board.resume(store, sink=FakePixelSink(), clock=FakeClock())
    st = ctl.state()
    for key in ("game_id", "events", "stage", "actions", "position", "board", "guide", "expect"):
        assert st[key] == want["state"][key], key
    events = _stored_events(db)
    kinds = {e["type"] for evs in events.values() for e in evs}
    assert {"revert", "undo", "resign", "agree", "open_lift", "open_place", "select"} <= kinds
    for evs in events.values():
        assert [to_json(from_json(e)) for e in evs] == evs  # the format is unchanged
    with sqlite3.connect(db) as c:
        metas = dict(c.execute("SELECT id, meta FROM games").fetchall())
    resigned = _replay(json.loads(metas[1]), events[1])
    assert resigned.result.end == "resign" and resigned.result.by is Side.S
    assert resigned.result.winner is Side.N and resigned.ended == "resign"
    agreed = _replay(json.loads(metas[2]), events[2])
    assert agreed.result.end == "agreement"  # the old code stored this as "repetition"
    # The old finished records (stored without a result) still parse and replay.
    for game in want["games"][:2]:
        assert parse_record(game).final().ply == len(game["opening"]) + len(game["moves"])
    ctl.close()
    store.close()


def test_bad_stored_events_are_record_errors() -> None:
    for bad in ({"type": "select"}, {"type": "revert", "n": 0}, {"type": "nope"}, []):
        with pytest.raises(RecordError, match="game event"):
            from_json(bad)
    assert from_json({"type": "step"}) == Advance()
    assert to_json(Resign(Side.N)) == {"type": "resign", "side": "N"}


# --------------------------------------------------------------------------- gestures
def test_gestures_are_pure_taps_holds_chords_and_buttons() -> None:
    g = Gestures(hold_seconds=1.0, chords=CHORDS, controls=CONTROLS)
    assert g.feed(InputEvent("pressed", 5, 0.0)) == [Command("tap", 5)]
    assert g.feed(InputEvent("held", 5, 0.5, seconds=0.5)) == []
    assert g.feed(InputEvent("held", 5, 1.0, seconds=1.0)) == [
        Command("revert", 5),
        Command("hold", 5),
    ]
    assert g.feed(InputEvent("held", 5, 1.5, seconds=1.5)) == []  # fires once
    assert g.feed(InputEvent("released", 5, 2.0)) == [Command("release", 5)]
    assert g.feed(InputEvent("pressed", 0, 3.0)) == [Command("tap", 0)]
    assert g.feed(InputEvent("pressed", 1, 3.1)) == [Command("revert", 0)]  # S1+S2: a chord
    assert g.feed(InputEvent("held", 1, 4.2, seconds=1.1)) == [Command("resign", "S")]
    assert g.feed(InputEvent("pressed", -1, 5.0, control=1)) == [Command("hint")]
    assert g.feed(InputEvent("dropped", 7, 5.0)) == [Command("drop", 7)]
    assert g.feed(InputEvent("pressed", 25, 5.0)) == []


# --------------------------------------------------------------------------- session
def test_the_command_table_can_be_extended_and_names_unknown_commands() -> None:
    """A part adds a command as one entry: the Board runs it by name with its argument
    checked, and a control button the entry names fires it."""
    seen: list[Any] = []
    spec = CommandSpec(
        "stats",
        tr("read the settings"),
        args=(Arg("n", Integer(0, 9)),),
        handler=lambda ctl, n: seen.append(n) or len(seen),
        controls=(3,),
    )
    rig = make_rig(table=CommandTable((*TABLE, spec)))
    assert rig.ctl.call("stats", n=7) == 1 and seen == [7]
    with pytest.raises(ArgError, match="stats: n must be an integer from 0 to 9"):
        rig.ctl.call("stats", n=10)
    with pytest.raises(BadArgumentError, match="no command 'bogus'"):
        rig.ctl.call("bogus")
    rig.ctl.handle_event(InputEvent("pressed", -1, 0.0, control=3))  # the entry's button
    assert seen == [7, None]
    rig.ctl.close()


def test_the_notice_stream_carries_typed_game_events(rig: Rig) -> None:
    notices: list[Notice] = []
    rig.ctl.add_notice_listener(notices.append)
    rig.ctl.call("new_game", mode="two", pace="instant", variant={"V2": True})
    rig.pit_input.tap(5)
    assert isinstance(notices[0], Started)
    applied = [n for n in notices if isinstance(n, Applied)]
    assert applied[0].event == Select(5, lifted=True)
    assert applied[-1].new.actions == ("S6",)


def test_a_failing_listener_is_logged_and_the_game_goes_on(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(event: dict[str, Any]) -> None:
        raise RuntimeError("listener bug")

    rig.ctl.add_listener(broken)
    rig.ctl.add_notice_listener(lambda n: 1 / 0)  # type: ignore[func-returns-value]
    caplog.set_level(logging.ERROR)
    rig.ctl.call("new_game", mode="two", pace="instant", variant={"V2": True})
    rig.pit_input.tap(5)
    assert rig.ctl.state()["actions"] == ["S6"]
    assert any(e["type"] == "move" for e in rig.events)  # the other listeners still heard it
    failures = [r for r in caplog.records if "listener" in r.getMessage()]
    assert failures and all(r.exc_info is not None for r in failures)


def test_abandon_moves_no_seeds_and_names_no_winner(rig: Rig) -> None:
    gid = rig.ctl.call("new_game", mode="two", pace="instant", variant={"V2": True})
    rig.pit_input.tap(5)
    board = rig.ctl.state()["position"]["board"]
    rig.ctl.call("abandon")
    st = rig.ctl.state()
    assert st["stage"] == "over" and st["ended"] == "abandoned"
    assert st["result"] == {"winner": None, "captured": [0, 0], "end": "abandoned"}
    assert st["position"]["board"] == board
    record = parse_record(rig.store.get_game(gid))  # type: ignore[arg-type]
    assert record.result == Outcome.abandonment((0, 0)) and record.final().board == tuple(board)
    with pytest.raises(Exception, match="already over"):
        rig.ctl.call("abandon")


def test_frames_are_pushed_as_events_once_per_change() -> None:
    rig = make_rig()
    rig.ctl.call("new_game", mode="two", pace="step", variant={"V2": True})
    rig.events.clear()
    shown = rig.sink.shown
    for _ in range(3):
        rig.ctl.tick()  # the clock does not move: the frame does not change
    assert rig.sink.shown == shown and not [e for e in rig.events if e["type"] == "frame"]
    rig.pit_input.tap(5)
    frames = [e for e in rig.events if e["type"] == "frame"]
    assert frames and rig.sink.last is not None
    assert _norm(frames[-1]["frame"]) == _norm(rig.sink.last) == _norm(rig.ctl.frame())


def _norm(frame: Any) -> list[tuple[tuple[int, ...], ...]]:
    return [tuple(tuple(c) for c in ring) for ring in frame]


def _demo(level: int) -> list[str]:
    ctl = Board(sink=FakePixelSink(), clock=FakeClock(), store=MemoryStore(), rng=random.Random(5))
    ctl.call("new_game", mode="demo", level=level, pace="instant", variant={"ply_limit": 30})
    while ctl.state()["stage"] not in ("over", "none"):
        ctl.tick()
    return list(ctl.state()["actions"])


def test_random_opponents_draw_from_the_injected_source_not_from_the_level() -> None:
    assert _demo(1) == _demo(6)  # the level is not a seed
    factory = random_opponents(random.Random(3))
    assert factory(1) is not factory(1)  # a fresh opponent per call, one shared source


def test_a_game_killed_between_its_last_step_and_completion_completes_on_the_next_tick() -> None:
    """The 200-SIGKILL test once hung here: the old controller stayed at the `done` step."""
    rig = make_rig()
    gid = rig.ctl.call("new_game", mode="two", pace="step", variant={"V2": True})
    rig.pit_input.tap(5)  # S6: lifted, then its drops
    while rig.ctl.state()["stage"] == "sow":
        pit = rig.ctl.ask(Controller.expected_pit)
        assert pit is not None
        rig.pit_input.tap(pit)
    current = rig.store.current_game()
    assert current is not None and current[2][-1] == {"type": "complete"}
    crashed = MemoryStore()
    crashed.begin_game(current[1])
    for event in current[2][:-1]:  # the crash: the last step is stored, its completion not
        crashed.append_event(1, event)
    ctl = Board(sink=FakePixelSink(), clock=FakeClock(), store=crashed)
    st = ctl.state()
    assert st["stage"] == "sow" and st["guide"]["kind"] == "done"  # resumed exactly there
    ctl.tick()
    st = ctl.state()
    assert st["stage"] == "turn" and st["actions"] == ["S6"] and st["events"] == len(current[2])
    assert gid == 1
