"""A rig of fake drivers around a Board, and a player who follows the lights."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from kiothi_board.controller import Controller
from kiothi_board.guide import DEFAULT, Cue
from kiothi_board.hardware.fakes import FakePitInput, FakePixelSink
from kiothi_board.rules import parse_pit
from kiothi_board.store.memory import MemoryStore

TICK = 0.05


@dataclass
class Rig:
    clock: FakeClock
    sink: FakePixelSink
    pit_input: FakePitInput
    store: MemoryStore
    ctl: Board
    events: list[dict[str, Any]] = field(default_factory=list)

    def lit(self, cue: Cue) -> list[int]:
        """Pits whose whole ring shows `cue`'s colour in the last frame shown."""
        frame = self.sink.last
        assert frame is not None
        colour = DEFAULT.cue_colour(cue)
        return [p for p, ring in enumerate(frame) if all(c == colour for c in ring)]

    def tick(self, seconds: float = TICK) -> None:
        self.clock.advance(seconds)
        self.ctl.tick()

    def follow(self, rng: random.Random, *, limit: int = 200_000, hold: float = 1.5) -> int:
        """Play until the game is over, pressing where the guide points. Returns presses."""
        presses = 0
        for _ in range(limit):
            st = self.ctl.state()
            if st["stage"] in ("over", "none"):
                return presses
            guide = st["guide"]
            settings = st["settings"]
            auto = not settings["humans"] or (
                settings["pace"] == "flow" and guide and guide["kind"] in ("lift", "relay", "drop")
            )
            if st["stage"] == "set" and settings["humans"]:
                self.pit_input.hold(rng.randrange(20), hold)  # one hold confirms the board
                presses += 1
                continue
            if guide is not None and not auto:
                pit = self.ctl.ask(Controller.expected_pit)
                assert pit is not None
                if guide["kind"] == "drop":
                    # A player follows the light: the next drop is the fully lit green ring.
                    self.clock.set(int(self.clock.now()) + 1.0)  # on the beat
                    self.ctl.tick()
                    assert self.lit(Cue.DROP) == [pit]
                self.pit_input.tap(pit)
                presses += 1
                continue
            if st["stage"] == "turn" and not st["ai_to_move"]:
                self.pit_input.tap(parse_pit(rng.choice(st["position"]["legal"])))
                presses += 1
                continue
            if st["stage"] == "open" and not st["ai_to_move"]:
                if st["lifted"]:
                    self.pit_input.tap(rng.randrange(20))
                elif rng.random() < 0.5:
                    self.pit_input.tap(parse_pit(rng.choice(st["position"]["legal"])))
                else:
                    self.pit_input.hold(parse_pit(rng.choice(st["position"]["legal"])), hold)
                presses += 1
                continue
            self.tick()
        raise AssertionError(f"game did not end: {self.ctl.state()}")


def make_rig(store: MemoryStore | None = None, **kwargs: Any) -> Rig:
    clock = FakeClock()
    sink = FakePixelSink(keep=50)
    pit_input = FakePitInput(clock)
    store = store or MemoryStore()
    ctl = Board(sink=sink, clock=clock, store=store, **kwargs)
    rig = Rig(clock, sink, pit_input, store, ctl)
    ctl.add_listener(rig.events.append)
    pit_input.start(ctl.handle_event)
    return rig


@pytest.fixture
def rig() -> Rig:
    return make_rig()
