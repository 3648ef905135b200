"""Whom the instruction line speaks to: the lines that ask the person at the board to press or
hold, or say "you", by message id. The state's `to_player` carries it, so a watcher's page
shows the game in the third person instead of such a line in any language (it read the
English words before: every other language's line was shown to watchers as it was).

A new line that speaks to the player belongs here (tests/guide/test_address.py lists any
that is missing)."""

from __future__ import annotations

from kiothi_board.i18n import Msg
from kiothi_board.i18n.msg import Joined

__all__ = ["TO_PLAYER", "speaks_to_player"]

TO_PLAYER = frozenset(
    {
        # guide/instructions.py
        "No game: hold any pit for a second to start a new game.",
        "Board check: every ring shows the count its pit should hold; press a pit that "
        "differs to mark it, then press S1+S10 together to leave the check.",
        "Game over: the game was abandoned, with no winner and no draw (R13). Hold any pit "
        "for a new game.",
        "{how}. {score} Hold any pit for a new game.",
        "{side} to move: press one of your breathing pits ({pits}) to sow it.",
        "{side}'s opening: press one of your pits to lift its seeds and place them anywhere, "
        "or hold a pit to pass.",
        "{side}'s opening: lift another of your pits, or hold a pit to finish.",
        "{side}'s opening: place the seeds from {pit} one at a time — press a pit for each "
        "seed, {n} left.",
        "Set {pit} to {seeds}, then press it.",
        "Paused: press any pit to go on.",
        "Follow the light: drop one seed in {pit} ({n} in hand). Press a pit to pause.",
        "No game yet: hold any pit for a second to start one.",
        "The game is over: hold any pit for a new game.",
        "{pit} needs no press now.",
        "{pit} is {other}'s pit: press one of yours ({side}).",
        # guide/restore.py
        "{title}: the board already holds these counts — hold any pit to confirm.",
        "{title}: every pit is set — hold any pit to confirm the board.",
        "{title}: set {pits}, then hold any pit to confirm the board.",
        "{title}: set the {n} blinking pit to the count its ring shows, then hold any pit to "
        "confirm the board.",
        # guide/tutorial.py
        "The opening: before the first move you may lift one of your pits and spread its "
        "seeds anywhere.",
        "Your first move: lift every seed of the white pit.",
        "You ended in your row after crossing: capture!",
        "That is all: play on; your pits that can move breathe.",
    }
)


def speaks_to_player(line: object) -> bool:
    """Whether `line` (or a message inside it: a tutorial's lesson, a hint) speaks to the
    player at the board."""
    if not isinstance(line, Msg):
        return False
    if line.msgid in TO_PLAYER:
        return True
    parts = line.parts if isinstance(line, Joined) else tuple(line.args.values())
    return any(speaks_to_player(p) for p in parts)
