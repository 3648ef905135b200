"""Random openings of the kind visitors make, for the match runner and the tuning tool.

The balanced suite (`ai/openings.txt`) holds openings a strong player might choose; a
visitor at a museum board passes, lifts a pit at random and scatters its seeds, or heaps
them all in one pit. A ladder that holds only on the suite does not hold at the board, so
`kiothi-board match --openings random[:SEED]` and `tune --openings random[:SEED]` play
these instead: each pair gives both sides a visitor's opening (R3), drawn from a seeded
source so a match can be played again game for game.
"""

from __future__ import annotations

import random

from kiothi_board.rules import Lift, OpeningAction, Position, Side, Variant, owner

__all__ = ["KINDS", "parse_source", "visitor_opening", "visitor_openings"]

# How often a visitor does each (weights, not shares): about a third pass, a third lift
# a pit and drop its seeds anywhere, and the rest heap them or spread them in their row.
KINDS: tuple[tuple[str, int], ...] = (("pass", 3), ("scatter", 3), ("heap", 2), ("row", 2))


def visitor_opening(pos: Position, rng: random.Random) -> OpeningAction:
    """One random opening action for the side to move in `pos` (its opening phase)."""
    kind = rng.choices([k for k, _ in KINDS], weights=[w for _, w in KINDS])[0]
    side = pos.to_move
    mine = [p for p in range(20) if owner(p) == side and pos.board[p]]
    if kind == "pass" or not mine:
        return OpeningAction()
    pit = rng.choice(mine)
    seeds = pos.board[pit]
    if kind == "heap":
        target = rng.randrange(20)
        place = (target,) * seeds
    elif kind == "row":
        row = [p for p in range(20) if owner(p) == side]
        place = tuple(rng.choice(row) for _ in range(seeds))
    else:
        place = tuple(rng.randrange(20) for _ in range(seeds))
    return OpeningAction((Lift(pit, place),))


def visitor_openings(
    count: int, seed: int = 1, variant: Variant | None = None
) -> list[tuple[str, str]]:
    """`count` pairs (South's action, North's) of visitors' openings, legal in `variant`."""
    rng = random.Random(f"visitor-openings:{seed}")
    pairs: list[tuple[str, str]] = []
    for _ in range(count):
        pos = Position.initial(variant or Variant())
        actions: list[str] = []
        for _side in (Side.S, Side.N):
            action = visitor_opening(pos, rng)
            pos = pos.open(action)
            actions.append(str(action))
        pairs.append((actions[0], actions[1]))
    return pairs


def parse_source(text: str) -> int | None:
    """The seed of `random` / `random:SEED`, or None when `text` names a file."""
    if text == "random":
        return 1
    head, sep, tail = text.partition(":")
    if head != "random" or not sep:
        return None
    try:
        return int(tail)
    except ValueError:
        raise ValueError(f"bad opening source {text!r}: expected random or random:SEED") from None
