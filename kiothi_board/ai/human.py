"""How a beginner sees the board: the weak levels' play, with a person's mistakes.

The low levels do not play random moves. They look at each of their moves the way a
person new to the game does, and make that person's mistakes:

- **misjudged relays**: a sowing that relays more often than the player can follow is
  guessed to stop where they lost count (the last pit of the last lap they followed); a
  capture there is imagined, a real one further on is missed;
- **missed long chains**: a player who does not see the R9 chain counts only the landing
  seed and the opposite pit of a capture in the leftmost pit;
- **the first capture spotted**: sometimes the player takes the first capture they see,
  scanning their row from their leftmost pit, when a bigger one was there;
- **no look ahead** (level 1): the opponent's reply is not considered at all; level 2 looks
  at the opponent's best reply as it sees it (with the same blind spots).

Ties (most quiet moves) are broken by a feel for the position (the tuned evaluation of the
true result), then by the player's seeded random source, so play is reproducible.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from kiothi_board.ai.evaluation import TUNED, Weights, make_evaluator
from kiothi_board.ai.eyes import Eyes as Eyes
from kiothi_board.rules import (
    PITS,
    ROW,
    Side,
    Variant,
    engine_for,
    opposite,
    owner,
    trace_move,
    unpack,
)


@dataclass(frozen=True, slots=True)
class Seen:
    """One move as the player sees it, beside what really happens.

    `gain` is what the player believes the move captures; `true_gain` what it does.
    `guessed` is the pit where the player thinks the sowing stops (the real landing pit
    when they could follow it); `chain_missed` the R9 seeds they did not count.
    """

    pit: int
    gain: int
    true_gain: int
    relays: int
    lost_track: bool
    guessed: int
    chain_missed: int


def _flags(mask: int) -> tuple[bool, ...]:
    return tuple(bool(mask >> i & 1) for i in range(PITS))


def perceive(
    board: tuple[int, ...],
    sown: tuple[bool, ...],
    side: Side,
    pit: int,
    variant: Variant,
    style: Eyes,
) -> Seen:
    """How a player with `style` sees sowing `pit` (which must be a legal move)."""
    trace = trace_move(board, sown, side, pit, variant)
    chain = sum(c.seeds for c in trace.captures if c.rule == "R9 chain")
    if trace.relays <= style.relays_seen:
        gain = trace.captured - (0 if style.sees_chain else chain)
        missed = 0 if style.sees_chain else chain
        return Seen(pit, gain, trace.captured, trace.relays, False, trace.landing, missed)
    # Lost count after `relays_seen` relays: replay the laps followed and guess it ends there.
    b = list(board)
    crossed = False
    followed = trace.laps[: style.relays_seen + 1]
    for lap in followed:
        b[lap.lifted] = 0
        for p in lap.drops:
            b[p] += 1
            crossed |= owner(p) != side
    guess = followed[-1].drops[-1]
    gain = 0
    if crossed and owner(guess) == side:
        facing = opposite(guess)
        gain = 1 + (b[facing] if sown[facing] else 0)
    return Seen(pit, gain, trace.captured, trace.relays, True, guess, 0)


def seen_moves(
    board: int, sown: int, side: int, variant: Variant, style: Eyes
) -> list[tuple[Seen, int, int]]:
    """Every legal move as seen, with the true packed result `(seen, board, sown)`."""
    cells = unpack(board)
    flags = _flags(sown)
    mover = Side(side)
    out = []
    for p, b, s, _g in engine_for(variant).children(board, sown, side):
        out.append((perceive(cells, flags, mover, p, variant, style), b, s))
    return out


def best_reply_seen(board: int, sown: int, side: int, variant: Variant, style: Eyes) -> int:
    """The biggest capture the player believes the opponent (`side`) has next move."""
    replies = seen_moves(board, sown, side, variant, style)
    return max((r[0].gain for r in replies), default=0)


def first_capture(seen: list[Seen], side: int) -> Seen | None:
    """The first move that seems to capture, scanning the row from the player's leftmost."""
    for s in sorted(seen, key=lambda x: x.pit if side == 0 else x.pit - ROW):
        if s.gain > 0:
            return s
    return None


def choose_seen(
    board: int,
    sown: int,
    side: int,
    variant: Variant,
    style: Eyes,
    rng: random.Random,
    weights: Weights = TUNED,
) -> tuple[Seen, int]:
    """The move a player with `style` plays, and the margin they expect from it (seeds)."""
    moves = seen_moves(board, sown, side, variant, style)
    if not moves:
        raise ValueError("no legal move: the game is over (R10)")
    grab = rng.random() < style.grab
    if grab:
        spotted = first_capture([m[0] for m in moves], side)
        if spotted is not None:
            return spotted, spotted.gain
    evaluate = make_evaluator(weights)
    best: tuple[float, float, float] | None = None
    choice = moves[0][0]
    expected = 0
    for seen, b, s in moves:
        value = seen.gain
        if style.looks_ahead:
            value -= best_reply_seen(b, s, side ^ 1, variant, style)
        key = (float(value), -evaluate(b, s, side ^ 1) / 100, rng.random())
        if best is None or key > best:
            best, choice, expected = key, seen, value
    return choice, expected
