"""What happened in a step of the board: the typed notices a `Step` carries, in order.

Every change of the game is an `Applied` notice carrying the typed game event and the game
before and after it; the other notices say what happened around the game. The session
makes most of them, the presenter adds the words a person reads (`Guided`, a wrong press's
message). The exhibition observes them; JSON is made of them only at the API boundary
(`kiothi_board.board.api_events`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiothi_board.controller.events import GameEvent
from kiothi_board.controller.game import Game, Settings
from kiothi_board.guide.steps import GuideStep
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.rules import GameRecord, Outcome

__all__ = [
    "Applied",
    "Changed",
    "Failure",
    "Finished",
    "Guided",
    "HintReady",
    "Idle",
    "Inputted",
    "LanguageChanged",
    "Notice",
    "SettingsChanged",
    "Started",
    "VoiceAsked",
    "Wrong",
]


@dataclass(frozen=True, slots=True)
class Started:
    """A game began (its store id, settings and the game as it starts)."""

    game_id: int
    settings: Settings
    game: Game


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
    """Something the guide shows changed without a game event (check, pause, revert, AI);
    `reverted`: a hold or chord took back the press on this pit (and its wrong-press words)."""

    reverted: int | None = None


@dataclass(frozen=True, slots=True)
class Wrong:
    """A press where the guide did not point (`endless`: a move that never ends, R6);
    `message` is why, in words (the presenter fills it in)."""

    pit: int
    endless: bool
    expect: int | None
    message: str = ""


@dataclass(frozen=True, slots=True)
class HintReady:
    """The AI's suggestion arrived, with why in words when the AI says (low levels do);
    `offered`: the exhibition offered it to a visitor who paused, nobody asked."""

    pit: int
    why: str | None = None
    offered: bool = False


@dataclass(frozen=True, slots=True)
class Failure:
    """A gesture's or the AI's command failed; the game is unchanged."""

    message: str  # a Msg: each reader renders it in its language


@dataclass(frozen=True, slots=True)
class Guided:
    """What the guide shows now, in words: the presenter's line after a change."""

    stage: str
    step: GuideStep | None
    index: int
    check: bool
    text: str


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    """The operator settings were saved (palette, brightness, the game's defaults)."""

    settings: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Inputted:
    """An input event arrived from the board (or the API's press)."""

    event: InputEvent


@dataclass(frozen=True, slots=True)
class LanguageChanged:
    """The board's language changed to `lang` (`index` in the venue's list, from 0)."""

    lang: str
    index: int


@dataclass(frozen=True, slots=True)
class VoiceAsked:
    """A command for the board's voice (kiothi_board/board/speech.py hears it): `repeat`
    the last sentence, read the `board` out, or `set` it on or off (`on`) or its `volume`."""

    what: str
    on: bool | None = None
    volume: float | None = None


Notice = (
    Started
    | Applied
    | Finished
    | Idle
    | Changed
    | Wrong
    | HintReady
    | Failure
    | Inputted
    | Guided
    | SettingsChanged
    | LanguageChanged
    | VoiceAsked
)
