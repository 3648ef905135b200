"""`kiothi-board help`: the board's commands from the command table, with their help.

`--markdown` prints docs/api.md's command reference (tests/test_api_reference.py checks
that the page holds exactly this); `--lang` says the help lines in another language.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from kiothi_board.api.exhibit_doors import EXHIBIT_COMMANDS
from kiothi_board.controller.spec import CommandSpec
from kiothi_board.controller.table import TABLE
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.i18n import available
from kiothi_board.remote.doors import REMOTE_COMMANDS

__all__ = ["main", "markdown", "served"]

_ROLE = {"spectator": "", "seat": "seat", "control": "C", "staff": "staff"}


def served() -> list[CommandSpec]:
    """Every command of the API: the table's, then the exhibition's."""
    return [*TABLE.doors(), *EXHIBIT_COMMANDS, *REMOTE_COMMANDS]


def markdown() -> str:
    """docs/api.md's command reference, made from the table."""
    rows = ["| cmd | args | result | who |", "| --- | --- | --- | --- |"]
    for s in served():
        rows.append(f"| `{s.name}` | {s.usage()} | {s.returns} | {_ROLE[s.role]} |")
    return "\n".join(rows) + "\n"


def text(lang: str | None) -> str:
    """The commands, each with its arguments, who may run it and its help line."""
    lines = []
    for s in served():
        lines.append(f"  {s.name:14} {s.help.render(lang)}")
        lines.append(f"  {'':14} args: {s.usage()}; who: {s.role}")
    board = [s for s in TABLE if not s.door]
    lines.append("")
    lines.append("  the board's own (its gestures, chords, buttons and keys):")
    lines.extend(f"  {s.name:14} {s.help.render(lang)}" for s in board)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the commands (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board help",
        description="The board's commands: those of the API (every door), then the board's own.",
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("--lang", choices=available(), help="the help lines in this language")
    parser.add_argument("--markdown", action="store_true", help="docs/api.md's command table")
    args = parser.parse_args(argv)
    print(markdown() if args.markdown else text(args.lang), end="")
    return 0
