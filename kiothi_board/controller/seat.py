"""A seat on the web: a person on a phone plays one side behind the `Opponent` protocol.

The board treats the seat's side as it treats the AI's: the session asks the side's
opponent (`WebSeat.start`) for a move and polls the handle; the handle is done when the
seat's `move` or `opening` command arrives (`WebSeat.play`), and the board then guides the
hand at the board through that move pit by pit, as it does the AI's. The `remote:` player
of two linked boards is the same kind of thing.

An agreement or a takeback needs both players' yes: the first asks (`Offer`), the other's
same command accepts it; any action played meanwhile withdraws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kiothi_board.controller.opponent import Choice
from kiothi_board.controller.settings import Settings
from kiothi_board.i18n import Msg, tr, trp
from kiothi_board.rules import Position, Side

__all__ = ["Offer", "OfferKind", "SeatHandle", "WebSeat", "offer_line"]

OfferKind = Literal["end", "undo"]


class SeatHandle:
    """The wait for the seat's choice in one position."""

    def __init__(self, seat: WebSeat, position: Position) -> None:
        """Wait for `seat`'s choice in `position`."""
        self._seat = seat
        self._position = position
        self.cancelled = False

    def done(self) -> bool:
        """True once the seat has chosen in this position; never blocks."""
        return not self.cancelled and self._seat.chosen(self._position) is not None

    def result(self) -> Choice:
        """The seat's choice (asked only once `done()`)."""
        choice = self._seat.chosen(self._position)
        assert choice is not None, "result() before done()"
        return choice

    def cancel(self) -> None:
        """The position changed (an undo, a resignation): the choice is not wanted."""
        self.cancelled = True


class WebSeat:
    """One side played from a seat on the web (an `Opponent`)."""

    def __init__(self, side: Side) -> None:
        """No choice yet."""
        self.side = side
        self._choice: tuple[Position, Choice] | None = None

    def start(self, position: Position) -> SeatHandle:
        """Wait for the seat's choice in `position` (a choice for another one is dropped)."""
        if self._choice is not None and self._choice[0] != position:
            self._choice = None
        return SeatHandle(self, position)

    def play(self, position: Position, choice: Choice) -> None:
        """The seat chose `choice` in `position` (checked by the caller)."""
        self._choice = (position, choice)

    def chosen(self, position: Position) -> Choice | None:
        """The seat's choice in `position`, if it made one."""
        if self._choice is None or self._choice[0] != position:
            return None
        return self._choice[1]


@dataclass(frozen=True, slots=True)
class Offer:
    """`side` asks to end by agreement (`end`) or to take back the last move (`undo`);
    good while the game's stored events stay at `seq`."""

    kind: OfferKind
    side: Side
    seq: int

    def to_json(self) -> dict[str, str]:
        """`{"kind": "end", "side": "N"}` (the API's `state.offer`)."""
        return {"kind": self.kind, "side": self.side.letter}


def live_offer(offer: Offer | None, seq: int) -> Offer | None:
    """The offer while no action was played after it (the game's events still at `seq`);
    a value of the session read where it is shown, not a call back into the session."""
    return offer if offer is not None and offer.seq == seq else None


# The board's chords for `end` and `undo` (controller/table.py; tests/controller/test_seat.py
# checks these names against the table).
END_CHORD = "S10+N1"
UNDO_CHORD = "S5+S6"


def offer_line(offer: Offer, settings: Settings) -> Msg:
    """What the board says while an offer stands (before its usual line)."""
    if settings.is_web(offer.side):
        if offer.kind == "end":
            return tr(
                "The web player offers to end the game by agreement (R13): press {chord} "
                "together to agree, or play on.",
                chord=END_CHORD,
            )
        return tr(
            "The web player asks to take back the last move: press {chord} together to "
            "agree, or play on.",
            chord=UNDO_CHORD,
        )
    side = trp("side", "South") if offer.side is Side.S else trp("side", "North")
    if offer.kind == "end":
        return tr(
            "{side} offers the web player to end the game by agreement: waiting for the answer.",
            side=side,
        )
    return tr(
        "{side} asks the web player to take back the last move: waiting for the answer.",
        side=side,
    )
