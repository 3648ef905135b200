"""Fixtures for the API tests: a real controller on fake drivers (helpers: tests/api/helpers.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from kiothi_board.board import Board
from kiothi_board.clock import FakeClock, SystemClock
from kiothi_board.controller import random_opponents
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.store.memory import MemoryStore
from tests.api.helpers import Ticker


def make_board(**kwargs: object) -> Board:
    """The board service the API tests drive: the real controller on fake drivers."""
    options: dict[str, object] = {
        "sink": FakePixelSink(leds_per_ring=16, keep=50),
        "clock": FakeClock(),
        "store": MemoryStore(),
        "opponent_factory": random_opponents(random.Random(8)),
        "over_seconds": -1,
        "resume": False,
    }
    options.update(kwargs)
    return Board(**options)  # type: ignore[arg-type]


@pytest.fixture
def board() -> Iterator[Board]:
    """A controller on a fake clock (nothing ticks it: use pace `instant` to play)."""
    ctl = make_board()
    yield ctl
    ctl.close()


@pytest.fixture
def real_service(pixel_sink: FakePixelSink) -> Iterator[tuple[Board, FakePixelSink]]:
    """The controller ticking on a thread on the system clock, with random AIs."""
    ctl = make_board(sink=pixel_sink, clock=SystemClock(), flow_seconds=0.01)
    ticker = Ticker(ctl)
    yield ctl, pixel_sink
    ticker.close()
    ctl.close()
