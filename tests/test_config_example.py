"""The example configuration shipped in docs/ is valid and lists the defaults."""

from __future__ import annotations

from pathlib import Path

from kiothi_board.config import load

EXAMPLE = Path(__file__).parent.parent / "docs" / "config.example.toml"


def test_example_config_is_valid_and_matches_the_defaults() -> None:
    assert load(EXAMPLE).as_dict() == load(None).as_dict()
