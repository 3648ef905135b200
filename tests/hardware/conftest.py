"""Fixtures for the hardware tests: a gpiozero MockFactory reset after each test, a fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kiothi_board.hardware.clock import FakeClock


@pytest.fixture
def mock_factory() -> Iterator[Any]:
    """A gpiozero `MockFactory`, also installed as the default, reset and removed afterwards."""
    from gpiozero import Device  # type: ignore[import-untyped]
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    previous = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = previous


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock starting at 100 s (not 0, so a time of 0 stands out as a bug)."""
    return FakeClock(100.0)
