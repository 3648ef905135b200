"""A guessing flood from 100 loopback addresses while the staff sign in (issue 30 item 5).

`run_flood` keeps one guesser per address (127.0.0.2 … 127.0.0.101) sending wrong secrets
as fast as it is answered, for at least `duration` seconds, and starts the staff's 30
sign-ins (from 127.0.0.1, each on its own connection) spread over that time. It returns
what each sign-in got and how long it took; the board's and the dashboard's tests give the
two coroutines (a guess, a sign-in) for their door.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

ADDRESSES = [f"127.0.0.{i}" for i in range(2, 102)]
STAFF_TRIES = 30


@dataclass
class FloodResult:
    """The staff's results ("ok" or why not) with their waits, and the guesses answered."""

    staff: list[str] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)
    guesses: int = 0
    errors: int = 0

    def summary(self) -> str:
        """One line for the note: staff in, their longest and median wait, guesses."""
        waits = sorted(self.waits)
        median = waits[len(waits) // 2] if waits else 0.0
        return (
            f"staff {self.staff.count('ok')}/{len(self.staff)} in "
            f"(wait median {median:.2f} s, max {max(waits, default=0.0):.2f} s); "
            f"{self.guesses} wrong guesses answered from {len(ADDRESSES)} addresses"
        )


async def _flood(
    guess: Callable[[str, Callable[[], None]], Awaitable[None]],
    sign_in: Callable[[], Awaitable[str]],
    duration: float,
    timeout: float,
) -> FloodResult:
    result = FloodResult()

    def count() -> None:
        result.guesses += 1

    async def guesser(host: str) -> None:
        while True:
            try:
                await guess(host, count)
            except (OSError, asyncio.IncompleteReadError, TimeoutError):
                result.errors += 1
                await asyncio.sleep(0.05)  # a refused connection: try again, gently

    async def staff(delay: float) -> tuple[str, float]:
        await asyncio.sleep(delay)
        started = time.monotonic()
        try:
            got = await asyncio.wait_for(sign_in(), timeout)
        except (OSError, TimeoutError, asyncio.IncompleteReadError) as exc:
            got = f"failed: {type(exc).__name__}"
        return got, time.monotonic() - started

    guessers = [asyncio.create_task(guesser(h)) for h in ADDRESSES]
    try:
        await asyncio.sleep(min(2.0, duration / 5))  # the flood is under way first
        spacing = duration / STAFF_TRIES
        tries = [asyncio.create_task(staff(i * spacing)) for i in range(STAFF_TRIES)]
        for got, waited in await asyncio.gather(*tries):
            result.staff.append(got)
            result.waits.append(waited)
    finally:
        for task in guessers:
            task.cancel()
        await asyncio.gather(*guessers, return_exceptions=True)
    return result


def run_flood(
    guess: Callable[[str, Callable[[], None]], Awaitable[None]],
    sign_in: Callable[[], Awaitable[str]],
    *,
    duration: float,
    timeout: float = 90.0,
) -> FloodResult:
    """Flood for about `duration` seconds (and until the last sign-in is answered)."""
    return asyncio.run(_flood(guess, sign_in, duration, timeout))
