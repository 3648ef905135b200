"""Random playouts to the end of a game on the Python core's fast path (R10–R12), and the
playouts' random source, SplitMix64, the same bit for bit in both cores (the native core's
playouts draw from the same generator, so the two can be compared move for move)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from kiothi_board.rules.board import PITS, ROW


class _FastPath(Protocol):
    """What a playout needs of the Python core's engine (`rules.fast.PyEngine`)."""

    @property
    def nonempty(self) -> tuple[dict[bytes, tuple[int, ...]], dict[bytes, tuple[int, ...]]]: ...

    @property
    def sow(self) -> Callable[[int, int, int, int], tuple[int, int, int] | None]: ...


_MASK64 = (1 << 64) - 1
NONZERO = bytes([0] + [1] * 255)  # row bytes to 0/1, the key of the non-empty pits' table


class SplitMix64:
    """The playouts' random source, the same bit for bit in both cores (seeded, injected)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def random(self) -> float:
        """The next float in [0, 1), as `random.Random.random` gives one."""
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        z ^= z >> 31
        return (z >> 11) * 2.0**-53


def random_playout(
    engine: _FastPath,
    board: int,
    sown: int,
    side: int,
    captured: tuple[int, int],
    random: Callable[[], float],
    max_plies: int | None = None,
) -> tuple[int, int, int, str]:
    """Play uniformly random legal moves to the end (R10–R12) on the fast path.

    Returns `(south captured, north captured, moves played, end)`. `random` is a
    `random.Random().random`-like source, injected so playouts are reproducible.
    Rejection sampling keeps it exact: an endless move is struck out and another drawn,
    so every legal move is equally likely and R10 is reached when none is left.
    """
    sow = engine.sow
    tables = engine.nonempty
    row_slices = ((0, ROW), (ROW, PITS))
    side_shift = 8 * PITS + PITS
    caps = [captured[0], captured[1]]
    history = {board | sown << (8 * PITS) | side << side_shift: 1}
    moves = 0
    while True:
        lo, hi = row_slices[side]
        cands = tables[side][board.to_bytes(PITS, "little")[lo:hi].translate(NONZERO)]
        result = None
        while cands:
            i = int(random() * len(cands))
            result = sow(board, sown, side, cands[i])
            if result is not None:
                break
            cands = cands[:i] + cands[i + 1 :]
        if result is None:  # R10
            caps[1 - side] += sum(board.to_bytes(PITS, "little"))
            return caps[0], caps[1], moves, "no-moves"
        new_board, new_sown, gain = result
        moves += 1
        if gain or new_sown != sown:
            history.clear()  # irreversible: no earlier position can recur
            caps[side] += gain
        board = new_board
        sown = new_sown
        side ^= 1
        key = board | sown << (8 * PITS) | side << side_shift
        seen = history.get(key, 0) + 1
        history[key] = seen
        if seen >= 3 or (max_plies is not None and moves >= max_plies):
            counts = board.to_bytes(PITS, "little")
            return (
                caps[0] + sum(counts[:ROW]),
                caps[1] + sum(counts[ROW:]),
                moves,
                "repetition" if seen >= 3 else "ply-limit",
            )
