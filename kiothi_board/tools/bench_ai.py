"""`kiothi-board bench ai`: search speed on a fixed suite of middle-game positions.

The suite is reproducible: each position is reached by seeded random moves from the shipped
opening suite. A node is one position the search visits (interior node or horizon leaf),
as chess engines count them; sowings tried for move generation are not counted separately.
"""

from __future__ import annotations

import argparse
import random
import time

from kiothi_board.ai.levels import LEVELS
from kiothi_board.ai.registry import make_player
from kiothi_board.ai.search import Searcher
from kiothi_board.rules import Position
from kiothi_board.tools.match import load_openings


def suite(count: int = 24, seed: int = 2026) -> list[Position]:
    """`count` middle-game positions: 20–60 random moves after a suite opening."""
    rng = random.Random(seed)
    openings = load_openings(None)
    out: list[Position] = []
    while len(out) < count:
        a, b = openings[len(out) % len(openings)]
        pos = Position.initial().open(a).open(b)
        for _ in range(rng.randrange(20, 60)):
            moves = pos.legal_moves()
            if pos.over or not moves:
                break
            pos = pos.play(rng.choice(moves))
        if not pos.over and sum(pos.board) >= 20 and len(pos.legal_moves()) >= 3:
            out.append(pos)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print nodes/s over the suite and the depth each position reaches in the time given."""
    parser = argparse.ArgumentParser(prog="kiothi-board bench ai", description=__doc__)
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per position")
    parser.add_argument("--quiet", action="store_true", help="only the totals")
    parser.add_argument(
        "--levels",
        action="store_true",
        help="instead: CPU time and nodes per move of every level's own play (AIPlayer.choose)",
    )
    args = parser.parse_args(argv)
    if args.levels:
        return level_times(suite(args.positions))
    positions = suite(args.positions)
    total_nodes = 0
    total_time = 0.0
    depths = []
    for i, pos in enumerate(positions):
        searcher = Searcher(pos.variant)
        board, sown, side = pos.packed
        t0 = time.monotonic()
        res = searcher.search(board, sown, side, deadline=t0 + args.time)
        dt = time.monotonic() - t0
        total_nodes += res.nodes
        total_time += dt
        depths.append(res.depth)
        if not args.quiet:
            print(
                f"{i:2d} ply {pos.ply:3d} seeds {sum(pos.board):2d}: depth {res.depth:2d} "
                f"nodes {res.nodes:8d} {res.nodes / dt:9.0f} nodes/s"
                + ("  solved" if res.exact else "")
            )
    nps = total_nodes / total_time
    depths.sort()
    print(
        f"bench ai: {len(positions)} positions, {args.time:g} s each: {total_nodes} nodes in "
        f"{total_time:.2f} s = {nps:,.0f} nodes/s; depth reached: min {depths[0]}, "
        f"median {depths[len(depths) // 2]}, max {depths[-1]}"
    )
    return 0


def level_times(positions: list[Position]) -> int:
    """Print each level's CPU time and nodes per move on `positions` (this process's CPU).

    CPU time, not wall time, so other work on the machine does not count; the effort levels
    play the same moves anywhere, so only these times change from machine to machine."""
    print(f"bench ai --levels: {len(positions)} positions, one move each, CPU time")
    for number, lv in LEVELS.items():
        player = make_player(f"level:{number}", seed=1)
        times, nodes = [], []
        for pos in positions:
            t0 = time.process_time()
            hint = player.choose(pos)
            times.append((time.process_time() - t0) * 1000)
            nodes.append(hint.nodes)
        player.close()
        print(
            f"level {number} {lv.name:9s}: {sum(times) / len(times):8.1f} ms mean, "
            f"{max(times):8.1f} ms max; {sum(nodes) / len(nodes):9.0f} nodes mean"
        )
    return 0
