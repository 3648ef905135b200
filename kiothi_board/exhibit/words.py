"""What the exhibition says while no game is played, in one place: the terminal prints
these, and the page shows the API's `exhibit` status' `instruction` (and, in the attract
loop, `invitations`: the invitation in each of the venue's languages), made from them."""

from __future__ import annotations

import math

from kiothi_board.i18n import Msg, tr

__all__ = [
    "ATTRACT",
    "CLOSED",
    "INVITE_SECONDS",
    "THEN_RESET",
    "THEN_RESET_CLOSED",
    "WAKING",
    "countdown_line",
    "invitation_at",
    "phase_line",
]

ATTRACT = tr("Press any pit to play against the board, or a pit on each side for two players.")
WAKING = tr("Two players? Press a pit on the other side now.")
CLOSED = tr("The board is resting until the next opening hours.")
# What follows a game's result (the twin's game-over veil says the same).
THEN_RESET = tr("Reset the board to the start, then hold any pit: it invites the next visitors.")
THEN_RESET_CLOSED = tr(
    "Reset the board to the start, then hold any pit: it rests until the next opening hours."
)


INVITE_SECONDS = 5.0
"""Each language's turn at inviting, in the attract loop (the twin's INVITE_MS too)."""


def invitation_at(seconds: float, languages: tuple[str, ...]) -> tuple[str, str]:
    """The language whose turn it is `seconds` into the day (wall time), and the
    invitation in it: the attract loop speaks each of the venue's languages in turn."""
    langs = languages or ("en",)
    lang = langs[int(seconds // INVITE_SECONDS) % len(langs)]
    return lang, ATTRACT.render(lang)


def countdown_line(seconds: float) -> Msg:
    """The idle countdown, with the whole seconds left (a no-break space keeps the number
    with its unit on a narrow screen)."""
    return tr("Still playing? Press any pit: this game ends in {n}\u00a0s.", n=math.ceil(seconds))


def phase_line(phase: str, countdown: float | None, reset: str | None) -> str | None:
    """The line for an exhibition phase (None while a game is played: the game's own line)."""
    if phase == "countdown" and countdown is not None:
        return countdown_line(countdown)
    if phase == "reset":
        return reset
    return {"attract": ATTRACT, "waking": WAKING, "closed": CLOSED}.get(phase)
