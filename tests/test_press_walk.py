"""One press through the real daemon, walked as docs/architecture.md says: each part once, in
the order the doc lists them.

A profiler follows every Python call of the board loop's thread while it takes one `pressed`
input (a GPIO edge on gpiozero's MockFactory, with exhibition mode off and on, and a press
from the API), labels each call with the part of the house it runs in, and records when the
walk *enters* a part (a call from another part; a return is no entry, a property read is
no entry, and libraries such as the rules, the guide's drawing and the frame belong to the
part that calls them). The orchestrators (the loop, the controller) come back between the
parts they call; every other part must be entered once, in the documented order.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.config import SCHEMA, validate
from kiothi_board.daemon import Daemon
from kiothi_board.hardware.protocols import InputEvent
from tests.press_figures import Figures, count_locks

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kiothi_board"
DOC = ROOT / "docs" / "architecture.md"
PINS = SCHEMA["board"]["pins"].default

# Which part each file runs in (relative to kiothi_board/) ...
FILES = {
    "board/loop.py": "loop",
    "board/board.py": "board",
    "controller/controller.py": "controller",
    "controller/gestures.py": "gestures",
    "controller/session.py": "session",
    "controller/ai_turns.py": "session",
    "controller/commands.py": "session",
    "controller/table.py": "session",
    "controller/spec.py": "session",
    "controller/kinds.py": "session",
    "store/journal.py": "journal",
    "controller/coach.py": "coach",
    "controller/presenter.py": "presenter",
    "store/sqlite.py": "store",
    "board/api_events.py": "API events",
    "api/dispatcher.py": "dispatcher",
    "api/fanout.py": "dispatcher",
    "hardware/gpio.py": "pin input",
    "hardware/edges.py": "pin input",
    "hardware/debounce.py": "debouncer",
    "board/speech.py": "voice",
    "hardware/speaker.py": "voice",
}
# ... and the functions that are parts of their own (file, qualified name prefix).
FUNCTIONS = {
    ("exhibit/director.py", "Director.decide"): "attendant decides",
    ("exhibit/director.py", "Director.observe"): "attendant observes",
    ("exhibit/director.py", "Director.take_counts"): "attendant observes",
    ("exhibit/director.py", "Director.compose"): "compositor",
    ("controller/game.py", "apply"): "reducer",
    ("store/journal.py", "Journal.add_counts"): "store",
    ("store/journal.py", "Journal.commit"): "store",
    ("hardware/fakes.py", "FakePixelSink."): "sink",
}
ORCHESTRATORS = {"loop", "controller"}
# ... and the libraries, which belong to the part that calls them (a file or a folder/).
LIBRARIES = (
    "rules/", "native/", "guide/", "i18n/", "clock.py", "frame.py", "listeners.py",
    "controller/events.py", "controller/settings.py", "controller/step.py", "controller/seat.py",
    "store/base.py", "store/common.py", "hardware/frames.py",
    "exhibit/attendant.py", "exhibit/health.py", "exhibit/schedule.py",
    "api/lines.py", "api/protocol.py", "exhibit/words.py",
)  # fmt: skip


def unmapped(files: set[str]) -> list[str]:
    """The files a press ran that the map above does not name: each must be a part, a
    function's file or a library, or the walk could not say where it runs."""
    mapped = set(FILES) | {file for file, _ in FUNCTIONS}
    return sorted(f for f in files if f not in mapped and not f.startswith(LIBRARIES))


def documented_walk() -> list[str]:
    """The parts docs/architecture.md's press walk names, in its order."""
    text = DOC.read_text("utf-8")
    section = text.split("## One press", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"(?m)^\d+\. \*\*([^*]+)\*\*", section)


