"""`Step`: what the controller did with one input, one tick or one command.

The controller returns it and calls nobody: the board loop (kiothi_board.board) hands its
notices to the exhibition, composes and shows its frame, commits the step's writes and
publishes its notices to the API, in that order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kiothi_board.controller.notices import Notice
from kiothi_board.frame import Frame

__all__ = ["Step"]


@dataclass(frozen=True, slots=True)
class Step:
    """Typed notices in the order they happened; the game's frame when it changed (None:
    the rings need not change); a command's result for the API."""

    notices: tuple[Notice, ...] = ()
    frame: Frame | None = None
    result: object = None

    @staticmethod
    def joined(steps: Iterable[Step]) -> Step:
        """Several steps as one: every notice in order, the last frame, the last result."""
        notices: list[Notice] = []
        frame: Frame | None = None
        result: object = None
        for step in steps:
            notices.extend(step.notices)
            frame = step.frame if step.frame is not None else frame
            result = step.result if step.result is not None else result
        return Step(tuple(notices), frame, result)
