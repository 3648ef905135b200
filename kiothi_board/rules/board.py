"""Board geometry of RULES.md R1: indices, sides, pit names and neighbours."""

from __future__ import annotations

from enum import IntEnum

from kiothi_board.errors import NotationError

PITS = 20
ROW = 10
SEEDS = 60


class Side(IntEnum):
    """A player: South owns pits 0…9, North owns 10…19 (R1)."""

    S = 0
    N = 1

    def __repr__(self) -> str:
        return f"Side.{self.name}"

    @property
    def other(self) -> Side:
        """The opponent."""
        return Side(1 - self)

    @property
    def letter(self) -> str:
        """`S` or `N`, as in positions and records."""
        return self.name

    @property
    def pits(self) -> range:
        """The indices of this side's row, left to right from its owner's view."""
        return range(self * ROW, self * ROW + ROW)

    @property
    def leftmost(self) -> int:
        """The pit where sowing enters this side's row (R1, R9)."""
        return self * ROW

    @staticmethod
    def parse(text: str) -> Side:
        """`S` or `N` to a side; anything else is a NotationError."""
        if text == "S":
            return Side.S
        if text == "N":
            return Side.N
        raise NotationError(f"bad side {text!r}: expected 'S' or 'N'")


def owner(pit: int) -> Side:
    """The side that owns a pit index."""
    return Side.S if pit < ROW else Side.N


def opposite(pit: int) -> int:
    """The pit facing `pit` across the board (R1)."""
    return PITS - 1 - pit


def pit_name(pit: int) -> str:
    """The name of a pit index: `S1`…`S10`, `N1`…`N10`."""
    if not 0 <= pit < PITS:
        raise NotationError(f"pit index {pit!r} out of range 0…19")
    return f"S{pit + 1}" if pit < ROW else f"N{pit - ROW + 1}"


_NAMES = {pit_name(i): i for i in range(PITS)}


def parse_pit(text: str) -> int:
    """A pit name (`S1`…`N10`) to its index; anything else is a NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"pit name must be a string, got {text!r}")
    try:
        return _NAMES[text]
    except KeyError:
        raise NotationError(f"bad pit name {text!r}: expected S1…S10 or N1…N10") from None