class Walk:
    """The parts the board loop's thread enters while it takes one `pressed` input."""

    def __init__(self) -> None:
        self.thread: int | None = None
        self.entries: list[str] = []
        self.below: list[str] = []  # the files under the loop when the input arrived
        self.below_names: list[str] = []  # and their functions
        self.files: set[str] = set()  # every file of the package the walk ran
        self._stack: list[str | None] = []
        self._start: int | None = None
        self.done = threading.Event()

    def _own(self, frame: FrameType) -> str | None:
        code = frame.f_code
        try:
            rel = Path(code.co_filename).resolve().relative_to(PACKAGE).as_posix()
        except ValueError:
            return None
        for (file, prefix), part in FUNCTIONS.items():
            if rel == file and code.co_qualname.startswith(prefix):
                return part
        part = FILES.get(rel)
        if part is not None:
            owner = frame.f_locals.get("self")
            if owner is not None and isinstance(getattr(type(owner), code.co_name, None), property):
                return None  # reading a property is looking, not entering
        return part

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if threading.get_ident() != self.thread or self.done.is_set():
            return
        if event == "call":
            top = self._stack[-1] if self._stack else None
            own = self._own(frame)
            label = own if own is not None else top
            self._stack.append(label)
            if self._start is None and frame.f_code.co_qualname == "BoardLoop._input":
                item = frame.f_locals.get("event")
                if isinstance(item, InputEvent) and item.kind == "pressed":
                    self._start = len(self._stack)
                    self.below = _files_under(frame)
                    self.below_names = _names_under(frame)
                    return
            if self._start is not None:
                rel = _rel(frame)
                if rel is not None:
                    self.files.add(rel)
            if self._start is not None and label != top and label is not None:
                self.entries.append(label)
        elif event == "return" and self._stack:
            self._stack.pop()
            if self._start is not None and len(self._stack) < self._start:
                self.done.set()

    def parts(self) -> list[str]:
        """The entries, the orchestrators left out, a part's consecutive entries as one."""
        out: list[str] = []
        for label in self.entries:
            if label not in ORCHESTRATORS and (not out or out[-1] != label):
                out.append(label)
        return out


def _rel(frame: FrameType) -> str | None:
    try:
        return Path(frame.f_code.co_filename).resolve().relative_to(PACKAGE).as_posix()
    except ValueError:
        return None


def _names_under(frame: FrameType) -> list[str]:
    out = []
    f: FrameType | None = frame.f_back
    while f is not None:
        out.append(f.f_code.co_qualname)
        f = f.f_back
    return out


def _files_under(frame: FrameType) -> list[str]:
    out = []
    f: FrameType | None = frame.f_back
    while f is not None:
        with contextlib.suppress(ValueError):  # not a file of the package
            out.append(Path(f.f_code.co_filename).resolve().relative_to(PACKAGE).as_posix())
        f = f.f_back
    return out


@pytest.fixture
def daemon(mock_factory: Any, tmp_path: Path) -> Iterator[tuple[Daemon, FakeClock, Any]]:
    """The real daemon: gpiozero pins on the MockFactory, simulated LEDs, the SQLite store,
    the API; a two-player game on (no opening: V2), South to move."""
    clock = FakeClock(100.0)
    cfg = validate(
        {
            "board": {"input": "gpio"},
            "leds": {"output": "sim"},
            "game": {"mode": "two", "variant": "V2", "pace": "step"},
            "api": {"tcp_port": 0, "web_port": -1},
        }
    )
    d = Daemon(cfg, state_dir=str(tmp_path), clock=clock)
    try:
        yield d, clock, mock_factory
    finally:
        d.close()


def _gpio_press(d: Daemon, clock: FakeClock, factory: Any, pit: int) -> Walk:
    walk = Walk()
    walk.thread = threading.get_ident()
    factory.pin(PINS[pit]).drive_low()  # the edge: queued on gpiozero's side of the hand-off
    clock.advance(0.05)  # past the debounce
    sys.setprofile(walk)
    try:
        d.tick()  # the loop's tick polls the input: the press walks the loop
    finally:
        sys.setprofile(None)
    factory.pin(PINS[pit]).drive_high()
    clock.advance(0.05)
    d.tick()
    assert walk.done.is_set(), "the press never reached the loop"
    return walk


def test_a_gpio_press_walks_each_part_once_in_the_documented_order(
    daemon: tuple[Daemon, FakeClock, Any],
) -> None:
    d, clock, factory = daemon
    walk = _gpio_press(d, clock, factory, 5)  # S6
    # Polled at the top of the loop's turn and queued: taken from the queue, not inside the
    # poll nor inside a tick's step (the old loop took it inline at the end of an empty tick).
    assert "board/loop.py" in walk.below and "hardware/edges.py" not in walk.below
    assert "BoardLoop._take" in walk.below_names, walk.below_names
    assert not {"BoardLoop._tick", "BoardLoop._finish"} & set(walk.below_names)
    assert walk.parts() == documented_walk()
    assert unmapped(walk.files) == []
    assert d.board.state()["actions"] == [] and d.board.state()["stage"] == "sow"


