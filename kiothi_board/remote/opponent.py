"""The other board's side as a player: the controller's `Opponent` protocol over a match.

A remote side is one more player of the board (`remote:<board id>`): the session starts it
like the AI and polls its handle; the handle is done when the other board's action from this
very position has arrived and passed the checker. The board then guides the local hand
through that move pit by pit, as it does for the AI's moves. Hints still come from the AI.
"""

from __future__ import annotations

from typing import Protocol

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.controller.opponent import Choice, Opponent, OpponentFactory, OpponentHandle
from kiothi_board.rules import Position

__all__ = ["MatchOpponents", "RemoteHandle", "RemoteLink", "RemoteOpponent", "remote_spec"]

PREFIX = "remote:"


def remote_spec(board: str) -> str:
    """The player spec of a remote board's side: `remote:<board id>`."""
    return PREFIX + board


class RemoteLink(Protocol):
    """What the wire tells the opponent (safe to call from the board loop's thread)."""

    @property
    def spec(self) -> str:
        """`remote:<board id>` of the other board."""
        ...

    def who(self) -> tuple[str, str]:
        """The other board's name as its people call it, and its presence (`online`,
        `offline`)."""
        ...

    def choice(self, position: Position) -> Choice | None:
        """The other board's checked action from `position`, once it has come."""
        ...


class RemoteHandle:
    """Waits for the other board's action from one position."""

    def __init__(self, link: RemoteLink, position: Position) -> None:
        """Wait on `link` for the action from `position`."""
        self._link = link
        self._position = position
        self.cancelled = False

    def done(self) -> bool:
        """True once the action has come; never blocks."""
        return not self.cancelled and self._link.choice(self._position) is not None

    def result(self) -> Choice:
        """The other board's action."""
        choice = self._link.choice(self._position)
        assert choice is not None, "result() before done()"
        return choice

    def cancel(self) -> None:
        """Stop waiting; idempotent."""
        self.cancelled = True


class RemoteOpponent:
    """The other board's side; hints are the AI's (`advise`)."""

    def __init__(self, link: RemoteLink, advisor: Opponent) -> None:
        """Play what `link` delivers; advise with `advisor`."""
        self.link = link
        self._advisor = advisor

    @property
    def spec(self) -> str:
        """`remote:<board id>`."""
        return self.link.spec

    def start(self, position: Position) -> RemoteHandle:
        """Wait for the other board's action; returns at once."""
        return RemoteHandle(self.link, position)

    def advise(self, position: Position) -> OpponentHandle:
        """A hint for the local side: the AI's."""
        advise = getattr(self._advisor, "advise", None)
        handle: OpponentHandle = (
            advise(position) if callable(advise) else self._advisor.start(position)
        )
        return handle

    def who(self) -> tuple[str, str]:
        """The other board's name and presence (the presenter's line says them)."""
        return self.link.who()


class MatchOpponents:
    """The board's opponent factory: the AI's, except the other board's side while a match
    is on (`link`; set before the match's game begins or resumes)."""

    def __init__(self, inner: OpponentFactory) -> None:
        """Wrap the board's usual factory."""
        self.inner = inner
        self.link: RemoteLink | None = None

    def __call__(self, level: LevelChoice) -> Opponent:
        """The remote side while a match is on, else the AI of `level`."""
        link = self.link
        advisor = self.inner(level)
        return advisor if link is None else RemoteOpponent(link, advisor)
