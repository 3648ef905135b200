"""The director between the board, the game and the store, with a scripted controller."""

from __future__ import annotations

from typing import Any

from kiothi_board.exhibit.attendant import Timing
from kiothi_board.exhibit.director import Director, ExhibitSettings
from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.guide import Renderer
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.hardware.protocols import InputEvent
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
    """Records what the director asks and emits the controller's API events."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.listeners: list[Any] = []
        self.stage = "none"
        self.inputs: list[InputEvent] = []

    def new_game(self, mode: Any = "two", sides: str = "S", level: Any = 3, pace: Any = "step",
                 variant: Any = None, *, long_move_laps: int = 30) -> int:  # fmt: skip
        self.calls.append(("new_game", mode, sides, level, pace))
        self.stage = "turn"
        self.emit({"type": "new_game", "id": len(self.calls), "mode": mode})
        return len(self.calls)

    def abandon(self) -> None:
        self.calls.append(("abandon",))
        self.stage = "over"
        self.emit({"type": "game_over", "result": {"winner": None, "end": "abandoned"}})

    def hint(self) -> None:
        self.calls.append(("hint",))
        self.emit({"type": "hint", "pit": "S6"})

    def handle_event(self, event: InputEvent) -> None:
        self.inputs.append(event)

    def state(self) -> dict[str, Any]:
        return {"stage": self.stage, "expect": None, "ai_to_move": False, "board": [4] * 20}

    def add_listener(self, listener: Any) -> None:
        self.listeners.append(listener)

    def emit(self, event: dict[str, Any]) -> None:
        for listener in self.listeners:
            listener(event)


def make(quiet: list[str] | None = None) -> tuple[Director, Control, Clock, FakePixelSink, Any]:
    clock = Clock()
    sink = FakePixelSink(16, keep=4)
    store = MemoryStore()
    settings = ExhibitSettings(
        Timing(idle_after=60, countdown=10, hint_after=30, two_player_window=3, over_seconds=5),
        level=1,
    )
    director = Director(
        settings, sink=sink, clock=clock, store=store, renderer=Renderer(leds=16),
        schedule=Schedule(timezone="UTC", quiet=quiet or []),
    )  # fmt: skip
    control = Control()
    director.attach(control)
    return director, control, clock, sink, store


def step(director: Director, clock: Clock, seconds: float, dt: float = 0.5) -> None:
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
    director.handle_event(InputEvent("held", 4, clock.t, seconds=1.0))
    step(director, clock, 20)
    frames = list(sink.frames)[-3:]
    assert frames[0] == frames[-1], "no animation in quiet hours"
    assert max(c for ring in frames[-1] for led in ring for c in led) < 80, "dimmed"
