"""What the API needs from the board: the `BoardService` protocol.

`kiothi_board.board.Board` is the board service. The API runs every command of the table
(kiothi_board/controller/table.py) that has a handler through `call`, by name, with the
arguments its spec read; the doors' own commands use `press`, `state` and `frame`. Events,
LED frames included, are pushed to the listeners (a `frame` event after each new frame).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

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

    def call(self, name: str, /, **args: Any) -> Any:
        """Run command `name` of the table with its read arguments; the handler's result."""
        ...

    def press(self, pit: int, *, hold: bool = False) -> None:
        """A tap on a pit (press and release); `hold`: a long press."""
        ...

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot (see docs/api.md, `state`)."""
        ...

    def frame(self) -> Frame:
        """The LED frame last shown: per pit, its ring's colours in ring order."""
        ...
