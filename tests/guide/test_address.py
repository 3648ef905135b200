"""Which instruction lines speak to the player (kiothi_board/guide/address.py): each such line
is marked where the guide makes it (`to_player(tr(...))`), the mark the state's `to_player`
and a watcher's page read in every language; here the marks are checked against the English
source, once, where the words are written."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from kiothi_board.guide import address
from kiothi_board.guide.address import speaks_to_player, to_player
from kiothi_board.i18n import tr, trp

PACKAGE = Path(__file__).resolve().parents[2] / "kiothi_board"
GUIDE = ("guide/instructions.py", "guide/restore.py", "guide/tutorial.py")
ADDRESSES = re.compile(r"\b(you|your|press|hold)\b", re.IGNORECASE)


def _lines() -> list[tuple[str, str, bool]]:
    """Every (file, message id, marked) of the guide's tr/trn calls."""
    out = []
    for name in GUIDE:
        tree = ast.parse((PACKAGE / name).read_text("utf-8"))
        marked = {
            id(node.args[0])
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "to_player"
            and node.args
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("tr", "trn")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                out.append((name, str(node.args[0].value), id(node) in marked))
    return out


def test_every_guide_line_that_speaks_to_the_player_is_marked_where_it_is_made() -> None:
    lines = _lines()
    assert len([m for _, _, m in lines if m]) >= 20, "the guide's lines were not found"
    unmarked = {(f, i) for f, i, m in lines if ADDRESSES.search(i) and not m}
    assert unmarked == set(), f"a guide line speaks to the player but is not marked: {unmarked}"
    third = {(f, i) for f, i, m in lines if m and not ADDRESSES.search(i)}
    assert third == set(), f"marked, but it does not speak to the player: {third}"


def test_no_second_list_of_english_ids() -> None:
    assert not hasattr(address, "TO_PLAYER")


def test_a_line_inside_a_line_counts() -> None:
    side = trp("side", "South")
    asks = to_player(
        tr("{side} to move: press one of your breathing pits ({pits}) to sow it.", side=side,
           pits="S1")
    )  # fmt: skip
    assert speaks_to_player(asks)
    assert speaks_to_player(tr("{line} {extra}", line=asks, extra=""))
    assert not speaks_to_player(tr("{side} is thinking…", side=side))
    assert not speaks_to_player("Press a pit")  # plain text carries no id: not the player's
    # The same words without the mark (another part's line) do not speak to the player.
    assert not speaks_to_player(tr(asks.msgid, side=side, pits="S1"))
