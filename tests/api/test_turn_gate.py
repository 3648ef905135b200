"""The `TurnGate` (issue 30 item 5): PINs over the limits wait their turn in arrival order,
at the limiter's pace, and a waiter whose connection went away is skipped at once."""

from __future__ import annotations

import asyncio
import itertools
import time

from kiothi_board.api.authlimit import AuthLimiter, TurnGate
from kiothi_board.clock import FakeClock


class CountingLimiter(AuthLimiter):
    """Counts the turns given (each live turn asks for the next interval once)."""

    turns = 0

    def turn_interval(self) -> float:
        self.turns += 1
        return super().turn_interval()


def test_turns_come_in_arrival_order_at_the_pace_and_skip_the_gone() -> None:
    limiter = CountingLimiter(global_rate=20.0, clock=FakeClock())  # a turn every 0.05 s
    gate = TurnGate(limiter, wait=0.1)
    order: list[tuple[int, bool, float]] = []

    async def waiter(n: int, alive: bool) -> None:
        await asyncio.sleep(n * 0.001)  # arrive in order
        got = await gate.turn(lambda: alive)
        order.append((n, got, time.monotonic()))

    async def main() -> float:
        started = time.monotonic()
        await asyncio.gather(*(waiter(n, n != 2) for n in range(6)))
        return started

    started = asyncio.run(main())
    assert [n for n, _, _ in order] == [0, 1, 2, 3, 4, 5]
    assert [got for _, got, _ in order] == [True, True, False, True, True, True]
    assert order[0][2] - started >= 0.1  # everyone waits `wait` first
    live = [at for n, got, at in order if got]
    gaps = [b - a for a, b in itertools.pairwise(live)]
    assert all(g >= 0.045 for g in gaps), gaps  # one turn per interval
    assert limiter.turns == 5 and gate.waiting == 0  # the gone one took no turn


def test_the_pace_slows_once_the_daily_failures_are_spent() -> None:
    clock = FakeClock()
    limiter = AuthLimiter(global_rate=10.0, daily=3, slow_rate=0.2, clock=clock)
    assert limiter.turn_interval() == 0.1
    for _ in range(3):
        limiter.failed("10.0.0.1:1", "PIN")
    assert limiter.turn_interval() == 5.0  # the slow turns: 17,280 a day
