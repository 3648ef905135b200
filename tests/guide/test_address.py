"""Which instruction lines speak to the player (kiothi_board/guide/address.py): the list is
the data a watcher's page reads in every language; here it is checked against the English
source, once, where the words are written."""

from __future__ import annotations

import re

from babel.messages.pofile import read_po

from kiothi_board.guide.address import TO_PLAYER, speaks_to_player
from kiothi_board.i18n import tr, trp
from kiothi_board.tools.i18n import POT

GUIDE = ("guide/instructions.py", "guide/restore.py", "guide/tutorial.py")
ADDRESSES = re.compile(r"\b(you|your|press|hold)\b", re.IGNORECASE)


def _guide_ids() -> set[str]:
    with POT.open("rb") as f:
        cat = read_po(f)
    return {
        m.id if isinstance(m.id, str) else m.id[0]  # a plural's id is its singular
        for m in cat
        if m.id and any(f.endswith(GUIDE) for f, _ in m.locations)
    }


def test_the_list_is_every_guide_line_that_speaks_to_the_player() -> None:
    ids = _guide_ids()
    assert TO_PLAYER - ids == set(), "listed but no longer a guide line"
    missing = {i for i in ids if ADDRESSES.search(i)} - TO_PLAYER
    assert missing == set(), f"a guide line speaks to the player but is not listed: {missing}"
    listed_third = {i for i in TO_PLAYER if not ADDRESSES.search(i)}
    assert listed_third == set(), listed_third


def test_a_line_inside_a_line_counts() -> None:
    side = trp("side", "South")
    asks = tr("{side} to move: press one of your breathing pits ({pits}) to sow it.", side=side,
              pits="S1")  # fmt: skip
    assert speaks_to_player(asks)
    assert speaks_to_player(tr("{line} {extra}", line=asks, extra=""))
    assert not speaks_to_player(tr("{side} is thinking…", side=side))
    assert not speaks_to_player("Press a pit")  # plain text carries no id: not the player's
