"""Tune the evaluation weights by self-play (`python -m kiothi_board.ai.tune`).

Coordinate search: for each weight in turn, a candidate with that weight at 0 × and 2 ×
its current value (or a fixed step when it is 0) plays the current weights at a fixed
depth (so the result does not depend on machine load) from every pair of the opening
suite with both colours; a candidate scoring over 55 % replaces the current weights.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from kiothi_board.ai.evaluation import TUNED, Weights
from kiothi_board.ai.match import load_openings
from kiothi_board.ai.search import Searcher
from kiothi_board.rules import Position, Variant


def play(
    wa: Weights, wb: Weights, opening: tuple[str, str], a_south: bool, depth: int, plies: int
) -> float:
    """One game at fixed depth; the score for the side playing `wa`."""
    variant = Variant(ply_limit=plies)
    pos = Position.initial(variant).open(opening[0]).open(opening[1])
    sa = Searcher(variant, weights=wa)
    sb = Searcher(variant, weights=wb)
    while not pos.over:
        mine = (pos.to_move == 0) == a_south
        s = sa if mine else sb
        board, sown, side = pos.packed
        limit = variant.ply_limit
        assert limit is not None
        res = s.search(board, sown, side, max_depth=depth, plies_left=limit - pos.ply)
        pos = pos.play(res.move)
    assert pos.result is not None
    w = pos.result.winner
    if w is None:
        return 0.5
    return 1.0 if (int(w) == 0) == a_south else 0.0


def score(wa: Weights, wb: Weights, depth: int, plies: int, pairs: int) -> float:
    """Average score of `wa` against `wb` over the suite, both colours."""
    openings = load_openings(None)[:pairs]
    total = 0.0
    for op in openings:
        total += play(wa, wb, op, True, depth, plies)
        total += play(wa, wb, op, False, depth, plies)
    return total / (2 * len(openings))


def main(argv: list[str] | None = None) -> int:
    """Run the coordinate search and print every trial and the final weights."""
    parser = argparse.ArgumentParser(prog="python -m kiothi_board.ai.tune", description=__doc__)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--plies", type=int, default=150)
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    current = TUNED
    steps = {
        "row": 20,
        "safe": 20,
        "mobility": 8,
        "last_pit": 100,
        "chain": 30,
        "pile": 15,
        "tempo": 10,
    }
    for rnd in range(args.rounds):
        for name, step in steps.items():
            value = getattr(current, name)
            for trial in sorted({0, value * 2 if value else step}):
                if trial == value:
                    continue
                cand = dataclasses.replace(current, **{name: trial})
                s = score(cand, current, args.depth, args.plies, args.pairs)
                verdict = "accept" if s > 0.55 else "reject"
                print(
                    f"round {rnd} {name}: {value} -> {trial}: {100 * s:.1f} % {verdict}", flush=True
                )
                if s > 0.55:
                    current = cand
                    break
    print(f"final: {current}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
