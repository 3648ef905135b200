"""The board (L3, above the controller and the exhibition): one loop that owns the game.

`BoardLoop` takes every input from one queue and walks it through the attendant, the
controller, the compositor, the sink, the store and the API, in that order; `Board` is
how the rest of the house talks to it. See docs/architecture.md.
"""

from __future__ import annotations

from kiothi_board.board.api_events import api_events, frame_event
from kiothi_board.board.board import Board
from kiothi_board.board.loop import BoardLoop

__all__ = ["Board", "BoardLoop", "api_events", "frame_event"]
