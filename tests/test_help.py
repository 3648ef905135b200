"""The help of the commands a person runs at the board speaks to that person: no test hooks."""

from __future__ import annotations

from typing import Any

import pytest

from kiothi_board.cli import main as cli_main

COMMANDS = [
    ["doctor"],
    ["firmware"],
    ["firmware", "install"],
    ["run"],
    ["leds"],
    ["pinout"],
    ["bom"],
    ["replay"],
]
INTERNALS = ("mockfactory", "inject", "test", "fake", "harness", "monkeypatch", "hook")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_shows_no_test_harness(command: list[str], capsys: Any) -> None:
    try:
        status = cli_main([*command, "--help"])
    except SystemExit as exited:  # argparse's --help
        status = exited.code  # type: ignore[assignment]
    assert status == 0
    text = capsys.readouterr().out.lower()
    assert text.startswith("usage: kiothi-board " + " ".join(command))
    assert [word for word in INTERNALS if word in text] == []
