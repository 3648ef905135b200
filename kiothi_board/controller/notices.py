"""What the session tells its listeners (the presenter, the exhibition mode, tests).

Typed and in order: every change of the game is an `Applied` notice carrying the typed
game event and the game before and after it; the other notices say what happened
around the game. JSON is made of them only at the API (by the presenter).
"""

from __future__ import annotations

from dataclasses import dataclass

from kiothi_board.controller.events import GameEvent
from kiothi_board.controller.game import Game, Settings
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.rules import GameRecord, Outcome

__all__ = [
    "Applied",
    "Changed",
    "Finished",
    "HintReady",
    "Idle",
    "Inputted",
    "Notice",
    "Problem",
    "Started",
    "Wrong",
]


@dataclass(frozen=True, slots=True)
class Started:
    """A game began (its store id and settings)."""

    game_id: int
    settings: Settings


@dataclass(frozen=True, slots=True)
class Applied:
    """One game event was stored and applied: `old` became `new`."""

    event: GameEvent
    old: Game
    new: Game


@dataclass(frozen=True, slots=True)
class Finished:
    """The game is over and its record stored."""

    game_id: int
    outcome: Outcome | None
    ended: str | None
    record: GameRecord


@dataclass(frozen=True, slots=True)
class Idle:
    """The finished game left the board (the over view timed out)."""


@dataclass(frozen=True, slots=True)
class Changed:
    """Something the guide shows changed without a game event (check, pause, revert, AI)."""


@dataclass(frozen=True, slots=True)
class Wrong:
    """A press where the guide did not point (`endless`: a move that never ends, R6)."""

    pit: int
    endless: bool
    expect: int | None


@dataclass(frozen=True, slots=True)
class HintReady:
    """The AI's suggestion arrived, with why in words when the AI says (low levels do)."""

    pit: int
    why: str | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """A gesture's or the AI's command failed; the game is unchanged."""

    message: str


@dataclass(frozen=True, slots=True)
class Inputted:
    """An input event arrived from the board (or the API's press)."""

    event: InputEvent


Notice = Started | Applied | Finished | Idle | Changed | Wrong | HintReady | Problem | Inputted
