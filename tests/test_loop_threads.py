"""Issue 31 item 19: what threads outside the board loop may read (docs/architecture.md, "The
board loop"): the frame of the moment, the store, and nothing else of the game's but through
a call. `health` read the loop's rate meters from the API's thread while the loop marked
them (a deque the loop appends to, iterated by `statistics` on another thread)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.controller import Controller
from kiothi_board.daemon import Daemon
from kiothi_board.exhibit.health import RateMeter


def test_health_reads_the_loops_meters_on_the_loop(tmp_path: Path) -> None:
    cfg = validate({"api": {"tcp_port": -1, "web_port": -1}})
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=FakeClock())
    readers: list[int] = []
    try:
        loop = daemon.board.loop
        for meter in (loop.ticks, loop.frames):
            read = meter.to_json

            def on(read: Any = read) -> dict[str, Any]:
                readers.append(threading.get_ident())
                return read()  # type: ignore[no-any-return]

            meter.to_json = on  # type: ignore[method-assign]
        loop.start()
        assert daemon.api is not None
        d = daemon.api.dispatcher
        staff = d.open_session("direct", "staff", trusted=True, wake=lambda: None)
        line = json.dumps({"id": 1, "cmd": "health", "args": {}})
        got = d.handle_line(staff, line)
        assert got is not None and got["ok"], got
        assert isinstance(loop.ticks, RateMeter)
        assert loop._thread is not None
        assert readers and set(readers) == {loop._thread.ident}, (readers, loop._thread.ident)
    finally:
        daemon.close()


def test_a_hook_that_feeds_and_waits_on_the_loops_thread_takes_the_queue_in_order() -> None:
    """A hook runs on the loop's thread: what it feeds is queued (not taken inside the tick),
    and a call it waits for is taken after everything queued before it, however much."""
    from kiothi_board.board import Board
    from kiothi_board.hardware.fakes import FakePixelSink
    from kiothi_board.hardware.protocols import InputEvent
    from kiothi_board.store.memory import MemoryStore

    clock = FakeClock(5.0)
    board = Board(sink=FakePixelSink(), clock=clock, store=MemoryStore(), resume=False)
    seen: list[str] = []
    board.loop.notice_listeners.add(lambda notice: seen.append(type(notice).__name__))
    answers: list[int] = []

    def hook() -> None:
        if answers:
            return
        for _ in range(300):  # more than a turn takes at once
            board.loop.feed(InputEvent("released", 3, clock.now()))
        assert "Inputted" not in seen, "an input was taken inside the tick"
        answers.append(
            len(board.ask(Controller.glance).settings.humans)
        )  # waits on the loop's thread

    board.loop.on_tick.append(hook)
    try:
        board.tick()
        assert answers and seen.count("Inputted") == 300, seen[:5]
    finally:
        board.close()
