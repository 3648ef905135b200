"""`Glance`: where the game stands, as typed values, for the parts that follow it."""

from __future__ import annotations

from dataclasses import dataclass

from kiothi_board.controller.settings import Settings
from kiothi_board.rules import Position

__all__ = ["Glance"]


@dataclass(frozen=True, slots=True)
class Glance:
    """Where the game stands, as typed values (for the exhibition, the demo, fake time)."""

    game_id: int | None
    stage: str  # "none" when no game is on
    expect: int | None  # the pit the guide points at
    ai_to_move: bool
    human_to_move: bool  # the guide waits for a person (a press, a move, an opening)
    thinking: bool  # the AI is searching (a move or a hint)
    settings: Settings
    position: Position | None
    board: tuple[int, ...] | None  # the counts the game has the pits hold now
