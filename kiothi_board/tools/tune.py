"""Tune the evaluation weights by self-play (`python -m kiothi_board.tools.tune`).

Coordinate search: for each weight in turn, a candidate with that weight at 0 × and 2 ×
its current value (or a fixed step when it is 0) plays the current weights at a fixed
depth (so the result does not depend on machine load) from every pair of the opening
suite with both colours; a candidate scoring over 55 % replaces the current weights.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor

from kiothi_board.ai.evaluation import TUNED, Weights
from kiothi_board.ai.opening import candidates
from kiothi_board.ai.search import Searcher
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.rules import Position, Variant
from kiothi_board.tools.match import load_openings, opening_pairs


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


def score(
    wa: Weights,
    wb: Weights,
    depth: int,
    plies: int,
    pairs: int,
    openings: list[tuple[str, str]] | None = None,
) -> float:
    """Average score of `wa` against `wb` over the openings (the suite), both colours."""
    openings = (load_openings(None) if openings is None else openings)[:pairs]
    total = 0.0
    for op in openings:
        total += play(wa, wb, op, True, depth, plies)
        total += play(wa, wb, op, False, depth, plies)
    return total / (2 * len(openings))


def parse_weights(text: str, base: Weights) -> Weights:
    """`base` with the changes in `text` ("mobility=16,tempo=20,pile=0") applied."""
    names = {f.name for f in dataclasses.fields(Weights)}
    changes: dict[str, int] = {}
    for item in text.split(","):
        name, sep, value = item.strip().partition("=")
        if not sep or name not in names:
            raise ValueError(f"bad weight {item!r}: expected NAME=INT with NAME in {sorted(names)}")
        changes[name] = int(value)
    return dataclasses.replace(base, **changes)


def interval(scores: list[float]) -> tuple[float, float]:
    """Mean score and the half-width of its 95 % interval (normal approximation)."""
    n = len(scores)
    mean = sum(scores) / n
    if n < 2:
        return mean, 1.0
    var = sum((x - mean) ** 2 for x in scores) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _versus_game(args: tuple[Weights, Weights, tuple[str, str], bool, int, int]) -> float:
    return play(*args)


def versus(
    wa: Weights,
    wb: Weights,
    depths: list[int],
    plies: int,
    pairs: int,
    jobs: int,
    openings: list[tuple[str, str]] | None = None,
) -> dict[int, list[float]]:
    """`wa`'s game scores against `wb` at each fixed depth: every pair, both colours."""
    openings = (load_openings(None) if openings is None else openings)[:pairs]
    games = [
        (wa, wb, op, south, d, plies) for d in depths for op in openings for south in (True, False)
    ]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as ex:
            results = list(ex.map(_versus_game, games))
    else:
        results = [_versus_game(g) for g in games]
    out: dict[int, list[float]] = {d: [] for d in depths}
    for g, r in zip(games, results, strict=True):
        out[g[4]].append(r)
    return out


def report(scores: list[float], label: str) -> str:
    """One line: W-D-L, score and its 95 % interval."""
    mean, half = interval(scores)
    w, d, lost = scores.count(1.0), scores.count(0.5), scores.count(0.0)
    return (
        f"{label}: {len(scores)} games {w}-{d}-{lost} "
        f"score {100 * mean:.1f} % (95 %: {100 * max(0.0, mean - half):.1f} … "
        f"{100 * min(1.0, mean + half):.1f})"
    )


def make_suite(path: str, count: int = 24, seed: int = 2026) -> int:
    """Write the balanced opening suite: random candidate pairs a depth-7 search calls even.

    Returns how many pairs were tried.
    """
    rng = random.Random(seed)
    start = Position.initial()
    first = candidates(start)
    kept: list[tuple[str, str, int]] = []
    tries = 0
    while len(kept) < count and tries < 1000:
        tries += 1
        a = rng.choice(first)
        p1 = start.open(a.action)
        b = rng.choice(candidates(p1))
        p2 = p1.open(b.action)
        res = Searcher().search(*p2.packed, max_depth=7)
        if abs(res.score) <= 100:
            kept.append((str(a.action), str(b.action), res.score))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(SUITE_HEADER)
        for a_text, b_text, v in kept:
            fh.write(f"{a_text} {b_text}  # depth-7 score {v:+d} cp for South\n")
    return tries


SUITE_HEADER = """\
# Balanced opening suite for `kiothi-board match`: South's and North's opening action.
# Generated by the run in docs/ai.md: random pairs from the AI's candidate set, kept when
# a depth-7 search of the first play position scores within one seed of even.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kiothi_board.tools.tune",
        description=__doc__,
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--plies", type=int, default=150)
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--suite", metavar="FILE", help="only write the opening suite to FILE")
    parser.add_argument(
        "--versus",
        metavar="CHANGES",
        help="only play TUNED with CHANGES (e.g. mobility=16,tempo=20) against TUNED",
    )
    parser.add_argument("--depths", default="4", help="fixed depths for --versus (e.g. 4,5,6)")
    parser.add_argument("--jobs", type=int, default=1, help="processes for --versus")
    parser.add_argument(
        "--openings",
        default=None,
        help="opening-pair file (default: the shipped suite); 'random' or 'random:SEED': "
        "visitors' random openings",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the coordinate search and print every trial and the final weights."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        openings = opening_pairs(args.openings, 2 * args.pairs, args.plies)
    except (OSError, ValueError) as exc:
        parser.error(f"cannot use the openings: {exc}")
    if args.versus:
        cand = parse_weights(args.versus, TUNED)
        depths = [int(d) for d in args.depths.split(",")]
        print(f"candidate: {cand}\nagainst:   {TUNED}", flush=True)
        by_depth = versus(cand, TUNED, depths, args.plies, args.pairs, args.jobs, openings)
        for d, scores in by_depth.items():
            print(report(scores, f"depth {d}"))
        print(report([x for s in by_depth.values() for x in s], "all"))
        return 0
    if args.suite:
        tries = make_suite(args.suite)
        print(f"wrote {args.suite} ({tries} pairs tried)")
        return 0
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
                s = score(cand, current, args.depth, args.plies, args.pairs, openings)
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
