"""`kiothi-board match --ladder`: play the whole ladder and fit Elo ratings to all its games.

The ladder is the novices (`novice:random`, `novice:greedy-0.25`, `novice:greedy`) and
levels 1–9; the schedule plays level 1 against each novice, each level against the one
below it, and the novices against each other. `--from FILE …` fits match summaries that
were already played (`kiothi-board match … --out X.jsonl` writes `X.summary.json`)
instead of playing.

The fit is Bradley–Terry on the logistic (Elo) scale over every game, a draw counting half
a win: P(A beats B) = 1 / (1 + 10^((R_B − R_A) / 400)). Ratings are maximum-likelihood
(Newton's method), anchored at `novice:random` = 0, with one virtual draw added per pair
of players that met, so that a pair with a perfect score still gets a finite gap. The
95 % intervals are ±1.96 standard errors from the inverse of the observed information
(the anchor's rating is fixed, so each interval is relative to it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.tools.ladder_steps import steps_table
from kiothi_board.tools.match import GameOutcome, load_openings, play_game

ANCHOR = "novice:random"
K = math.log(10) / 400  # logistic slope per Elo point
SCHEDULE: tuple[tuple[str, str], ...] = (
    ("novice:greedy-0.25", "novice:random"),
    ("novice:greedy", "novice:greedy-0.25"),
    ("level:1", "novice:random"),
    ("level:1", "novice:greedy-0.25"),
    ("level:1", "novice:greedy"),
    ("level:2", "level:1"),
    ("level:3", "level:2"),
    ("level:4", "level:3"),
    ("level:5", "level:4"),
    ("level:6", "level:5"),
    ("level:7", "level:6"),
    ("level:8", "level:7"),
    ("level:9", "level:8"),
)

Game = tuple[str, str, float]  # (A, B, A's score: 1, 0.5 or 0)


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's fitted rating with its 95 % interval and record."""

    name: str
    elo: float
    low: float
    high: float
    games: int
    score: float


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve `matrix · x = rhs` by Gaussian elimination with partial pivoting."""
    n = len(rhs)
    a = [[*row, rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-12:
            raise ValueError("the games do not connect every player to the anchor")
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def _weighted(games: Sequence[Game], prior_draws: float) -> list[tuple[str, str, float, float]]:
    """The games as (A, B, A's score, weight), plus the virtual draws."""
    out = [(a, b, s, 1.0) for a, b, s in games]
    pairs = {tuple(sorted((a, b))) for a, b, _ in games}
    out.extend((a, b, 0.5, prior_draws) for a, b in sorted(pairs) if prior_draws > 0)
    return out


def _information(
    rows: list[tuple[str, str, float, float]], index: dict[str, int], r: list[float]
) -> tuple[list[float], list[list[float]]]:
    """Gradient and observed information (minus the Hessian) over the free ratings."""
    n = len(index)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for a, b, s, w in rows:
        ia, ib = index.get(a), index.get(b)
        ra = r[ia] if ia is not None else 0.0
        rb = r[ib] if ib is not None else 0.0
        p = 1 / (1 + math.exp(-K * (ra - rb)))
        g = w * K * (s - p)
        h = w * K * K * p * (1 - p)
        if ia is not None:
            grad[ia] += g
            info[ia][ia] += h
        if ib is not None:
            grad[ib] -= g
            info[ib][ib] += h
        if ia is not None and ib is not None:
            info[ia][ib] -= h
            info[ib][ia] -= h
    return grad, info


def fit(games: Sequence[Game], anchor: str = ANCHOR, prior_draws: float = 1.0) -> list[Rating]:
    """Bradley–Terry ratings of every player in `games`, strongest first (see the docstring)."""
    players = sorted({p for a, b, _ in games for p in (a, b)})
    if anchor not in players:
        raise ValueError(f"the anchor {anchor!r} played no game")
    free = [p for p in players if p != anchor]
    index = {p: i for i, p in enumerate(free)}
    rows = _weighted(games, prior_draws)
    r = [0.0] * len(free)
    for _ in range(100):
        grad, info = _information(rows, index, r)
        step = _solve(info, grad)
        r = [x + d for x, d in zip(r, step, strict=True)]
        if max((abs(d) for d in step), default=0.0) < 1e-6:
            break
    _, info = _information(rows, index, r)
    out = []
    for p in players:
        played = [(s if a == p else 1 - s) for a, b, s in games if p in (a, b)]
        score = sum(played) / len(played)
        if p == anchor:
            out.append(Rating(p, 0.0, 0.0, 0.0, len(played), score))
            continue
        i = index[p]
        unit = [1.0 if j == i else 0.0 for j in range(len(free))]
        var = _solve(info, unit)[i]
        half = 1.96 * math.sqrt(max(var, 0.0))
        out.append(Rating(p, r[i], r[i] - half, r[i] + half, len(played), score))
    return sorted(out, key=lambda x: -x.elo)


def load_summaries(paths: Iterable[str]) -> list[Game]:
    """Every game of the given match summaries (`*.summary.json`)."""
    games: list[Game] = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        try:
            a, b = data["a"], data["b"]
            games.extend((a, b, float(g["a_score"])) for g in data["games"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not a match summary ({exc!r} missing)") from exc
    return games


def margins(summary_path: str) -> list[int]:
    """Engine A's final margin (its seeds minus the other's) in every game of a match,
    read from the records beside the summary (`X.jsonl` for `X.summary.json`)."""
    records_path = summary_path.removesuffix(".summary.json") + ".jsonl"
    with open(summary_path, encoding="utf-8") as fh:
        games = json.load(fh)["games"]
    with open(records_path, encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    out = []
    for game, record in zip(games, records, strict=True):
        captured = (record.get("result") or {}).get("captured", [30, 30])
        south = captured[0] - captured[1]
        out.append(south if game["game"] % 2 == 0 else -south)  # A is South in even games
    return out


def close_share(values: Sequence[int], within: int = 8) -> tuple[float, float, float]:
    """The share of margins within ±`within` seeds and its 95 % Wilson interval."""
    n = len(values)
    k = sum(1 for v in values if abs(v) <= within)
    p = k / n
    z = 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, centre - half, centre + half


MARGIN_HEADER = (
    "| match (A – B) | games | A's margin within ±8 (95 %) | median | "
    "≤−17 / −16…−9 / −8…−1 / 0 / 1…8 / 9…16 / ≥17 |\n|---|---|---|---|---|"
)


def _bin(v: int) -> str:
    if v < 0:
        return "≤ −17" if v <= -17 else "−16…−9" if v <= -9 else "−8…−1"
    if v == 0:
        return "0"
    return "1…8" if v <= 8 else "9…16" if v <= 16 else "≥ 17"


def margin_line(name: str, values: Sequence[int]) -> str:
    """One Markdown row: share within ±8, its interval, and the distribution of margins."""
    p, lo, hi = close_share(values)
    bins = {"≤ −17": 0, "−16…−9": 0, "−8…−1": 0, "0": 0, "1…8": 0, "9…16": 0, "≥ 17": 0}
    for v in values:
        bins[_bin(v)] += 1
    dist = " ".join(str(c) for c in bins.values())
    median = sorted(values)[len(values) // 2]
    return (
        f"| {name} | {len(values)} | {100 * p:.0f} % ({100 * lo:.0f} … {100 * hi:.0f}) "
        f"| {median:+d} | {dist} |"
    )


def table(ratings: Sequence[Rating]) -> str:
    """The ratings as a Markdown table."""
    lines = [
        "| player | Elo | 95 % interval | games | score |",
        "|---|---|---|---|---|",
    ]
    for x in ratings:
        lines.append(
            f"| {x.name} | {x.elo:+.0f} | {x.low:+.0f} … {x.high:+.0f} | {x.games} | "
            f"{100 * x.score:.1f} % |"
        )
    return "\n".join(lines)


def play_schedule(
    games: int, max_plies: int, concurrency: int, out_dir: str | None, seed: int
) -> list[Game]:
    """Play every pair of `SCHEDULE` (each level at its own budget) and return the games."""
    openings = load_openings(None)
    results: list[Game] = []
    with ProcessPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for a, b in SCHEDULE:
            tasks = [
                (i, a, b, openings[(i // 2) % len(openings)], None, max_plies, seed)
                for i in range(games)
            ]
            outcomes: list[GameOutcome] = list(pool.map(play_game, *zip(*tasks, strict=True)))
            pct = 100 * sum(o.a_score for o in outcomes) / len(outcomes)
            print(f"{a} vs {b}: {len(outcomes)} games, score {pct:.1f} %", flush=True)
            results.extend((a, b, o.a_score) for o in outcomes)
            if out_dir is not None:
                name = f"{a}-{b}".replace(":", "")
                with open(os.path.join(out_dir, name + ".summary.json"), "w") as fh:
                    games_json = [{"game": o.index, "a_score": o.a_score} for o in outcomes]
                    json.dump({"a": a, "b": b, "games": games_json}, fh, indent=1)
    return results


def main(argv: list[str] | None = None) -> int:
    """Play (or load) the ladder's games and print the fitted Elo table."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board match --ladder", description=__doc__, formatter_class=DefaultsFormatter
    )
    parser.add_argument("--from", dest="sources", nargs="+", default=None, metavar="SUMMARY")
    parser.add_argument("--games", type=int, default=40, help="games per pair")
    parser.add_argument("--max-plies", type=int, default=150)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--out-dir", default=None, help="write each pair's summary here")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--anchor", default=ANCHOR)
    parser.add_argument(
        "--margins",
        action="store_true",
        help="with --from: print engine A's final margins per match instead of ratings",
    )
    parser.add_argument(
        "--steps",
        action="store_true",
        help="instead: every adjacent step on the suite and on visitors' random openings",
    )
    parser.add_argument("--suite-games", type=int, default=48, help="--steps: games on the suite")
    parser.add_argument(
        "--random-games", type=int, default=160, help="--steps: games on random openings"
    )
    parser.add_argument("--top", type=int, default=9, help="--steps: up to this level")
    args = parser.parse_args(argv)
    if args.steps:
        sets = [
            ("suite", None, args.suite_games),
            (f"random:{args.seed}", f"random:{args.seed}", args.random_games),
        ]
        print(f"ladder steps, ply limit {args.max_plies}, match seed {args.seed}", flush=True)
        _, held = steps_table(
            sets,
            top=args.top,
            max_plies=args.max_plies,
            concurrency=args.concurrency,
            seed=args.seed,
        )
        print("every step in its band" if held else "some step is out of its band")
        return 0 if held else 1
    if args.margins:
        if not args.sources:
            parser.error("--margins needs --from SUMMARY …")
        print(MARGIN_HEADER)
        for path in args.sources:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            print(margin_line(f"{data['a']} – {data['b']}", margins(path)))
        return 0
    try:
        if args.sources:
            games = load_summaries(args.sources)
        else:
            games = play_schedule(
                args.games, args.max_plies, args.concurrency, args.out_dir, args.seed
            )
        ratings = fit(games, args.anchor)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    print(f"{len(games)} games, anchored at {args.anchor} = 0\n")
    print(table(ratings))
    return 0
