"""The game controller (L3): gestures → session → presenter, the board service.

`Gestures` turns input events into commands; the `Session` runs them from one command
table against the game, the store and the opponents and tells typed notices; the
`Presenter` turns those into LED frames and API events. `Controller` wires the three and
is what the daemon and the API use. See docs/architecture.md.
"""

from __future__ import annotations

from kiothi_board.controller.commands import NewGame
from kiothi_board.controller.controller import (
    Controller,
    Listener,
    default_settings,
)
from kiothi_board.controller.game import Game, Mode, Pace, Settings, apply, expected_board
from kiothi_board.controller.gestures import CHORDS, CONTROLS, Command, Gestures
from kiothi_board.controller.opponent import (
    FirstLegalOpponent,
    Opponent,
    OpponentFactory,
    OpponentHandle,
    RandomOpponent,
    ReadyHandle,
    random_opponents,
)
from kiothi_board.controller.presenter import Presenter
from kiothi_board.controller.session import Session

__all__ = [
    "CHORDS",
    "CONTROLS",
    "Command",
    "Controller",
    "FirstLegalOpponent",
    "Game",
    "Gestures",
    "Listener",
    "Mode",
    "NewGame",
    "Opponent",
    "OpponentFactory",
    "OpponentHandle",
    "Pace",
    "Presenter",
    "RandomOpponent",
    "ReadyHandle",
    "Session",
    "Settings",
    "apply",
    "default_settings",
    "expected_board",
    "random_opponents",
]
