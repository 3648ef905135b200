"""Levels, the `AIPlayer` (blocking and off-thread thinking) and hints.

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

from kiothi_board.ai.evaluation import TUNED, Weights, make_evaluator
from kiothi_board.ai.opening import Candidate, choose_opening, explain_opening
from kiothi_board.ai.search import Iteration, Searcher, SearchResult
from kiothi_board.hardware.clock import SystemClock
from kiothi_board.hardware.protocols import Clock
from kiothi_board.rules import OpeningAction, Position, pit_name


@dataclass(frozen=True, slots=True)
class Level:
    """A playing strength: time per move, depth cap and the rate of deliberate mistakes.

    `mistake` is the chance, per move, of playing one of the next-best moves of a 1-ply
    look instead of the searched best: a plausible slip, as a person would make.
    """

    number: int
    name: str
    movetime: float
    max_depth: int
    mistake: float

    def __str__(self) -> str:
        return f"{self.number} ({self.name})"


LEVELS: dict[int, Level] = {
    1: Level(1, "Beginner", 0.02, 1, 0.40),
    2: Level(2, "Casual", 0.04, 2, 0.20),
    3: Level(3, "Club", 0.08, 4, 0.08),
    4: Level(4, "Strong", 0.15, 6, 0.02),
    5: Level(5, "Expert", 0.2, 8, 0.0),
    6: Level(6, "Master", 0.8, 64, 0.0),
}
LEVEL_NAMES = {lv.name.lower(): lv for lv in LEVELS.values()}
SAFETY = 0.012  # seconds kept back from the budget for the worker hand-off and GC


def baseline_player(seed: int = 0, **kwargs: object) -> AIPlayer:
    """`level:baseline`: plain depth-4 alpha-beta on the captured difference, no tuning."""
    from kiothi_board.ai.evaluation import BASELINE

    return AIPlayer(BASELINE_LEVEL, seed, weights=BASELINE, extensions=0, **kwargs)  # type: ignore[arg-type]


BASELINE_LEVEL = Level(0, "Baseline", 5.0, 4, 0.0)


def level(spec: int | str | Level) -> Level:
    """A level by number (1–6), name ("Club") or as given."""
    if isinstance(spec, Level):
        return spec
    if isinstance(spec, int) or spec.isdigit():
        n = int(spec)
        if n not in LEVELS:
            raise ValueError(f"bad level {spec!r}: expected 1…6")
        return LEVELS[n]
    try:
        return LEVEL_NAMES[spec.lower()]
    except KeyError:
        names = ", ".join(lv.name for lv in LEVELS.values())
        raise ValueError(f"bad level {spec!r}: expected 1…6 or one of {names}") from None


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
    `hint(position)` always plays its best (no deliberate mistakes). The clock is injected
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
        """Forget the search tables and restart the mistake sequence from the seed."""
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
            slip = mistakes and self.rng.random() < self.level.mistake
            if position.phase == "opening":
                return self._opening(position, stop, budget, depth_cap, slip)
            return self._move(position, stop, budget, depth_cap, on_iteration, slip)

    def _opening(
        self,
        position: Position,
        stop: threading.Event | None,
        budget: float,
        depth_cap: int,
        slip: bool,
    ) -> Hint:
        rng = self.rng

        def pick(ranked: list[tuple[Candidate, int]]) -> int:
            if slip and len(ranked) > 1:
                return rng.randrange(1, min(len(ranked), 4))
            return 0

        choice = choose_opening(
            position,
            self._searcher(position),
            budget=max(budget - SAFETY, 0.001),
            clock=self.clock,
            stop=stop,
            max_depth=min(max(depth_cap, 2), 8),
            pick=pick,
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

    def _move(
        self,
        position: Position,
        stop: threading.Event | None,
        budget: float,
        depth_cap: int,
        on_iteration: Callable[[Iteration], None] | None,
        slip: bool,
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
            soft_deadline=start + hard * 0.45,
            stop=stop,
            game_history=Counter(position.history),
            plies_left=None if limit is None else limit - position.ply,
            on_iteration=on_iteration,
        )
        me = position.to_move
        base = position.captured[me] - position.captured[me.other]
        move = res.move
        note = ""
        if slip:
            alt = self._slip(searcher, board, sown, side, res)
            if alt is not None and alt != move:
                move = alt
                note = " (a deliberate slip at this level)"
        return Hint(
            move,
            None,
            base + res.score / 100,
            tuple(pit_name(p) for p in (res.pv if move == res.move else [move])),
            res.depth,
            res.nodes,
            res.exact,
            explain_move(position, move, res) + note,
        )

    def _slip(
        self, searcher: Searcher, board: int, sown: int, side: int, res: SearchResult
    ) -> int | None:
        """A plausible wrong move: one of the 2nd–4th best by a 1-ply look."""
        evaluate = make_evaluator(self.weights)
        ranked = []
        for p, b, s, g in searcher.engine.children(board, sown, side):
            ranked.append((100 * g - evaluate(b, s, side ^ 1), p))
        ranked.sort(reverse=True)
        others = [p for _, p in ranked if p != res.move][:3]
        if not others:
            return None
        return others[self.rng.randrange(len(others))]


def explain_move(position: Position, move: int, res: SearchResult) -> str:
    """One or two sentences on why `move` is recommended, from the search's figures."""
    me = position.to_move
    board, sown, side = position.packed
    r = position.engine.sow(board, sown, side, move)
    gain = r[2] if r is not None else 0
    parts = [f"{me.letter} sows {pit_name(move)}"]
    if gain:
        parts.append(f"capturing {gain} seed{'s' if gain != 1 else ''} at once")
    base = position.captured[me] - position.captured[me.other]
    margin = base + res.score / 100
    if res.exact:
        parts.append(f"solved to the end: final margin {margin:+.0f} seeds")
    else:
        parts.append(f"search depth {res.depth} expects a margin of {margin:+.1f} seeds")
    if len(res.pv) > 1:
        parts.append("main line " + " ".join(pit_name(p) for p in res.pv[:8]))
    if len(res.root_scores) > 1:
        runner = res.root_scores[1]
        parts.append(
            f"next best {pit_name(runner[0])} (at most {(base * 100 + runner[1]) / 100:+.1f})"
        )
    return "; ".join(parts) + "."
