"""The novice players: the yardsticks at the bottom of the ladder.

- `novice:random` plays a uniformly random legal move;
- `novice:greedy` plays the move that captures most now (ties at random);
- `novice:greedy-<p>` plays a uniformly random move with probability `p`, else as greedy.

In the opening every novice passes (R3): a newcomer does not redistribute. All choices come
from the player's own `random.Random(seed)`, so a game is reproducible from its seeds;
`new_game()` restarts the sequence.
"""

from __future__ import annotations

import random

from kiothi_board.ai.thinking import ANY, Hint, MoveBudget, PlayerBase
from kiothi_board.rules import PASS, Position, engine_for, pit_name

NOVICE_MOVETIME = 1.0  # seconds: the match runner's hang limit; a novice answers at once


def parse_novice(which: str) -> float:
    """The random-move probability of a novice spec (`random`, `greedy`, `greedy-0.25`)."""
    if which == "random":
        return 1.0
    if which == "greedy":
        return 0.0
    head, _, tail = which.partition("-")
    if head == "greedy" and tail:
        try:
            p = float(tail)
        except ValueError:
            p = -1.0
        if 0.0 <= p <= 1.0:
            return p
    raise ValueError(f"bad novice {which!r}: expected random, greedy or greedy-<p> with 0 ≤ p ≤ 1")


class NovicePlayer(PlayerBase):
    """A novice (see the module docstring)."""

    movetime = NOVICE_MOVETIME

    def __init__(self, which: str, seed: int = 0) -> None:
        self.random_rate = parse_novice(which)
        super().__init__(seed)
        self.name = f"novice:{which}"

    def choose(self, position: Position, budget: MoveBudget = ANY) -> Hint:
        """A novice's action (a hint from a novice is the same move)."""
        if position.over:
            raise ValueError("the game is over: there is nothing to play")
        me = position.to_move
        if position.phase == "opening":
            return Hint(None, PASS, 0.0, ("pass",), 0, 0, False, f"{me.letter}: pass.")
        with self._lock:
            move, gain = novice_move(position, self.random_rate, self.rng)
        base = position.captured[me] - position.captured[me.other]
        why = f"{pit_name(move)}: " + (
            f"captures {gain} now." if gain else "captures nothing (a novice's move)."
        )
        return Hint(move, None, float(base + gain), (pit_name(move),), 1, 0, False, why)


def novice_move(position: Position, random_rate: float, rng: random.Random) -> tuple[int, int]:
    """A novice's move in a play position and the seeds it captures at once."""
    board, sown, side = position.packed
    kids = engine_for(position.variant).children(board, sown, side)
    if not kids:
        raise ValueError("no legal move: the game is over (R10)")
    if random_rate >= 1.0 or rng.random() < random_rate:
        pick = kids[rng.randrange(len(kids))]
        return pick[0], pick[3]
    most = max(k[3] for k in kids)
    best = [k for k in kids if k[3] == most]
    pick = best[rng.randrange(len(best))]
    return pick[0], pick[3]
