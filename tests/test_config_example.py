"""The example configuration shipped in docs/ is valid and lists the defaults, and no doc
offers a driver the registry does not have."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.config import load, validate
from kiothi_board.errors import ConfigError
from kiothi_board.hardware.registry import LED_OUTPUTS, PIT_INPUTS, Registry

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "docs" / "config.example.toml"
REGISTRIES: dict[tuple[str, str], Registry[Any]] = {
    ("board", "input"): PIT_INPUTS,
    ("leds", "output"): LED_OUTPUTS,
}
DOCS = [
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "README.md",
    ROOT / "hardware" / "README.md",
    ROOT / "firmware" / "README.md",
]


def test_example_config_is_valid_and_matches_the_defaults() -> None:
    assert load(EXAMPLE).as_dict() == load(None).as_dict()


def example_comments() -> dict[tuple[str, str], str]:
    """(section, key) → the comment after the key's line in the example."""
    comments, section = {}, ""
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        header = re.fullmatch(r"\[(\w+)\]", line.strip())
        if header:
            section = header.group(1)
        key = re.match(r'(\w+) = ("[^"]*"|\S+)\s*#\s*(.*)$', line)
        if key:
            comments[(section, key.group(1))] = key.group(3)
    return comments


@pytest.mark.parametrize(("section", "key"), list(REGISTRIES))
def test_the_example_offers_exactly_the_registrys_choices(section: str, key: str) -> None:
    offered = re.findall(r'"([^"]+)"', example_comments()[(section, key)])
    assert sorted(offered) == sorted(REGISTRIES[(section, key)].choices())


def test_no_doc_offers_a_driver_that_is_not_registered() -> None:
    """`leds.output = "X"` in prose, `output = "X"` in a TOML block: X must be a choice."""
    stale = []
    for doc in [*DOCS, EXAMPLE]:
        text = doc.read_text(encoding="utf-8")
        for (section, key), registry in REGISTRIES.items():
            pattern = rf'(?:{section}\.)?\b{key}\s*=\s*"([^"]+)"'
            for match in re.finditer(pattern, text):
                if match.group(1) not in registry.choices():
                    line = text.count("\n", 0, match.start()) + 1
                    stale.append(f"{doc.relative_to(ROOT)}:{line}: {match.group(0)}")
    assert stale == []


def test_the_config_refuses_what_the_registry_lacks() -> None:
    with pytest.raises(ConfigError, match=r"leds\.output = 'coprocessor'"):
        validate({"leds": {"output": "coprocessor"}})
