"""The game controller (L3): a state machine between pit inputs, the rules, the LED guide,
the game store and the API. It knows the protocols of those parts, never their libraries.
"""

from __future__ import annotations

from kiothi_board.controller.controller import (
    CHORDS,
    CONTROLS,
    Controller,
    ControllerError,
    Listener,
)
from kiothi_board.controller.game import Game, Mode, Pace, Settings, apply, expected_board
from kiothi_board.controller.opponent import (
    FirstLegalOpponent,
    Opponent,
    OpponentFactory,
    OpponentHandle,
    RandomOpponent,
    ReadyHandle,
)

__all__ = [
    "CHORDS",
    "CONTROLS",
    "Controller",
    "ControllerError",
    "FirstLegalOpponent",
    "Game",
    "Listener",
    "Mode",
    "Opponent",
    "OpponentFactory",
    "OpponentHandle",
    "Pace",
    "RandomOpponent",
    "ReadyHandle",
    "Settings",
    "apply",
    "expected_board",
]
