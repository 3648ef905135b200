"""docs/api.md's command reference is the one the command table makes (no second list)."""

from __future__ import annotations

from pathlib import Path

from kiothi_board.cli import main as cli_main
from kiothi_board.tools.command_help import markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"
START = (
    "<!-- commands: made by `kiothi-board help --markdown`; "
    "tests/test_api_reference.py checks it -->\n"
)
END = "<!-- end of commands -->"


def test_the_api_reference_is_made_from_the_table() -> None:
    text = DOC.read_text("utf-8")
    kept = text.split(START, 1)[1].split(END, 1)[0]
    assert kept == markdown(), "run `kiothi-board help --markdown` into docs/api.md"


def test_help_prints_every_command_with_its_help_line(capsys: object) -> None:
    assert cli_main(["help", "--lang", "en"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    for name, line in (("hint", "ask for a hint"), ("new_game", "start a game"), ("tap", "")):
        assert f"  {name}" in out and line in out
    assert "who: seat" in out and "who: staff" in out
