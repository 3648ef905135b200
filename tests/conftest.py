"""Project-wide pytest options and fixtures: goldens flag, gpiozero MockFactory, fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kiothi_board.hardware.clock import FakeClock


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--update-goldens` rewrites golden files instead of comparing against them."""
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="regenerate golden playthroughs (review the diff before committing)",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to regenerate goldens."""
    return bool(request.config.getoption("--update-goldens"))


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
