"""Builders for hand-made positions in the rules tests."""

from __future__ import annotations

from collections.abc import Iterable

from kiothi_board.rules import PITS, SEEDS, Position, Side, Variant, parse_pit


def board_of(**pits: int) -> tuple[int, ...]:
    """A board from pit names, e.g. `board_of(S1=3, N10=2)`; unnamed pits are empty."""
    board = [0] * PITS
    for name, count in pits.items():
        board[parse_pit(name)] = count
    return tuple(board)


def make(
    board: tuple[int, ...],
    *,
    sown: Iterable[str] = (),
    all_sown: bool = False,
    to_move: Side = Side.S,
    variant: Variant | None = None,
) -> Position:
    """A play-phase position; seeds missing from the board are counted as captured by North."""
    flags = [all_sown] * PITS
    for name in sown:
        flags[parse_pit(name)] = True
    pos = Position(
        board=board,
        sown=tuple(flags),
        captured=(0, SEEDS - sum(board)),
        to_move=to_move,
        phase="play",
        variant=variant or Variant(),
    )
    return Position.from_json(pos.to_json(full=True))
