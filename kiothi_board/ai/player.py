"""The `AIPlayer` (blocking and off-thread thinking) and hints; levels are in `levels.py`.

The daemon's event loop must never wait for the search: `start_think` runs it on a worker
thread and returns a `Thinking` handle (future-like: `done`, `result`, `add_done_callback`,
`stop` for "move now", `cancel` for "never mind").
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass

from kiothi_board.ai.evaluation import TUNED, Weights
from kiothi_board.ai.explain import beginner_reason, explain_move
from kiothi_board.ai.human import Style, choose_seen
from kiothi_board.ai.levels import BASELINE_LEVEL, LEVEL_NAMES, LEVELS, Level, level
from kiothi_board.ai.opening import choose_opening, explain_opening
from kiothi_board.ai.search import Iteration, Searcher
from kiothi_board.clock import Clock, SystemClock
from kiothi_board.rules import PASS, OpeningAction, Position, pit_name

__all__ = [
    "BASELINE_LEVEL",
    "LEVELS",
    "LEVEL_NAMES",
    "AIPlayer",
    "Hint",
    "Level",
    "Thinking",
    "baseline_player",
    "level",
]

SAFETY = 0.012  # seconds kept back from the budget for the worker hand-off and GC


def baseline_player(seed: int = 0, **kwargs: object) -> AIPlayer:
    """`level:baseline`: plain depth-4 alpha-beta on the captured difference, no tuning."""
    from kiothi_board.ai.evaluation import BASELINE

    return AIPlayer(BASELINE_LEVEL, seed, weights=BASELINE, extensions=0, **kwargs)  # type: ignore[arg-type]


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


class AIPlayer:
    """A computer opponent at one level, deterministic for a given seed and level.

    `choose(position)` blocks; `start_think(position)` returns a `Thinking` at once.
    `hint(position)` always plays its best (never by eye). The clock is injected
    (a `Clock`; default the system clock); `movetime`/`max_depth` override the level's.
    """

    def __init__(
        self,
        level_spec: int | str | Level = 4,
        seed: int = 0,
        *,
        weights: Weights = TUNED,
        clock: Clock | None = None,
        movetime: float | None = None,
        max_depth: int | None = None,
        extensions: int = 2,
    ) -> None:
        self.level = level(level_spec)
        self.extensions = extensions
        self.seed = seed
        self.rng = random.Random(seed)
        self.weights = weights
        self.clock: Clock = clock or SystemClock()
        self.movetime = self.level.movetime if movetime is None else movetime
        self.max_depth = self.level.max_depth if max_depth is None else max_depth
        self._searchers: dict[object, Searcher] = {}
        self._lock = threading.Lock()
        self._current: Thinking | None = None

    # ----------------------------------------------------------------- public API
    def new_game(self) -> None:
        """Forget the search tables and restart the seeded choices (moves by eye) afresh."""
        for s in self._searchers.values():
            s.new_game()
        self.rng = random.Random(self.seed)

    def choose(
        self,
        position: Position,
        *,
        stop: threading.Event | None = None,
        movetime: float | None = None,
        max_depth: int | None = None,
        on_iteration: Callable[[Iteration], None] | None = None,
    ) -> Hint:
        """The action this level plays (mistakes included), blocking the caller."""
        return self._think(position, stop, movetime, max_depth, on_iteration, mistakes=True)

    def hint(
        self,
        position: Position,
        *,
        stop: threading.Event | None = None,
        movetime: float | None = None,
    ) -> Hint:
        """The best action this level's search finds, with score, PV and explanation."""
        return self._think(position, stop, movetime, None, None, mistakes=False)

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

        A think still running is cancelled first: one searcher, one search.
        """
        previous = self._current
        if previous is not None and not previous.done():
            previous.cancel()
        thinking = Thinking()

        def target(stop: threading.Event) -> Hint:
            if previous is not None:
                previous.join()
            return self._think(position, stop, movetime, max_depth, on_iteration, mistakes=not hint)

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

    def __enter__(self) -> AIPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- internals
    def _searcher(self, position: Position) -> Searcher:
        # The TT is keyed without the variant, so each variant gets its own searcher.
        variant = position.variant
        s = self._searchers.get(variant)
        if s is None:
            s = Searcher(
                variant, weights=self.weights, clock=self.clock, extensions=self.extensions
            )
            self._searchers[variant] = s
        return s

    def _think(
        self,
        position: Position,
        stop: threading.Event | None,
        movetime: float | None,
        max_depth: int | None,
        on_iteration: Callable[[Iteration], None] | None,
        *,
        mistakes: bool,
    ) -> Hint:
        if position.over:
            raise ValueError("the game is over: there is nothing to play")
        with self._lock:
            budget = self.movetime if movetime is None else movetime
            depth_cap = self.max_depth if max_depth is None else max_depth
            nodes = self.level.nodes if max_depth is None else None
            style = self.level.style
            lapse = self.level.lapse
            if style is not None and mistakes and lapse < 1.0 and self.rng.random() >= lapse:
                style = None  # a searching level's lapses (a beginner's moment) are rare
            if not mistakes:
                style = None
                if self.level.beginner_hints:  # a hint at a low level: sound advice
                    depth_cap, nodes = max(depth_cap, 4), 20_000
            if position.phase == "opening":
                if style is not None:
                    return _pass_opening(position)
                return self._opening(position, stop, budget, depth_cap)
            if style is not None:
                return self._beginner(position, style)
            return self._move(position, stop, budget, depth_cap, nodes, on_iteration)

    def _opening(
        self, position: Position, stop: threading.Event | None, budget: float, depth_cap: int
    ) -> Hint:
        choice = choose_opening(
            position,
            self._searcher(position),
            budget=max(budget - SAFETY, 0.001),
            clock=self.clock,
            stop=stop,
            max_depth=min(max(depth_cap, 2), 8),
        )
        return Hint(
            None,
            choice.action,
            choice.score / 100,
            (str(choice.action),),
            choice.depth,
            choice.nodes,
            False,
            explain_opening(choice, position.to_move),
        )

    def _beginner(self, position: Position, style: Style) -> Hint:
        board, sown, side = position.packed
        seen, expected = choose_seen(
            board, sown, side, position.variant, style, self.rng, self.weights
        )
        me = position.to_move
        base = position.captured[me] - position.captured[me.other]
        return Hint(
            seen.pit,
            None,
            float(base + expected),
            (pit_name(seen.pit),),
            2 if style.looks_ahead else 1,
            0,
            False,
            beginner_reason(position, seen.pit),
        )

    def _move(
        self,
        position: Position,
        stop: threading.Event | None,
        budget: float,
        depth_cap: int,
        nodes: int | None,
        on_iteration: Callable[[Iteration], None] | None,
    ) -> Hint:
        searcher = self._searcher(position)
        board, sown, side = position.packed
        start = self.clock.now()
        hard = max(budget - SAFETY, 0.001)
        limit = position.variant.ply_limit
        res = searcher.search(
            board,
            sown,
            side,
            max_depth=depth_cap,
            deadline=start + hard,
            # Effort levels stop on nodes; the clock is only a safety cap for them.
            soft_deadline=None if nodes is not None else start + hard * 0.45,
            stop=stop,
            game_history=Counter(position.history),
            plies_left=None if limit is None else limit - position.ply,
            on_iteration=on_iteration,
            max_nodes=nodes,
        )
        me = position.to_move
        base = position.captured[me] - position.captured[me.other]
        if self.level.beginner_hints:
            why = beginner_reason(position, res.move)
        else:
            why = explain_move(position, res.move, res)
        return Hint(
            res.move,
            None,
            base + res.score / 100,
            tuple(pit_name(p) for p in res.pv),
            res.depth,
            res.nodes,
            res.exact,
            why,
        )


def _pass_opening(position: Position) -> Hint:
    """The beginners' opening: pass, keeping every pit protected (R3, R7)."""
    me = position.to_move
    return Hint(
        None,
        PASS,
        0.0,
        ("pass",),
        0,
        0,
        False,
        f"{me.letter}: pass. Every pit stays unsown, so R7 protects all of them.",
    )
