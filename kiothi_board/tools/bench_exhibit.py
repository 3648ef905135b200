"""`kiothi-board bench exhibit`: exhibition days of fake time through one daemon process.

A real daemon (`run --fake-clock`) with the simulated board and co-processor, played by
the simulated-day test's seeded crowd (a new crowd each day, no power cuts, so one process
lives through them all). Prints per day the games and presses and the daemon's RSS at
closing time, then the growth per day after the first: the slope a season would see.
`--voice`: the board speaks all day (issue 35: its worker's memory must stay flat).
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from zoneinfo import ZoneInfo

from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.tools.exhibit_crowd import Crowd, Day
from kiothi_board.tools.exhibit_day import ZONE, BoardProcess

__all__ = ["main"]

DAY_S = 86_400.0


def main(argv: Sequence[str]) -> int:
    """Run the days; print the figures."""
    p = argparse.ArgumentParser(
        prog="kiothi-board bench exhibit", description=__doc__, formatter_class=DefaultsFormatter
    )
    p.add_argument("--days", type=int, default=5, help="days of fake time (default 5)")
    p.add_argument("--seed", type=int, default=12, help="the first day's crowd seed")
    p.add_argument(
        "--visitors", type=int, metavar="N", help="at most N visitors a day (default: the crowd)"
    )
    p.add_argument(
        "--voice",
        action="store_true",
        help="the board speaks (the sim voice: its worker thread and queue)",
    )
    args = p.parse_args(list(argv))
    if not 1 <= args.days <= 400:
        p.error(f"--days must be 1…400, got {args.days}")
    if args.visitors is not None and args.visitors < 0:
        p.error(f"--visitors must be 0 or more, got {args.visitors}")
    start = dt.datetime(2026, 5, 29, 7, 0, tzinfo=ZoneInfo(ZONE)).timestamp()
    shm = Path("/dev/shm")
    state = Path(tempfile.mkdtemp(prefix="kiothi-bench-", dir=shm if shm.is_dir() else None))
    board = BoardProcess(state, start, voice=args.voice)
    began = time.perf_counter()
    rss: list[int] = []
    try:
        d = Day(board, Crowd(args.seed), kills=[], unplug_at=0.0)
        d.advance(300.0, step=5.0)  # 07:05: staff switch the board on and confirm the reset
        d.confirm_reset()
        for k in range(args.days):
            crowd = Crowd(args.seed + k)
            visitors = crowd.visitors[: args.visitors]
            hours: list[tuple[float, int]] = []
            for v in visitors:
                v.at += k * DAY_S
                d.serve(v)
                if not hours or v.at - hours[-1][0] >= 3600:
                    hours.append((v.at, board.rss_kb()))
            if hours:
                print("  RSS by the hour: " + ", ".join(f"{kb / 1024:.1f}" for _, kb in hours)
                      + " MB", flush=True)  # fmt: skip
            d.idle_until((k + 1) * DAY_S)
            rss.append(board.rss_kb())
            print(
                f"day {k + 1}: {len(visitors)} visitors, {len(d.game_ids)} games so far, "
                f"{sum(d.sent.values())} presses; RSS {rss[-1] / 1024:.1f} MB; "
                f"wall {time.perf_counter() - began:.0f} s",
                flush=True,
            )
    finally:
        board.stop()
        shutil.rmtree(state, ignore_errors=True)
    if len(rss) >= 2:
        slope = (rss[-1] - rss[0]) / (len(rss) - 1)
        print(
            f"bench exhibit: {args.days} days in one process; RSS {rss[0] / 1024:.1f} MB after "
            f"day 1, {rss[-1] / 1024:.1f} MB after day {args.days}: {slope:+.0f} kB a day"
        )
    return 0
