"""`kiothi-board bench ai`: search speed on a fixed suite of middle-game positions.

The suite is reproducible: each position is reached by seeded random moves from the shipped
opening suite. A node is one position the search visits (interior node or horizon leaf),
as chess engines count them; sowings tried for move generation are not counted separately.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import subprocess
import sys
import time
from collections.abc import Iterator

from kiothi_board import native
from kiothi_board.ai.levels import LEVELS
from kiothi_board.ai.registry import make_player
from kiothi_board.ai.search import Searcher
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.native import Core
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
    parser = argparse.ArgumentParser(
        prog="kiothi-board bench ai", description=__doc__, formatter_class=DefaultsFormatter
    )
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per position")
    parser.add_argument("--quiet", action="store_true", help="only the totals")
    parser.add_argument(
        "--core",
        choices=("native", "python", "both"),
        default=None,
        help="which core searches (default: this process's; --levels: both)",
    )
    parser.add_argument(
        "--levels",
        action="store_true",
        help="instead: CPU time and nodes per move of every level's own play, openings included",
    )
    parser.add_argument(
        "--wall",
        action="store_true",
        help="--levels: time by the wall clock, as a player waits (the clock's level keeps it)",
    )
    parser.add_argument(
        "--hogs", type=int, default=0, help="busy processes to run beside the bench (load)"
    )
    args = parser.parse_args(argv)
    print(f"this process runs {native.describe()}")
    with busy(args.hogs):
        if args.levels:
            cores = _cores(args.core or "both")
            return level_times(suite(args.positions), cores, wall=args.wall)
        return _speeds(args)


def _speeds(args: argparse.Namespace) -> int:
    """Nodes/s on the suite for each core asked for."""
    positions = suite(args.positions)
    for core in _cores(args.core or native.default_core()):
        search_speed(positions, args.time, core, args.quiet)
    return 0


def _cores(which: str) -> list[Core]:
    if which == "both":
        return ["native", "python"] if native.native_available() else ["python"]
    return [native.resolve(which)]  # type: ignore[arg-type]


class CpuClock:
    """This process's CPU time as the searcher's clock: "1 s" is a second on a core, so the
    figures do not fall when other work shares the machine."""

    def now(self) -> float:
        """CPU seconds used by this process."""
        return time.process_time()

    def wall(self) -> float:
        """Wall-clock time (unused by the search)."""
        return time.time()


def search_speed(positions: list[Position], seconds: float, core: Core, quiet: bool) -> None:
    """Search each position for `seconds` of CPU; print nodes/s and the depths reached."""
    total_nodes = 0
    total_time = 0.0
    depths = []
    clock = CpuClock()
    for i, pos in enumerate(positions):
        searcher = Searcher(pos.variant, core=core, clock=clock)
        board, sown, side = pos.packed
        t0 = clock.now()
        res = searcher.search(board, sown, side, deadline=t0 + seconds)
        dt = clock.now() - t0
        total_nodes += res.nodes
        total_time += dt
        depths.append(res.depth)
        if not quiet:
            print(
                f"{i:2d} ply {pos.ply:3d} seeds {sum(pos.board):2d}: depth {res.depth:2d} "
                f"nodes {res.nodes:8d} {res.nodes / dt:9.0f} nodes/s"
                + ("  solved" if res.exact else "")
            )
    nps = total_nodes / total_time
    depths.sort()
    print(
        f"bench ai ({core} core): {len(positions)} positions, {seconds:g} s of CPU each: "
        f"{total_nodes} nodes in {total_time:.2f} s = {nps:,.0f} nodes/s; depth reached: "
        f"min {depths[0]}, median {depths[len(depths) // 2]}, max {depths[-1]}"
    )


def openings(count: int = 4) -> list[Position]:
    """Opening decisions to time: South's at the start, and North's after `count - 1` of
    the suite's South actions."""
    start = Position.initial()
    norths = {a for a, _ in load_openings(None)}
    return [start, *(start.open(a) for a in sorted(norths)[: count - 1])]


@contextlib.contextmanager
def busy(count: int) -> Iterator[None]:
    """`count` busy processes (CPU hogs) for the length of the block, ended however it ends."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    if hogs:
        print(f"beside {count} busy process(es)")
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def level_times(positions: list[Position], cores: list[Core], *, wall: bool = False) -> int:
    """Print each level's CPU time per move on `positions` and per opening decision, on each
    core (this process's CPU time, so other work on the machine does not count; with
    `wall`, the wall clock's time, which is what a player waits under load).

    The effort levels play the same moves on either core and on any machine, so only these
    times change; the p99 is over the moves and the openings together."""
    decisions = openings()
    print(
        f"bench ai --levels: {len(positions)} positions (one move each) and "
        f"{len(decisions)} opening decisions, {'wall' if wall else 'CPU'} time"
    )
    now = time.perf_counter if wall else time.process_time
    p99s: dict[Core, dict[int, float]] = {}
    for core in cores:
        p99s[core] = {}
        for number, lv in LEVELS.items():
            player = make_player(f"level:{number},core={core}", seed=1)
            times, nodes, opening_times = [], [], []
            for pos in [*positions, *decisions]:
                t0 = now()
                hint = player.choose(pos)
                dt = (now() - t0) * 1000
                if pos.phase == "opening":
                    opening_times.append(dt)
                else:
                    times.append(dt)
                    nodes.append(hint.nodes)
            player.close()
            every = times + opening_times
            p99s[core][number] = percentile(every, 0.99)
            print(
                f"level {number} {lv.name:9s}: {sum(times) / len(times):8.1f} ms mean, "
                f"{max(times):8.1f} ms max; {sum(nodes) / len(nodes):9.0f} nodes mean; "
                f"openings {max(opening_times):7.1f} ms max; p99 {p99s[core][number]:7.1f} ms "
                f"({core})"
            )
    print("p99 a move, openings included (ms):", end="")
    print("".join(f"  {core}" for core in cores), f"  Zero 2 W (×{ZERO_2W}, {cores[0]})")
    for number in LEVELS:
        row = "".join(f"  {p99s[core][number]:.1f}" for core in cores)
        print(f"  level {number}:{row}  {p99s[cores[0]][number] * ZERO_2W:.0f}")
    return 0


ZERO_2W = 20  # a Pi Zero 2 W runs CPython 15–20× slower than one core here (issue 23)


def percentile(values: list[float], q: float) -> float:
    """The `q` quantile by the nearest-rank method (the match runner's)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]
