"""Typed game events: every change of a game, as stored and replayed.

Inside the package a game event is one of the frozen dataclasses below, handled with
`match`. JSON appears only at the store boundary: `to_json` writes the dict the store keeps,
`from_json` reads it back, including every event written before these classes existed
(the names and keys are unchanged; tests/controller/data holds such a store).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiothi_board.errors import RecordError
from kiothi_board.rules import OpeningAction, Side, parse_opening, parse_pit, pit_name

__all__ = [
    "Abandon",
    "Advance",
    "Agree",
    "Complete",
    "GameEvent",
    "OpenEnd",
    "OpenGuided",
    "OpenLift",
    "OpenPlace",
    "Resign",
    "Revert",
    "Select",
    "Undo",
    "Walk",
    "from_json",
    "to_json",
]


@dataclass(frozen=True, slots=True)
class Select:
    """A sowing move chosen; `lifted`: the hand already lifted the pit (a board press)."""

    pit: int
    lifted: bool = False
    walk: bool = False  # walk a long move drop by drop from the start


@dataclass(frozen=True, slots=True)
class Walk:
    """A long move's result is walked drop by drop instead of set pit by pit."""


@dataclass(frozen=True, slots=True)
class Advance:
    """The guided step in progress is done (a drop pressed, an animation frame passed)."""


@dataclass(frozen=True, slots=True)
class Complete:
    """The guided sequence is finished: its action (or correction) takes effect."""


@dataclass(frozen=True, slots=True)
class OpenGuided:
    """A whole opening action (the AI's, or typed), guided seed by seed."""

    action: OpeningAction


@dataclass(frozen=True, slots=True)
class OpenLift:
    """A human lifts an own pit in the opening (R3)."""

    pit: int


@dataclass(frozen=True, slots=True)
class OpenPlace:
    """A human places one lifted seed in the opening."""

    pit: int


@dataclass(frozen=True, slots=True)
class OpenEnd:
    """A human ends the opening action (pass, or one lift only under V1)."""


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last action (or the one in progress), guided back to the old counts.

    `own_turn`: an AI's move in progress is taken back with the human's move before it, to
    the human's own turn (or the AI would replay it). Stored undos without it (written
    before it existed) replay as they were played: the move in progress only."""

    own_turn: bool = False


@dataclass(frozen=True, slots=True)
class Resign:
    """`side` resigns (R13)."""

    side: Side


@dataclass(frozen=True, slots=True)
class Agree:
    """Both players agree to end (R13)."""


@dataclass(frozen=True, slots=True)
class Abandon:
    """The game is left unfinished (R13): no seeds move, no winner."""


@dataclass(frozen=True, slots=True)
class Revert:
    """Drop the last `n` stored events (a press that began a hold or chord is taken back)."""

    n: int


GameEvent = (
    Select
    | Walk
    | Advance
    | Complete
    | OpenGuided
    | OpenLift
    | OpenPlace
    | OpenEnd
    | Undo
    | Resign
    | Agree
    | Abandon
    | Revert
)

_BARE: dict[str, GameEvent] = {
    "walk": Walk(),
    "step": Advance(),
    "complete": Complete(),
    "open_end": OpenEnd(),
    "undo": Undo(),
    "agree": Agree(),
    "abandon": Abandon(),
}


def to_json(event: GameEvent) -> dict[str, Any]:
    """The stored dict of an event (the format of every stored game so far)."""
    match event:
        case Select(pit, lifted, walk):
            out: dict[str, Any] = {"type": "select", "pit": pit_name(pit), "lifted": lifted}
            return {**out, "walk": True} if walk else out
        case OpenGuided(action):
            return {"type": "open_guided", "action": str(action)}
        case OpenLift(pit):
            return {"type": "open_lift", "pit": pit_name(pit)}
        case OpenPlace(pit):
            return {"type": "open_place", "pit": pit_name(pit)}
        case Resign(side):
            return {"type": "resign", "side": side.letter}
        case Revert(n):
            return {"type": "revert", "n": n}
        case Undo(True):
            return {"type": "undo", "own_turn": True}
    for name, bare in _BARE.items():
        if event == bare:
            return {"type": name}
    raise TypeError(f"not a game event: {event!r}")


def from_json(data: Any) -> GameEvent:
    """Read a stored event; a malformed one is a RecordError naming it."""
    try:
        kind = data["type"]
        if kind == "undo" and data.get("own_turn") is True:
            return Undo(own_turn=True)
        if kind in _BARE:
            return _BARE[kind]
        match kind:
            case "select":
                return Select(
                    parse_pit(data["pit"]), bool(data.get("lifted")), bool(data.get("walk"))
                )
            case "open_guided":
                return OpenGuided(parse_opening(data["action"]))
            case "open_lift":
                return OpenLift(parse_pit(data["pit"]))
            case "open_place":
                return OpenPlace(parse_pit(data["pit"]))
            case "resign":
                return Resign(Side.parse(data["side"]))
            case "revert":
                n = data["n"]
                if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                    raise ValueError(f"n must be a positive integer, got {n!r}")
                return Revert(n)
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"bad game event {data!r}: {exc}") from None
    raise RecordError(f"unknown game event {data!r}")
