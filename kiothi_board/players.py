"""The real AI behind the controller's `Opponent` protocol (composition layer)."""

from __future__ import annotations

import contextlib
import weakref
from concurrent.futures import CancelledError

from kiothi_board.ai import PlayerBase, Thinking, level_player
from kiothi_board.ai.levels import LevelChoice
from kiothi_board.rules import OpeningAction, Position


class AIHandle:
    """One search on the AI's worker thread, polled by the controller."""

    def __init__(self, thinking: Thinking) -> None:
        """Wrap a running `Thinking`."""
        self._thinking = thinking

    def done(self) -> bool:
        """True once the search has a result; never blocks."""
        return self._thinking.done()

    def result(self) -> int | OpeningAction:
        """The pit to sow or, in the opening, the opening action."""
        hint = self._thinking.result(timeout=0)
        if hint.opening is not None:
            return hint.opening
        assert hint.move is not None
        return hint.move

    def explanation(self) -> str | None:
        """Why the AI chose it, in a sentence a beginner understands (hints show it)."""
        return self._thinking.result(timeout=0).explanation or None

    def cancel(self) -> None:
        """Abandon the search; idempotent."""
        with contextlib.suppress(CancelledError):
            self._thinking.cancel()


class AIOpponent:
    """An `Opponent` at one level, deterministic for a seed."""

    def __init__(self, level: LevelChoice, seed: int = 0) -> None:
        """Create the player (from the AI's registry); its search tables live as long as
        this opponent.

        The adaptive visitor level (`kiothi_board.ai.adaptive`) keeps the game close, so
        one opponent must play the whole game (it learns the visitor's play).
        """
        self.player: PlayerBase = level_player(level, seed=seed)

    def start(self, position: Position) -> AIHandle:
        """Start choosing for `position.to_move`; returns at once."""
        return AIHandle(self.player.start_think(position))

    def advise(self, position: Position) -> AIHandle:
        """Start advising the side to move (a hint: no lapses, a plain reason at the low
        levels and the visitor level); returns at once."""
        return AIHandle(self.player.start_think(position, hint=True))

    def close(self) -> None:
        """Stop any search and its thread."""
        self.player.close()


class AIFactory:
    """Makes the AI opponents of each level, and stops them all on shutdown.

    Every call makes a new player, so a hint never cancels the game's own search; players
    the controller has dropped (old games, answered hints) are garbage-collected.
    """

    def __init__(self, seed: int = 0) -> None:
        """Seed every opponent made."""
        self._seed = seed
        self._made: weakref.WeakSet[AIOpponent] = weakref.WeakSet()

    def __call__(self, level: LevelChoice) -> AIOpponent:
        """An opponent at `level`."""
        opponent = AIOpponent(level, self._seed)
        self._made.add(opponent)
        return opponent

    def close(self) -> None:
        """Stop every live opponent's search."""
        for opponent in list(self._made):
            opponent.close()
