"""The exhibit's settings (L3): the `[exhibit]` section as plain values."""

from __future__ import annotations

from dataclasses import dataclass

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.exhibit.attendant import FIRST_LEVEL, Timing

__all__ = ["ExhibitSettings"]


@dataclass(frozen=True, slots=True)
class ExhibitSettings:
    """The `[exhibit]` section, as plain values (the daemon reads the config)."""

    timing: Timing
    level: LevelChoice = FIRST_LEVEL
    pace: str = "step"
    variant: str = ""
    long_move_laps: int = 30
    attract_brightness: float = 0.4
    quiet_brightness: float = 0.3
    closed: str = "glow"  # or "dark"
    replays: int = 5
    enabled: bool = True  # on at start; staff switch it with `set_enabled` (API `exhibit.set`)
