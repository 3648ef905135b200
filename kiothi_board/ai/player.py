"""`AIPlayer`: the searching levels (and a beginner's eyes); levels are in `levels.py`.

Its public face is `PlayerBase`'s (`thinking.py`): `choose(position, budget)`, `hint`,
`start_think` off the caller's thread. Build players by spec through `registry.py`.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from kiothi_board.ai.evaluation import TUNED, Weights
from kiothi_board.ai.explain import beginner_opening, beginner_reason, explain_move
from kiothi_board.ai.human import Eyes, choose_seen
from kiothi_board.ai.levels import BASELINE_LEVEL, LEVEL_NAMES, LEVELS, Level, level
from kiothi_board.ai.opening import choose_opening, explain_opening
from kiothi_board.ai.search import Iteration, Searcher, SearchResult
from kiothi_board.ai.thinking import ANY, Hint, MoveBudget, PlayerBase, Thinking
from kiothi_board.clock import Clock, SystemClock
from kiothi_board.native import Core
from kiothi_board.rules import PASS, Position, pit_name

__all__ = [
    "BASELINE_LEVEL",
    "LEVELS",
    "LEVEL_NAMES",
    "AIPlayer",
    "Hint",
    "Level",
    "MoveBudget",
    "PlayerBase",
    "Thinking",
    "level",
]

SAFETY = 0.012  # seconds kept back from the budget for the worker hand-off and GC
OPENING_NODES = 2  # an effort level's opening decision: this many moves' node cap …
# The clock's level tries to prove an ending with at most this many seeds on the board
# (R11 counted as written), for at most this share of its budget; 220 of 220 endings of up
# to 7 seeds were played perfectly, but only one was reported `exact` before.
EXACT_SEEDS = 10
PROOF_SHARE = 0.5
OPENING_FLOOR = 40_000  # … and at least this many: the 2-ply ranking of every candidate (≤ 28,349)
OPENING_CAP = 80_000  # … and at most this many: Expert's opening as before its node cap doubled


class AIPlayer(PlayerBase):
    """A computer opponent at one level, deterministic for a given seed and level.

    The clock is injected (a `Clock`; default the system clock); `movetime`/`max_depth`
    override the level's; `core` picks the native or the Python core (default: the
    process's; both play the same moves at levels 1–8).
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
        core: Core | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        self.level = level(level_spec)
        self.name = name or f"level:{self.level.number}"
        self.core = core
        self.extensions = extensions
        self.weights = weights
        self.clock: Clock = clock or SystemClock()
        self.movetime = self.level.movetime if movetime is None else movetime
        self.max_depth = self.level.max_depth if max_depth is None else max_depth
        self._searchers: dict[object, Searcher] = {}

    def new_game(self) -> None:
        """Forget the search tables and restart the seeded choices (moves by eye) afresh."""
        super().new_game()
        for s in self._searchers.values():
            s.new_game()

    def choose(self, position: Position, budget: MoveBudget = ANY) -> Hint:
        """The action this level plays (mistakes included unless `budget.advice`)."""
        if position.over:
            raise ValueError("the game is over: there is nothing to play")
        with self._lock:
            movetime = self.movetime if budget.movetime is None else budget.movetime
            depth_cap = self.max_depth if budget.max_depth is None else budget.max_depth
            nodes = self.level.nodes if budget.max_depth is None else None
            style = self.level.style
            lapse = self.level.lapse
            mistakes = not budget.advice
            if style is not None and mistakes and lapse < 1.0 and self.rng.random() >= lapse:
                style = None  # a searching level's lapses (a beginner's moment) are rare
            if not mistakes:
                style = None
                if self.level.beginner_hints:  # a hint at a low level: sound advice
                    depth_cap, nodes = max(depth_cap, 4), 20_000
            if position.phase == "opening":
                if style is not None:
                    return _pass_opening(position)
                return self._opening(position, budget.stop, movetime, depth_cap, nodes)
            if style is not None:
                return self._beginner(position, style)
            return self._move(
                position, budget.stop, movetime, depth_cap, nodes, budget.on_iteration
            )

    # ----------------------------------------------------------------- internals
    def _searcher(self, position: Position) -> Searcher:
        # The TT is keyed without the variant, so each variant gets its own searcher.
        variant = position.variant
        s = self._searchers.get(variant)
        if s is None:
            s = Searcher(
                variant,
                weights=self.weights,
                clock=self.clock,
                extensions=self.extensions,
                core=self.core,
            )
            self._searchers[variant] = s
        return s

    def _opening(
        self,
        position: Position,
        stop: threading.Event | None,
        budget: float,
        depth_cap: int,
        nodes: int | None,
    ) -> Hint:
        choice = choose_opening(
            position,
            self._searcher(position),
            budget=max(budget - SAFETY, 0.001),
            clock=self.clock,
            stop=stop,
            max_depth=min(max(depth_cap, 2), 8),
            # The effort levels decide the opening by nodes too (deterministic, quick).
            max_nodes=None
            if nodes is None
            else min(max(OPENING_NODES * nodes, OPENING_FLOOR), OPENING_CAP),
        )
        return Hint(
            None,
            choice.action,
            choice.score / 100,
            (str(choice.action),),
            choice.depth,
            choice.nodes,
            False,
            # A low level's hint says why in plain words; the others give the search's figures.
            beginner_opening(position, choice.action)
            if self.level.beginner_hints
            else explain_opening(choice, position.to_move),
        )

    def _beginner(self, position: Position, style: Eyes) -> Hint:
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
        history = Counter(position.history)
        plies_left = None if limit is None else limit - position.ply
        res = None
        if nodes is None and sum(position.board) <= EXACT_SEEDS:
            res = self._prove(position, stop, start + hard * PROOF_SHARE, on_iteration)
        if res is None:
            now = self.clock.now()  # after a proof that did not finish: the time left
            res = searcher.search(
                board,
                sown,
                side,
                max_depth=depth_cap,
                deadline=start + hard,
                # Effort levels stop on nodes; the clock is only a safety cap for them.
                soft_deadline=None if nodes is not None else now + (start + hard - now) * 0.45,
                stop=stop,
                game_history=history,
                plies_left=plies_left,
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

    def _prove(
        self,
        position: Position,
        stop: threading.Event | None,
        deadline: float,
        on_iteration: Callable[[Iteration], None] | None,
    ) -> SearchResult | None:
        """Solve a small ending under R11 as written (the third occurrence ends the game),
        or None when it does not finish by `deadline`: an `exact` hint is then a proof.

        The play search scores a second occurrence as R11's split (the side that likes
        it can repeat), which is sound for choosing but not a proof, so it seldom says
        `exact` in an ending; this search counts repetitions as the rules do."""
        board, sown, side = position.packed
        limit = position.variant.ply_limit
        res = self._searcher(position).search(
            board,
            sown,
            side,
            deadline=deadline,
            stop=stop,
            game_history=Counter(position.history),
            plies_left=None if limit is None else limit - position.ply,
            rep_limit=2,
            on_iteration=on_iteration,
        )
        return res if res.exact else None


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
