"""`kiothi-board match --ladder --steps`: each adjacent step of the ladder on two opening sets.

A step is a level against the one below it (level 1 against `novice:greedy-0.25`); the
ladder holds when every step scores 65–85 % (level 1: 40–60 %) on the balanced suite a
strong player might choose *and* on visitors' random openings (`visitor_openings.py`:
passes, scatters, heaps). Each opening is played from both sides. The table gives each
score with its 95 % interval (normal approximation over the games, a draw counting half);
about 130 games give ±8 % near 70 %. Players with chance (the novices, level 1, the levels
that lapse) replay suite pairs with new seeds; two levels that choose without chance
(Veteran and Expert) have only the suite's 48 distinct games, every pair once per colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from kiothi_board.ai.levels import LEVELS
from kiothi_board.tools.match import opening_pairs, play_game

STEPS: tuple[tuple[str, str], ...] = (
    ("level:1", "novice:greedy-0.25"),
    *((f"level:{n}", f"level:{n - 1}") for n in range(2, 10)),
)
BAND = (65.0, 85.0)
FIRST_BAND = (40.0, 60.0)  # level 1 against the novice: about even


def score_interval(scores: Sequence[float]) -> tuple[float, float]:
    """Mean score in percent and the half-width of its 95 % interval."""
    n = len(scores)
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / max(n - 1, 1)
    return 100 * mean, 100 * 1.96 * math.sqrt(var / n)


def deterministic(spec: str) -> bool:
    """True for a level that chooses without chance (no lapses, by effort): replaying a
    suite pair with it on both sides only repeats a game."""
    if not spec.startswith("level:"):
        return False
    lv = LEVELS.get(int(spec.split(":")[1]))
    return lv is not None and lv.nodes is not None and lv.style is None


def play_step(
    pool: ProcessPoolExecutor,
    pair: tuple[str, str],
    source: str | None,
    games: int,
    max_plies: int,
    seed: int,
) -> list[float]:
    """A's scores over `games` games of `pair` on the openings of `source` (None: the suite)."""
    openings = opening_pairs(source, games, max_plies)
    a, b = pair
    if source is None and deterministic(a) and deterministic(b):
        games = min(games, 2 * len(openings))  # every suite pair once per colour
    tasks = [
        (i, a, b, openings[(i // 2) % len(openings)], None, max_plies, seed) for i in range(games)
    ]
    return [o.a_score for o in pool.map(play_game, *zip(*tasks, strict=True))]


def steps_table(
    sets: Sequence[tuple[str, str | None, int]],
    *,
    top: int = 9,
    max_plies: int = 400,
    concurrency: int = 1,
    seed: int = 1,
) -> tuple[str, bool]:
    """The steps up to level `top` on each opening set (`(label, source, games)`), as a
    Markdown table, and whether every step is in its band."""
    head = "| step | " + " | ".join(f"{label} (games)" for label, _, _ in sets) + " |"
    lines = [head, "|---|" + "---|" * len(sets)]
    held = True
    with ProcessPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for pair in STEPS[:top]:
            low, high = FIRST_BAND if pair[1].startswith("novice") else BAND
            cells = []
            for _, source, games in sets:
                scores = play_step(pool, pair, source, games, max_plies, seed)
                mean, half = score_interval(scores)
                ok = low <= mean <= high
                held = held and ok
                mark = "" if ok else " **out of band**"
                cells.append(f"{mean:.1f} % ± {half:.1f} ({len(scores)}){mark}")
            line = f"| {pair[0]} – {pair[1]} | " + " | ".join(cells) + " |"
            lines.append(line)
            print(line, flush=True)
    return "\n".join(lines), held
