"""The one public interface of every player: `choose(position, budget) -> Hint`.

`PlayerBase` adds what every player shares on top of `choose`: hints, thinking off the
caller's thread (`start_think` returns a future-like `Thinking`: `done`, `result`,
`add_done_callback`, `stop` for "move now", `cancel` for "never mind"), `new_game` and an
idempotent `close`. The daemon's event loop never waits for a search. Players are built
by name in one place, `registry.py`.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass

from kiothi_board.ai.search import Iteration
from kiothi_board.rules import OpeningAction, Position, pit_name

__all__ = ["Hint", "MoveBudget", "PlayerBase", "Thinking"]


@dataclass(frozen=True, slots=True)
class Hint:
    """A recommended action with the search's view of it.

    `move` is the pit to sow (play phase) or None; `opening` the opening action (opening
    phase) or None. `score` is the predicted final margin in seeds for the side to move
    (captures so far included). `pv` is the principal variation in text notation.
    """

    move: int | None
    opening: OpeningAction | None
    score: float
    pv: tuple[str, ...]
    depth: int
    nodes: int
    exact: bool
    explanation: str

    @property
    def action(self) -> str:
        """The action in RULES.md text notation (`S6`, `S7>S1,…`, `pass`)."""
        if self.opening is not None:
            return str(self.opening)
        assert self.move is not None
        return pit_name(self.move)


@dataclass(frozen=True, slots=True)
class MoveBudget:
    """How one `choose` may think.

    `movetime` (seconds) and `max_depth` override the player's own (a fixed depth lifts
    the level's node cap); `stop` is polled by the search ("move now"); `on_iteration` is
    called after each completed iteration; `advice` asks for the best this player's search
    finds (a hint: never by eye); `line` holds the actions that led to the position from
    the initial one, for players that need them (external engines).
    """

    movetime: float | None = None
    max_depth: int | None = None
    stop: threading.Event | None = None
    on_iteration: Callable[[Iteration], None] | None = None
    advice: bool = False
    line: tuple[str, ...] | None = None


ANY = MoveBudget()


class Thinking:
    """A search running on a worker thread. Future-like; never blocks the caller.

    `stop()` asks for the best move found so far (the result arrives within a few ms);
    `cancel()` stops and discards it (`result()` then raises CancelledError).
    """

    def __init__(self) -> None:
        self._future: Future[Hint] = Future()
        self._stop = threading.Event()
        self._cancelled = False
        self._thread: threading.Thread | None = None

    @property
    def stop_event(self) -> threading.Event:
        """The event the search polls."""
        return self._stop

    def stop(self) -> None:
        """Finish now with the best move found so far."""
        self._stop.set()

    def cancel(self) -> bool:
        """Abandon the search; returns True unless it had already finished."""
        if self._future.done():
            return False  # too late: the result stands
        self._cancelled = True
        self._stop.set()
        return True

    def cancelled(self) -> bool:
        """True after `cancel()`."""
        return self._cancelled

    def done(self) -> bool:
        """True once a result (or an error) is available."""
        return self._future.done()

    def result(self, timeout: float | None = None) -> Hint:
        """Wait for the hint; raises CancelledError after `cancel()`, TimeoutError on timeout."""
        if self._cancelled and not self._future.done():
            self.join(timeout)
        hint = self._future.result(timeout)
        if self._cancelled:
            raise CancelledError
        return hint

    def add_done_callback(self, fn: Callable[[Thinking], object]) -> None:
        """Call `fn(self)` on the worker thread when the search ends (at once if it has)."""
        self._future.add_done_callback(lambda _f: fn(self))

    def join(self, timeout: float | None = None) -> None:
        """Wait for the worker thread to end (for orderly shutdown)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self, target: Callable[[threading.Event], Hint]) -> None:
        try:
            hint = target(self._stop)
        except BaseException as exc:  # delivered to whoever waits on the result
            self._future.set_exception(exc)
        else:
            self._future.set_result(hint)


class PlayerBase:
    """What every player shares; a player implements `choose` (and may extend `new_game`).

    `name` is its spec (`level:5`, `novice:greedy`, …); `movetime` its own budget in
    seconds (a safety cap for the effort levels). Deterministic for a given seed.
    """

    name = "player"
    movetime = 1.0

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self._lock = threading.Lock()
        self._current: Thinking | None = None

    def choose(self, position: Position, budget: MoveBudget = ANY) -> Hint:
        """The action this player plays in `position` (blocking the caller)."""
        raise NotImplementedError

    def hint(
        self,
        position: Position,
        *,
        stop: threading.Event | None = None,
        movetime: float | None = None,
    ) -> Hint:
        """The best action this player's search finds, with score, PV and explanation."""
        return self.choose(position, MoveBudget(movetime=movetime, stop=stop, advice=True))

    def new_game(self) -> None:
        """Restart the seeded choices afresh (searching players also forget their tables)."""
        self.rng = random.Random(self.seed)

    def start_think(
        self,
        position: Position,
        *,
        hint: bool = False,
        movetime: float | None = None,
        max_depth: int | None = None,
        on_iteration: Callable[[Iteration], None] | None = None,
    ) -> Thinking:
        """Start choosing (or, with `hint`, advising) on a worker thread; return at once.

        A think still running is cancelled first: one player, one search.
        """
        previous = self._current
        if previous is not None and not previous.done():
            previous.cancel()
        thinking = Thinking()

        def target(stop: threading.Event) -> Hint:
            if previous is not None:
                previous.join()
            budget = MoveBudget(movetime, max_depth, stop, on_iteration, advice=hint)
            return self.choose(position, budget)

        thread = threading.Thread(
            target=thinking._run, args=(target,), name="kiothi-ai", daemon=True
        )
        thinking._thread = thread
        self._current = thinking
        thread.start()
        return thinking

    def close(self) -> None:
        """Cancel any running think and wait for its thread (idempotent)."""
        current = self._current
        if current is not None:
            current.cancel()
            current.join()
        self._current = None

    def __enter__(self) -> PlayerBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
