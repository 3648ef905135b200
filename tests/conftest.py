"""Project-wide pytest options and fixtures."""

from __future__ import annotations

import pytest


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
