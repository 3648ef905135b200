"""What the exhibit director needs of the rest of the house, and its settings (L3)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.exhibit.attendant import Timing
from kiothi_board.hardware.protocols import InputEvent

__all__ = ["ExhibitSettings", "GameControl"]

FIRST_LEVEL = LevelChoice(1)


class GameControl(Protocol):
    """What the director needs of the game controller."""

    def new_game(
        self, mode: Any = ..., sides: str = ..., level: Any = ..., pace: Any = ...,
        variant: Any = ..., *, long_move_laps: int = ...,
    ) -> int: ...  # fmt: skip

    def abandon(self) -> None: ...

    def hint(self) -> None: ...

    def handle_event(self, event: InputEvent) -> None: ...

    def state(self) -> dict[str, Any]: ...

    def add_listener(self, listener: Callable[[dict[str, Any]], None]) -> None: ...


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
