"""The game controller (L3): gestures → session → coach → presenter, one step at a time.

`Gestures` turns input events into commands; the `Session` runs them from one command
table against the game, the journal and the opponents and makes typed notices; the
`Presenter` adds the words and draws the frame. `Controller` wires them and returns a
`Step` for each input, tick and command; the board loop (kiothi_board.board) does the rest.
See docs/architecture.md.
"""

from __future__ import annotations

from kiothi_board.controller.commands import NewGame
from kiothi_board.controller.controller import Controller, Glance, default_settings
from kiothi_board.controller.game import Game, Mode, Pace, Settings, apply, expected_board
from kiothi_board.controller.gestures import Command, Gestures
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
from kiothi_board.controller.spec import CommandSpec
from kiothi_board.controller.step import Step
from kiothi_board.controller.table import TABLE, CommandTable

CHORDS = TABLE.chords()
"""The built-in chords: two pits held together and the command each fires."""
CONTROLS = TABLE.controls()
"""The built-in control buttons (board.control_pins) and their commands."""

__all__ = [
    "CHORDS",
    "CONTROLS",
    "TABLE",
    "Command",
    "CommandSpec",
    "CommandTable",
    "Controller",
    "FirstLegalOpponent",
    "Game",
    "Gestures",
    "Glance",
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
    "Step",
    "apply",
    "default_settings",
    "expected_board",
    "random_opponents",
]