def test_with_exhibition_mode_on_the_press_walks_the_same_parts(
    daemon: tuple[Daemon, FakeClock, Any],
) -> None:
    d, clock, factory = daemon
    assert d.exhibition.set_enabled(True)["phase"] == "playing"  # the game plays on
    walk = _gpio_press(d, clock, factory, 5)
    assert walk.parts() == documented_walk()
    assert unmapped(walk.files) == []
    assert d.board.state()["stage"] == "sow"


def test_with_the_voice_on_the_press_walks_the_same_parts(
    mock_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The voice is a part of the walk with `[voice]` on as off: it hears the step after
    the sink and hands its sentences to the speaker's worker (the sim voice prints them)."""
    cfg = validate(
        {
            "board": {"input": "gpio"},
            "leds": {"output": "sim"},
            "game": {"mode": "two", "variant": "V2", "pace": "step"},
            "api": {"tcp_port": -1, "web_port": -1},
            "voice": {"enabled": True, "output": "sim", "what": ["guide", "accessibility"]},
        }
    )
    clock = FakeClock(100.0)
    with Daemon(cfg, state_dir=str(tmp_path), clock=clock) as d:
        assert d.exhibition.set_enabled(True)["phase"] == "playing"
        walk = _gpio_press(d, clock, mock_factory, 5)
        speaker = d.board.loop.voice.speaker
        assert speaker is not None and speaker.idle()
    assert walk.parts() == documented_walk()
    assert unmapped(walk.files) == []
    assert "\U0001f50a S6, six seeds" in capsys.readouterr().out


def test_a_press_from_the_api_walks_the_same_parts_on_the_loops_thread(
    daemon: tuple[Daemon, FakeClock, Any],
) -> None:
    d, _clock, _factory = daemon
    walk = Walk()
    threading.setprofile(walk)
    try:
        loop = d.board.loop
        loop.start()  # the loop owns the game on its own thread, as in the daemon
        walk.thread = loop._thread.ident if loop._thread else None
        assert d.api is not None
        staff = d.api.dispatcher.open_session("direct", "staff", trusted=True, wake=lambda: None)
        line = json.dumps({"id": 1, "cmd": "press", "args": {"pit": "S6"}})
        assert d.api.dispatcher.handle_line(staff, line)["ok"]  # type: ignore[index]
        assert walk.done.wait(30)
    finally:
        threading.setprofile(None)
    assert walk.parts() == documented_walk()
    assert unmapped(walk.files) == []


def test_the_walk_finds_a_part_entered_twice() -> None:
    """The check itself: a presenter that asks the session again is caught."""
    walk = Walk()
    walk.entries = ["loop", "attendant decides", "session", "presenter", "session", "loop"]
    assert walk.parts() == ["attendant decides", "session", "presenter", "session"]
    assert len(set(walk.parts())) < len(walk.parts())


def test_the_walk_finds_a_file_it_has_no_part_for() -> None:
    """The check itself: a press that ran a file the map does not name fails the walk."""
    assert unmapped({"board/loop.py", "rules/position.py", "exhibit/attendant.py"}) == []
    assert unmapped({"board/loop.py", "controller/newpart.py"}) == ["controller/newpart.py"]


def test_a_press_costs_the_loop_no_empty_tick(daemon: tuple[Daemon, FakeClock, Any]) -> None:
    """The figures of one GPIO press on the loop's thread, from the turn that polls it to its
    publish (tests/press_figures.py says how each is counted). The old loop walked an empty
    tick first and took the press inside it: 61 hops, 48 lock takes; now 49 and 36, and the
    only way back into the loop is the pin input's handler, which queues."""
    d, clock, factory = daemon
    count_locks()
    figures = Figures(lambda frame: Walk()._own(frame), until="BoardLoop._input")
    factory.pin(PINS[5]).drive_low()
    clock.advance(0.05)
    sys.setprofile(figures)
    try:
        d.tick()
    finally:
        sys.setprofile(None)
    print(figures.line())
    assert figures.done, "the press never reached the loop"
    assert figures.hops <= 52 and figures.locks <= 40, figures.line()
    loop_entries = [s for s in figures.seen if s.startswith("re-entry") and "->loop " in s]
    assert loop_entries == ["re-entry pin input->loop BoardLoop.feed"], figures.seen
