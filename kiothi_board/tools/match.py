"""`kiothi-board match A B`: play two engines against each other and report the score.

An engine is any player spec of the registry (`kiothi_board/ai/registry.py`): `level:1`…
`level:9`, `level:adaptive`, `level:baseline` (plain depth-4 alpha-beta on the captured
difference), the novices, or `cmd:"COMMAND"` (an external program speaking the engine
protocol), each with optional `,core=native|python` and `,movetime=MS`. Colours
alternate; each opening of the suite is played once with each colour. An engine that
crashes, hangs (no answer within 2 × movetime + 1 s) or plays an illegal action loses the
game, and the reason is reported. Games are written as kiothi-game/1
records (one JSON line each) and a summary with every game's engines and ending.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from importlib import resources
from typing import IO, Any

from kiothi_board.ai.external import EngineFailure
from kiothi_board.ai.registry import SPEC_HELP, make_player
from kiothi_board.ai.thinking import MoveBudget, PlayerBase
from kiothi_board.clock import Clock, ProcessClock, SystemClock
from kiothi_board.errors import KiothiError
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.rules import GameRecord, Position, Variant, parse_opening
from kiothi_board.tools.visitor_openings import parse_source, visitor_openings

__all__ = [
    "EngineFailure",
    "GameOutcome",
    "elo",
    "elo_interval",
    "load_openings",
    "main",
    "opening_pairs",
]


@dataclass
class GameOutcome:
    """One finished game: the record, the score for engine A and how it ended."""

    index: int
    south: str
    north: str
    a_is_south: bool
    record: dict[str, Any]
    a_score: float
    end: str
    times: dict[str, list[float]] = field(default_factory=dict)


def play_game(
    index: int,
    spec_a: str,
    spec_b: str,
    opening: tuple[str, str] | None,
    movetime: float | None,
    max_plies: int | None,
    seed: int,
    cpu_clock: bool = False,
) -> GameOutcome:
    """Play one game; A is South in even-numbered games. Never raises for engine faults.

    `cpu_clock`: the engines' clock, the move times and the hang check are this process's
    CPU seconds (`ProcessClock`), so a clock level plays as on an idle machine whatever the
    load (each game runs in a process of its own pool worker, one game at a time).
    """
    clock: Clock = ProcessClock() if cpu_clock else SystemClock()
    a_is_south = index % 2 == 0
    variant = Variant(ply_limit=max_plies) if max_plies else Variant()
    specs = (spec_a, spec_b) if a_is_south else (spec_b, spec_a)
    pos = Position.initial(variant)
    actions: list[str] = []
    times: dict[str, list[float]] = {"A": [], "B": []}
    engines: list[PlayerBase] = []
    end = ""
    loser: int | None = None
    try:
        if opening is not None:
            for text in opening:
                pos = pos.open(parse_opening(text))
                actions.append(text)
        for side, spec in enumerate(specs):
            try:
                engines.append(
                    make_player(
                        spec,
                        seed=seed * 1000 + index * 2 + side,
                        movetime=movetime,
                        variant=variant,
                        clock=clock,
                    )
                )
            except EngineFailure as exc:
                loser, end = side, f"{'SN'[side]} ({spec}) {exc}"
                break
        while loser is None and not pos.over:
            side = int(pos.to_move)
            eng = engines[side]
            t0 = clock.now()
            try:
                text = eng.choose(pos, MoveBudget(line=tuple(actions))).action
            except EngineFailure as exc:
                loser, end = side, f"{'SN'[side]} ({eng.name}) {exc}"
                break
            dt = clock.now() - t0
            times["A" if (side == 0) == a_is_south else "B"].append(dt)
            if dt > 2 * eng.movetime + 1.0:
                loser, end = side, f"{'SN'[side]} ({eng.name}) hung: answered after {dt:.2f} s"
                break
            try:
                pos = pos.apply(text)
            except (KiothiError, ValueError) as exc:
                loser, end = (
                    side,
                    f"{'SN'[side]} ({eng.name}) played an illegal action {text!r}: {exc}",
                )
                break
            actions.append(text)
    finally:
        for eng in engines:
            eng.close()
    result = pos.result if loser is None else None
    record = GameRecord.from_actions(variant, actions, result).to_json()
    if loser is not None:
        south_score = 0.0 if loser == 0 else 1.0
    else:
        assert pos.result is not None
        end = str(pos.result)
        winner = pos.result.winner
        south_score = 0.5 if winner is None else 1.0 if int(winner) == 0 else 0.0
    a_score = south_score if a_is_south else 1.0 - south_score
    return GameOutcome(index, specs[0], specs[1], a_is_south, record, a_score, end, times)


def elo(score: float) -> float:
    """The Elo difference matching an expected score (clamped away from 0 and 1)."""
    s = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / s - 1)


def elo_interval(scores: list[float]) -> tuple[float, float, float]:
    """Elo difference and its 95 % interval from per-game scores (normal approximation)."""
    n = len(scores)
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / max(n - 1, 1)
    half = 1.96 * math.sqrt(var / n)
    return elo(mean), elo(mean - half), elo(mean + half)


def load_openings(path: str | None) -> list[tuple[str, str]]:
    """Opening pairs, one per line: South's action and North's, blank-separated."""
    if path is None:
        text = resources.files("kiothi_board.ai").joinpath("openings.txt").read_text("utf-8")
    else:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    pairs = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"bad opening line {raw!r}: expected two opening actions")
        pos = Position.initial()
        for p in parts:
            pos = pos.open(p)  # reject illegal suites early
        pairs.append((parts[0], parts[1]))
    return pairs


def opening_pairs(source: str | None, games: int, max_plies: int | None) -> list[tuple[str, str]]:
    """The openings a match plays: the suite, a file, none, or visitors' random ones."""
    if source == "none":
        return []
    seed = None if source is None else parse_source(source)
    if seed is None:
        return load_openings(source)
    variant = Variant(ply_limit=max_plies) if max_plies else Variant()
    return visitor_openings(max(1, (games + 1) // 2), seed, variant)


def _progress(done: int, total: int, w: int, d: int, lost: int, out: IO[str]) -> None:
    width = 30
    fill = width * done // max(total, 1)
    out.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total}  +{w} ={d} -{lost}")
    out.flush()


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def main(argv: list[str] | None = None) -> int:
    """Run a match and print W/D/L, score, Elo with its interval, and move times.

    `kiothi-board match --ladder …` plays the whole ladder instead (tools/ladder.py).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(
        prog="kiothi-board match", description=__doc__, formatter_class=DefaultsFormatter
    )
    parser.add_argument("a", help=f'engine A: {SPEC_HELP} or cmd:"COMMAND"')
    parser.add_argument("b", help="engine B")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument(
        "--movetime",
        type=int,
        default=None,
        help="ms per move for both engines (default: each level's own budget)",
    )
    parser.add_argument(
        "--max-plies", type=int, default=None, help="end games at this ply with R11's split"
    )
    parser.add_argument(
        "--openings",
        default=None,
        help="opening-pair file (default: the shipped suite; 'none': engines choose; "
        "'random' or 'random:SEED': visitors' random openings, a pair per two games)",
    )
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument(
        "--out",
        default=None,
        help="write the games here (JSON lines) and a .summary.json beside it",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="the engines' clock: wall time (as on a board), or each game's CPU seconds "
        "('cpu': a clock level such as level 9 plays as on an idle machine whatever the load; "
        "move times are then CPU seconds)",
    )
    args = parser.parse_args(argv)
    if args.clock == "cpu" and any(s.startswith("cmd:") for s in (args.a, args.b)):
        parser.error("--clock cpu counts this process's CPU time: not an external engine's")
    for spec in (args.a, args.b):
        if not spec.startswith("cmd:"):
            try:
                make_player(spec).close()
            except ValueError as exc:
                parser.error(str(exc))
    try:
        openings = opening_pairs(args.openings, args.games, args.max_plies)
    except (OSError, ValueError) as exc:
        parser.error(f"cannot use the openings: {exc}")
    movetime = None if args.movetime is None else args.movetime / 1000
    tasks = []
    for i in range(args.games):
        opening = openings[(i // 2) % len(openings)] if openings else None
        tasks.append(
            (i, args.a, args.b, opening, movetime, args.max_plies, args.seed, args.clock == "cpu")
        )
    outcomes: list[GameOutcome] = []
    tty = sys.stderr.isatty()
    wins = draws = losses = 0
    with ProcessPoolExecutor(max_workers=max(1, args.concurrency)) as pool:
        pending: set[Future[GameOutcome]] = {pool.submit(play_game, *t) for t in tasks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                o = fut.result()
                outcomes.append(o)
                wins += o.a_score == 1.0
                draws += o.a_score == 0.5
                losses += o.a_score == 0.0
                if tty:
                    _progress(len(outcomes), len(tasks), wins, draws, losses, sys.stderr)
                else:  # a log: a line a game, so a match stopped early still tells its score
                    print(
                        f"game {o.index} ({len(outcomes)}/{len(tasks)}): A {o.a_score:g}, "
                        f"{o.end}; so far +{wins} ={draws} -{losses}",
                        file=sys.stderr,
                        flush=True,
                    )
    if tty:
        sys.stderr.write("\n")
    outcomes.sort(key=lambda o: o.index)
    scores = [o.a_score for o in outcomes]
    n = len(scores)
    pct = 100 * sum(scores) / n if n else 0.0
    print(f"{args.a} vs {args.b}: {n} games, +{wins} ={draws} -{losses}, score {pct:.1f} %")
    if n:
        e, lo, hi = elo_interval(scores)
        print(f"Elo difference {e:+.0f} (95 % interval {lo:+.0f} … {hi:+.0f})")
    for who, spec in (("A", args.a), ("B", args.b)):
        ts = [t for o in outcomes for t in o.times[who]]
        if ts:
            print(
                f"{who} {spec}: {len(ts)} moves, average {1000 * sum(ts) / len(ts):.1f} ms, "
                f"p99 {1000 * _percentile(ts, 0.99):.1f} ms, max {1000 * max(ts):.1f} ms"
            )
    ends: dict[str, int] = {}
    for o in outcomes:
        kind = o.end.rsplit("(", 1)[-1].rstrip(")") if o.record.get("result") else "forfeit"
        ends[kind] = ends.get(kind, 0) + 1
        if kind == "forfeit":
            print(f"game {o.index}: {o.end}")
    print("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            for o in outcomes:
                fh.write(json.dumps(o.record) + "\n")
        summary = [
            {
                "game": o.index,
                "south": o.south,
                "north": o.north,
                "a_score": o.a_score,
                "end": o.end,
            }
            for o in outcomes
        ]
        with open(os.path.splitext(args.out)[0] + ".summary.json", "w", encoding="utf-8") as fh:
            json.dump({"a": args.a, "b": args.b, "games": summary}, fh, indent=1)
    return 0
