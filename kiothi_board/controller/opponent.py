"""The `Opponent` protocol the controller polls, and two simple deterministic opponents.

The controller never blocks on an opponent: it calls `start(position)` once and polls
the returned handle's `done()` on every tick. The real AI (kiothi_board.ai) runs its search
on a worker thread behind this same protocol.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.rules import Lift, OpeningAction, Position

__all__ = [
    "FirstLegalOpponent",
    "Opponent",
    "OpponentFactory",
    "OpponentHandle",
    "RandomOpponent",
    "ReadyHandle",
    "random_opponents",
]

Choice = int | OpeningAction


@runtime_checkable
class OpponentHandle(Protocol):
    """One search in progress."""

    def done(self) -> bool:
        """True once `result()` is ready; must not block."""
        ...

    def result(self) -> Choice:
        """The chosen move (a pit index) or, in the opening, an `OpeningAction`."""
        ...

    def cancel(self) -> None:
        """Stop searching; the result will not be asked for. Idempotent."""
        ...


@runtime_checkable
class Opponent(Protocol):
    """Something that chooses actions for one side."""

    def start(self, position: Position) -> OpponentHandle:
        """Begin choosing an action for `position.to_move`; return at once."""
        ...


OpponentFactory = Callable[[LevelChoice], Opponent]
"""Makes the opponent of a level (a ladder level or the adaptive visitor level)."""


class ReadyHandle:
    """A handle whose result is known at once."""

    def __init__(self, choice: Choice) -> None:
        """Wrap a ready choice."""
        self._choice = choice
        self.cancelled = False

    def done(self) -> bool:
        """Always true."""
        return True

    def result(self) -> Choice:
        """The choice."""
        return self._choice

    def cancel(self) -> None:
        """Nothing to stop."""
        self.cancelled = True


class RandomOpponent:
    """Uniformly random legal moves from a seeded generator; passes or scatters in the opening.

    In the opening it lifts a random own pit and places the seeds at random one time in
    two, so guided openings get exercised; otherwise it passes.
    """

    def __init__(self, rng: random.Random | int = 0) -> None:
        """Use the injected random source (or a generator seeded with an int)."""
        self._rng = rng if isinstance(rng, random.Random) else random.Random(rng)

    def start(self, position: Position) -> ReadyHandle:
        """Choose at once."""
        legal = position.legal_moves()
        if position.phase == "opening":
            if not legal or self._rng.random() < 0.5:
                return ReadyHandle(OpeningAction())
            pit = self._rng.choice(legal)
            place = tuple(self._rng.randrange(20) for _ in range(position.board[pit]))
            return ReadyHandle(OpeningAction((Lift(pit, place),)))
        return ReadyHandle(self._rng.choice(legal))


def random_opponents(rng: random.Random) -> OpponentFactory:
    """A factory of random opponents drawing from one injected source (the level is unused)."""

    def factory(level: LevelChoice) -> Opponent:
        return RandomOpponent(rng)

    return factory


class FirstLegalOpponent:
    """Always the first legal move; passes in the opening."""

    def start(self, position: Position) -> ReadyHandle:
        """Choose at once."""
        if position.phase == "opening":
            return ReadyHandle(OpeningAction())
        return ReadyHandle(position.legal_moves()[0])
