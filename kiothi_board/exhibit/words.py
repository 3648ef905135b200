"""What the exhibition says while no game is played, in one place (the terminal and the
API's `exhibit` status print these; the page has its own copy in twin.js)."""

from __future__ import annotations

import math

from kiothi_board.i18n import Msg, tr

__all__ = ["ATTRACT", "CLOSED", "WAKING", "countdown_line", "phase_line"]

ATTRACT = tr("Press any pit to play against the board, or a pit on each side for two players.")
WAKING = tr("Two players? Press a pit on the other side now.")
CLOSED = tr("The board is resting until the next opening hours.")


def countdown_line(seconds: float) -> Msg:
    """The idle countdown, with the whole seconds left."""
    return tr("Still playing? Press any pit: this game ends in {n} s.", n=math.ceil(seconds))


def phase_line(phase: str, countdown: float | None, reset: str | None) -> str | None:
    """The line for an exhibition phase (None while a game is played: the game's own line)."""
    if phase == "countdown" and countdown is not None:
        return countdown_line(countdown)
    if phase == "reset":
        return reset
    return {"attract": ATTRACT, "waking": WAKING, "closed": CLOSED}.get(phase)
