"""Whom the instruction line speaks to: a line that asks the person at the board to press or
hold, or says "you", is marked where the guide makes it (`to_player(tr(...))`), and the
state's `to_player` reads the mark, so a watcher's page shows the game in the third person
instead of such a line, in any language (a venue's own too: the mark is on the message, not
on its words).

tests/guide/test_address.py names a guide line that speaks to the player but is not marked."""

from __future__ import annotations

from kiothi_board.i18n import Msg
from kiothi_board.i18n.msg import Joined

__all__ = ["speaks_to_player", "to_player"]


def to_player(line: Msg) -> Msg:
    """`line`, marked as speaking to the player at the board."""
    return Msg(
        line.msgid,
        line.args,
        plural=line.plural,
        count=line.count_key,
        context=line.context,
        addressed=True,
    )


def speaks_to_player(line: object) -> bool:
    """Whether `line` (or a message inside it: a tutorial's lesson, a hint) speaks to the
    player at the board."""
    if not isinstance(line, Msg):
        return False
    if line.addressed:
        return True
    parts = line.parts if isinstance(line, Joined) else tuple(line.args.values())
    return any(speaks_to_player(p) for p in parts)
