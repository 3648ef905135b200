"""What the API needs from the board: the `BoardService` protocol.

`kiothi_board.controller.Controller` is the board service; this protocol is its face as
the API sees it, so the API layer imports nothing of the controller's. Events, LED frames
included, are pushed to the listeners (a `frame` event after each new frame).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.hardware.protocols import Frame
from kiothi_board.listeners import Listener

__all__ = ["BoardService", "Listener"]


@runtime_checkable
class BoardService(Protocol):
    """Exactly what the API dispatcher uses of the board.

    Errors: only the project's own errors (kiothi_board.errors) are replies with a code:
    `ConflictError` "not now", `RulesError` an illegal move, `NotFoundError` an unknown
    thing, `BadArgumentError` bad arguments. Anything else is a bug (`internal`).
    """

    @property
    def leds_per_ring(self) -> int:
        """LEDs in each pit's ring."""
        ...

    def add_listener(self, listener: Listener) -> None:
        """Receive every event dict."""
        ...

    def remove_listener(self, listener: Listener) -> None:
        """Stop receiving events."""
        ...

    def new_game(
        self,
        mode: str,
        sides: str,
        level: LevelChoice | int | str,
        pace: str,
        variant: dict[str, Any],
    ) -> int:
        """Start a game; its id."""
        ...

    def press(self, pit: int, *, hold: bool = False) -> None:
        """A tap on a pit (press and release); `hold`: a long press."""
        ...

    def tutorial(self) -> int:
        """Start the first-game tutorial; its id."""
        ...

    def move(self, pit: int) -> None:
        """Choose a sowing move for the human to move."""
        ...

    def opening(self, action: str) -> None:
        """Submit an opening action in text notation (`pass`, `S7>S1,S1,...`)."""
        ...

    def undo(self) -> None:
        """Take back the last action."""
        ...

    def hint(self) -> None:
        """Ask for a suggested move (arrives as a `hint` event)."""
        ...

    def resign(self, side: str | None) -> None:
        """`side` ("S"/"N", default the side to move) resigns."""
        ...

    def end(self) -> None:
        """End the game by agreement."""
        ...

    def check_board(self, on: bool | None) -> bool:
        """Enter/leave/toggle board check; whether it is on."""
        ...

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot (see docs/api.md, `state`)."""
        ...

    def frame(self) -> Frame:
        """The LED frame last shown: per pit, its ring's colours in ring order."""
        ...

    def get_settings(self) -> dict[str, Any]:
        """The operator settings."""
        ...

    def set_settings(self, values: dict[str, Any]) -> dict[str, Any]:
        """Merge validated values into the settings; the new settings."""
        ...

    def list_games(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """Stored games, newest first."""
        ...

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """One stored game, or None."""
        ...
