"""Fixtures for the API tests (helpers live in tests/api/helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kiothi_board.api import ControllerService, FakeBoardService, FrameTap
from kiothi_board.controller import Controller, RandomOpponent
from kiothi_board.hardware.clock import SystemClock
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.store.memory import MemoryStore
from tests.api.helpers import Ticker


@pytest.fixture
def fake_service() -> FakeBoardService:
    """A rules-only board service."""
    return FakeBoardService()


@pytest.fixture
def real_service(
    pixel_sink: FakePixelSink,
) -> Iterator[tuple[ControllerService, Controller, FakePixelSink]]:
    """The real controller behind the adapter, ticking on a thread, with random AIs."""
    sink = pixel_sink
    tap = FrameTap(sink)
    store = MemoryStore()
    ctl = Controller(
        sink=tap,
        clock=SystemClock(),
        store=store,
        opponent_factory=lambda level: RandomOpponent(level),
        flow_seconds=0.01,
        over_seconds=-1,
        resume=False,
    )
    service = ControllerService(ctl, store, tap=tap)
    ticker = Ticker(ctl)
    yield service, ctl, sink
    ticker.close()
    ctl.close()
