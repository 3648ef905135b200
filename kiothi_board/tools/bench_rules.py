"""`kiothi-board bench rules`: seeded random playouts on one core, on both cores of the rules
(the native one and the Python path) and on the traced path, in one run. Rates are per second
of this process's CPU time, so other work on the machine does not lower them."""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Sequence

from kiothi_board import native
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.rules import Position, Variant, engine_for
from kiothi_board.rules.fast import SplitMix64, random_playout

Figures = tuple[int, int, float]  # playouts, moves, elapsed seconds


def _start(variant: Variant) -> Position:
    pos = Position.initial(variant)
    while pos.phase == "opening":
        pos = pos.open("pass")
    return pos


def bench_python(variant: Variant, seconds: float, seed: int) -> Figures:
    """Random playouts on the Python core's fast path (the stdlib's Mersenne Twister,
    its quickest random source) for about `seconds`."""
    engine = engine_for(variant, "python")
    board, sown, side = _start(variant).packed
    rng = random.Random(seed)
    playouts = moves = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        moves += random_playout(engine, board, sown, side, (0, 0), rng.random)[2]  # type: ignore[arg-type]
        playouts += 1
    return playouts, moves, time.process_time() - start


def bench_native(variant: Variant, seconds: float, seed: int) -> Figures:
    """Random playouts on the native core (SplitMix64 in C) for about `seconds`."""
    engine = engine_for(variant, "native")
    board, sown, side = _start(variant).packed
    rng = SplitMix64(seed)
    playouts = moves = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        moves += engine.random_playout(board, sown, side, (0, 0), rng)[2]
        playouts += 1
    return playouts, moves, time.process_time() - start


def bench_traced(variant: Variant, seconds: float, seed: int) -> Figures:
    """Random playouts through `Position.play_traced` (full traces, legal lists)."""
    rng = random.Random(seed)
    playouts = moves = 0
    begin = _start(variant)
    start = time.process_time()
    while time.process_time() - start < seconds:
        pos = begin
        while not pos.over:
            pos = pos.play_traced(rng.choice(pos.legal_moves()))[0]
            moves += 1
        playouts += 1
    return playouts, moves, time.process_time() - start


def bench_rules(argv: Sequence[str]) -> int:
    """Print playouts/s and moves/s for each core's fast path and the traced path."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board bench rules", formatter_class=DefaultsFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="time per path (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", default="", help="e.g. V3,V7 (default: standard)")
    args = parser.parse_args(argv)
    variant = Variant.parse(args.variant)
    print(
        f"kiothi-board bench rules: {platform.python_implementation()} "
        f"{platform.python_version()} on {platform.machine()}, one core, variant {variant}, "
        f"seed {args.seed}; this process runs {native.describe()}"
    )
    paths = [("python", bench_python)]
    if native.native_available():
        paths.insert(0, ("native", bench_native))
    else:
        print("  native path: not available here (see above); only the Python path runs")
    paths.append(("traced", bench_traced))
    rates: dict[str, float] = {}
    for name, func in paths:
        playouts, moves, elapsed = func(variant, args.seconds, args.seed)
        rates[name] = moves / elapsed
        print(
            f"  {name:6} path: {playouts / elapsed:10.1f} playouts/s  "
            f"{moves / elapsed:12,.0f} moves/s  ({playouts} playouts, {moves} moves, "
            f"{elapsed:.1f} s CPU, {moves / max(playouts, 1):.0f} moves/playout)"
        )
    if "native" in rates:
        print(f"  native / python: {rates['native'] / rates['python']:.1f}×")
    sys.stdout.flush()
    return 0
