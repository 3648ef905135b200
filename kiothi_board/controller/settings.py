"""How a game is played (`Settings`), and how its settings are stored with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kiothi_board.ai.levels import LADDER_VERSION, LevelChoice, stored_level
from kiothi_board.rules import STANDARD, Side, Variant

__all__ = ["DEFAULT_LONG_MOVE_LAPS", "Mode", "Pace", "Settings"]

Mode = Literal["two", "ai", "demo"]
Pace = Literal["step", "flow", "instant"]
DEFAULT_LONG_MOVE_LAPS = 30
DEFAULT_LEVEL = LevelChoice(3)


@dataclass(frozen=True, slots=True)
class Settings:
    """How a game is played: who plays which side, the AI level, the pace, the rules.

    `humans` play at the board; `web` sides are played from a seat on the web (a phone,
    kiothi_board/controller/seat.py); the AI plays any other side."""

    mode: Mode = "two"
    humans: tuple[Side, ...] = (Side.S, Side.N)
    level: LevelChoice = DEFAULT_LEVEL
    pace: Pace = "step"
    variant: Variant = STANDARD
    long_move_laps: int = DEFAULT_LONG_MOVE_LAPS
    web: tuple[Side, ...] = ()

    def is_ai(self, side: Side) -> bool:
        """Whether nobody at the board plays `side` (the AI, or a seat on the web)."""
        return side not in self.humans

    def is_web(self, side: Side) -> bool:
        """Whether a seat on the web plays `side`."""
        return side in self.web and side not in self.humans

    @property
    def auto(self) -> bool:
        """True when nobody is at the board (AI against AI): every step advances by itself."""
        return not self.humans

    def to_json(self) -> dict[str, Any]:
        """The `meta` stored with a game (`web` only when a seat plays: older meta stays
        as it was)."""
        web = {"web": [s.letter for s in self.web]} if self.web else {}
        return {
            "mode": self.mode,
            "humans": [s.letter for s in self.humans],
            "level": self.level.to_json(),
            "pace": self.pace,
            "variant": self.variant.to_json(),
            "long_move_laps": self.long_move_laps,
        } | web

    def to_stored(self) -> dict[str, Any]:
        """The `meta` stored with a game: `to_json` and the numbering of its level."""
        return {**self.to_json(), "ladder": LADDER_VERSION}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        """Read the stored `meta` (`to_stored`); meta stored before the levels were
        renumbered has no `ladder`, and its level is read as the same player today."""
        ladder = data.get("ladder", 1)
        return cls(
            mode=data.get("mode", "two"),
            humans=tuple(Side.parse(s) for s in data.get("humans", ["S", "N"])),
            level=stored_level(data.get("level", 3), ladder),
            pace=data.get("pace", "step"),
            variant=Variant.from_json(data.get("variant", {})),
            long_move_laps=int(data.get("long_move_laps", DEFAULT_LONG_MOVE_LAPS)),
            web=tuple(Side.parse(s) for s in data.get("web", [])),
        )
