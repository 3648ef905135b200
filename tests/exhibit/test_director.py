"""The director between the board, the game and the store, with a scripted controller."""

from __future__ import annotations

from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.board import BoardLoop
from kiothi_board.controller import Glance, Settings, Step
from kiothi_board.controller.game import new_game
from kiothi_board.controller.notices import Finished, HintReady, Started
from kiothi_board.exhibit.attendant import Timing
from kiothi_board.exhibit.director import Director, ExhibitSettings
from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.frame import Frame
from kiothi_board.guide import Renderer
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.rules import Outcome
from kiothi_board.store.journal import Journal
from kiothi_board.store.memory import MemoryStore

WALL0 = 1_780_000_000.0  # 2026-05-28T20:26:40Z


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def now(self) -> float:
        return self.t

    def wall(self) -> float:
        return WALL0 + self.t - 100.0


class Control:
    """A scripted controller: records what the board loop asks of it and answers with the
    typed notices a real one would."""

    def __init__(self, store: Any = None) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.stage = "none"
        self.inputs: list[InputEvent] = []
        self.journal = Journal(store or MemoryStore())
        self.frame = Frame.black(16)
        self._notices: list[Any] = []

    def take(self, result: object = None) -> Step:
        notices, self._notices = tuple(self._notices), []
        return Step(notices, None, result)

    def handle(self, event: InputEvent) -> Step:
        self.inputs.append(event)
        return self.take()

    def tick(self) -> Step:
        return self.take()

    def language_default(self) -> None:
        pass  # one language: nothing to go back to

    def new_game(self, mode: Any = "two", sides: str = "S", level: Any = 3, pace: Any = "step",
                 variant: Any = None, *, long_move_laps: int = 30) -> Step:  # fmt: skip
        self.calls.append(("new_game", mode, sides, level.to_json(), pace))
        self.stage = "turn"
        settings = Settings("two" if mode == "two" else "ai")
        self._notices.append(Started(len(self.calls), settings, new_game(settings)))
        return self.take(len(self.calls))

    def run(self, command: str, arg: Any = None) -> Step:
        self.calls.append((command,))
        if command == "abandon":
            self.stage = "over"
            self._notices.append(Finished(1, Outcome.abandonment((0, 0)), "abandoned", None))  # type: ignore[arg-type]
        elif command == "hint":
            self._notices.append(HintReady(5, offered=arg == "offer"))
        return self.take()

    def glance(self) -> Glance:
        board = None if self.stage == "none" else (4,) * 20
        return Glance(None, self.stage, None, False, self.stage in ("open", "turn"), False,
                      Settings(), None, board)  # fmt: skip

    def close(self) -> None:
        pass


class Rig:
    """The director inside a board loop around a scripted controller: what the tests drive.

    `handle_event` and `tick` go through the loop (decide, act, observe, compose, show);
    the director's own attributes are read through."""

    def __init__(self, director: Director, control: Control, sink: Any, clock: Clock) -> None:
        director.start(control.glance())
        self.director = director
        self.control = control
        self.loop = BoardLoop(control, sink=sink, clock=clock, director=director)  # type: ignore[arg-type]
        self.game = self

    def handle_event(self, event: InputEvent) -> None:
        self.loop.feed(event)

    def tick(self) -> None:
        self.loop.tick()

    def show(self, frame: Any) -> None:
        """The game draws `frame` (as a real controller's step would)."""
        self.control.frame = Frame(frame)
        self.loop.call(lambda: Step((), self.control.frame))

    def set_enabled(self, on: bool) -> None:
        self.loop.ask(lambda: self.director.set_enabled(on))
        self.loop.call(lambda: Step())  # the rings follow at once

    def __getattr__(self, name: str) -> Any:
        return getattr(self.director, name)


def make(quiet: list[str] | None = None) -> tuple[Any, Control, Clock, FakePixelSink, Any]:
    clock = Clock()
    sink = FakePixelSink(16, keep=4)
    store = MemoryStore()
    settings = ExhibitSettings(
        Timing(idle_after=60, countdown=10, hint_after=30, two_player_window=3, over_seconds=5),
        level=LevelChoice(1),
    )
    director = Director(
        settings, clock=clock, store=store, renderer=Renderer(leds=16),
        schedule=Schedule(timezone="UTC", quiet=quiet or []),
    )  # fmt: skip
    control = Control(store)
    return Rig(director, control, sink, clock), control, clock, sink, store


def step(director: Any, clock: Clock, seconds: float, dt: float = 0.5) -> None:
    end = clock.t + seconds
    while clock.t < end:
        clock.t += dt
        director.tick()


def test_a_day_in_miniature_reset_attract_game_countdown_abandon() -> None:
    director, control, clock, sink, store = make()
    assert director.status()["phase"] == "reset"
    director.handle_event(InputEvent("held", 4, clock.t, seconds=1.0))
    step(director, clock, 30)
    assert director.status()["phase"] == "attract" and director.status()["showing"]
    attract_frames = len({tuple(f) for f in sink.frames})
    assert attract_frames > 3, "the attract loop animates"
    director.handle_event(InputEvent("pressed", 12, clock.t))
    assert control.inputs == [], "a waking press is not a move"
    step(director, clock, 3)
    assert control.calls == [("new_game", "ai", "N", 1, "step")]
    director.handle_event(InputEvent("pressed", 12, clock.t))
    assert control.inputs[-1].pit == 12, "in a game, presses go to the game"
    step(director, clock, 30)
    assert ("hint",) in control.calls
    step(director, clock, 30)
    assert director.status()["phase"] == "countdown"
    assert 0 < director.status()["countdown"] <= 10
    step(director, clock, 10)
    assert control.calls[-1] == ("abandon",)
    assert director.status()["phase"] == "reset"
    assert director.totals == {"started": 1, "finished": 0, "abandoned": 1}
    day = director.status()["day"]
    counts = store.get_counts(day, day)[day]
    assert counts["press.N3"] == 2 and counts["restarts"] == 1 and counts["hints_offered"] == 1
    assert "hints" not in counts, "an offered hint is not a hint asked for"


def test_quiet_hours_show_a_still_dim_invitation() -> None:
    director, _control, clock, sink, _store = make(quiet=["00:00-23:59"])
    sink.frames.clear()  # the reset picture the board showed until now
    director.handle_event(InputEvent("held", 4, clock.t, seconds=1.0))
    step(director, clock, 20)
    frames = list(sink.frames)[-3:]
    assert frames[0] == frames[-1], "no animation in quiet hours"
    assert max(c for ring in frames[-1] for led in ring for c in led) < 80, "dimmed"
