"""Iterative-deepening PVS alpha-beta on the packed fast path of the rules engine.

The value of a node is the capture difference still to come for the side to move (in
centi-seeds) plus the static evaluation at the horizon, so transposition-table entries do
not depend on the captures made before the node. Exact terminal values:

- R10: a side with no move left loses every seed on the board to the opponent;
- R11: a repetition ends the game with each side taking its own row. Inside the tree the
  *second* occurrence of a position (on the path or in the game) is scored as that split,
  because the side that likes the split can repeat again; in exact mode (`rep_limit=2`)
  only the real third occurrence ends the game;
- the ply limit (R11, tournaments) ends the game with the same split.

A subtree that never met the horizon is stored with depth `SOLVED`: such entries are exact
whatever depth is asked later, and when a whole iteration meets no horizon the position is
solved (few seeds left) and iterative deepening stops.

The root and iterative deepening are here, shared by both cores; below the root a `Tree`
searches (`tree.py`: the Python core's, or the native core's in C), so a search returns the
same move, score and node count on either core.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kiothi_board.ai.evaluation import TUNED, Evaluator, Weights
from kiothi_board.ai.tree import (
    EXACT,
    INF,
    SOLVED,
    PyTree,
    SearchAborted,
    Tree,
    native_tree,
)
from kiothi_board.clock import Clock, SystemClock
from kiothi_board.native import Core
from kiothi_board.rules import PITS, STANDARD, Variant, engine_for
from kiothi_board.rules.fast import SIDE_SHIFT, SOWN_SHIFT

__all__ = [
    "INF",
    "SOLVED",
    "Iteration",
    "SearchAborted",
    "SearchResult",
    "Searcher",
    "position_key",
]


@dataclass(slots=True)
class Iteration:
    """What one completed (or interrupted) iteration of iterative deepening found."""

    depth: int
    move: int
    score: int
    pv: list[int]
    nodes: int
    elapsed: float
    exact: bool = False


@dataclass(slots=True)
class SearchResult:
    """The outcome of a search: best move, its score and how it was found.

    `score` is in centi-seeds for the side to move, counting only captures still to come
    (add the current capture difference for the predicted final margin). `root_scores`
    holds the last completed iteration's score of each root move it proved (best first).
    """

    move: int
    score: int
    depth: int
    pv: list[int]
    nodes: int
    elapsed: float
    exact: bool
    iterations: list[Iteration] = field(default_factory=list)
    root_scores: list[tuple[int, int]] = field(default_factory=list)


def position_key(board: int, sown: int, side: int) -> int:
    """The R11 repetition key, identical to `Position.key`."""
    return board | sown << SOWN_SHIFT | side << SIDE_SHIFT


def _split(b: int, mover: int) -> int:
    """R11's split from the mover's view: own row minus the opponent's (centi-seeds)."""
    bs = b.to_bytes(PITS, "little")
    d = sum(bs[:10]) - sum(bs[10:])
    return 100 * (d if mover == 0 else -d)


class Searcher:
    """An alpha-beta searcher for one variant and one set of evaluation weights.

    Keeps its transposition table and history heuristic between calls (clear with
    `new_game`). Not thread-safe: one search at a time per searcher. `core` picks the
    native or the Python core (default: the process's, see `kiothi_board.native`).
    """

    def __init__(
        self,
        variant: Variant = STANDARD,
        *,
        weights: Weights = TUNED,
        clock: Clock | None = None,
        tt_limit: int = 300_000,
        extensions: int = 2,
        core: Core | None = None,
    ) -> None:
        self.variant = variant
        self.engine = engine_for(variant, core)
        self.core: Core = self.engine.core
        self.weights = weights
        self.tree: Tree = (
            native_tree(self.engine, weights)
            if self.core == "native"
            else PyTree(self.engine, weights)
        )
        self.evaluate: Evaluator = self.tree.evaluate
        self.clock: Clock = clock or SystemClock()
        self.tt_limit = tt_limit
        self.extensions = extensions
        self.nodes = 0

    def new_game(self) -> None:
        """Forget the transposition table and history scores."""
        self.tree.new_game()

    def search(
        self,
        board: int,
        sown: int,
        side: int,
        *,
        max_depth: int = 64,
        deadline: float | None = None,
        soft_deadline: float | None = None,
        stop: threading.Event | None = None,
        game_history: Mapping[int, int] | None = None,
        plies_left: int | None = None,
        rep_limit: int = 1,
        on_iteration: Callable[[Iteration], None] | None = None,
        max_nodes: int | None = None,
    ) -> SearchResult:
        """Search the position `(board, sown, side)` and return the best move found.

        `deadline` (on this searcher's clock) aborts the tree; `soft_deadline` stops
        before starting an iteration that would probably not finish. `stop` is checked
        before each iteration after the first and with the clock. `game_history` maps R11 keys to
        how often they occurred in the game. `plies_left` is the distance to a ply limit.
        `max_nodes` is an effort cap (checked with the clock, so it is exact to 1,024
        nodes and independent of the machine): the tree aborts past it, and no iteration
        starts after 45 % of it. Raises ValueError when the side to move has no legal
        move (the game is over, R10).
        """
        root_kids = self.engine.children(board, sown, side)
        if not root_kids:
            raise ValueError("no legal move: the game is over (R10)")
        tree = self.tree
        if tree.tt_len() > self.tt_limit:
            tree.tt_clear()  # a crude bound on memory; the next iterations refill it quickly
        clock = self.clock.now
        node_cap = max_nodes if max_nodes is not None else 1 << 62
        tree.begin(game_history, rep_limit, stop, clock, deadline, node_cap)
        start = clock()
        run = _Root(self, tree, board, sown, side, root_kids, rep_limit, plies_left)
        soft_nodes = node_cap * 45 // 100
        for depth in range(1, max_depth + 1):
            if depth > 1 and stop is not None and stop.is_set():
                break  # asked to stop: answer now, without the first 1,024 nodes' wait
            if depth > 1 and soft_deadline is not None and clock() >= soft_deadline:
                break
            if depth > 1 and tree.nodes >= soft_nodes:
                break
            if not run.iterate(depth):
                break
            it = Iteration(
                depth,
                run.best_move,
                run.best_score,
                self._pv(board, sown, side, run.best_move, depth),
                tree.nodes,
                clock() - start,
                run.exact,
            )
            run.iterations.append(it)
            if on_iteration is not None:
                on_iteration(it)
            if run.exact or (len(root_kids) == 1 and depth >= 2 and soft_deadline is not None):
                break
        self.nodes = tree.nodes
        pv = self._pv(board, sown, side, run.best_move, max(run.best_depth, 1))
        return SearchResult(
            run.best_move,
            run.best_score,
            run.best_depth,
            pv,
            tree.nodes,
            clock() - start,
            run.exact,
            run.iterations,
            run.root_scores,
        )

    def _pv(self, board: int, sown: int, side: int, first: int, depth: int) -> list[int]:
        """The principal variation: the root move, then best moves from the TT."""
        pv = [first]
        seen = {position_key(board, sown, side)}
        r = self.engine.sow(board, sown, side, first)
        while r is not None and len(pv) < max(depth, 1) + 4:
            board, sown, _ = r
            side ^= 1
            key = position_key(board, sown, side)
            if key in seen:
                break
            seen.add(key)
            entry = self.tree.tt_get(board, sown, side)
            if entry is None or entry[3] < 0:
                break
            move = entry[3]
            r = self.engine.sow(board, sown, side, move)
            if r is None:
                break
            pv.append(move)
        return pv


class _Root:
    """The root of one search: its move order and what the iterations found so far."""

    def __init__(
        self,
        searcher: Searcher,
        tree: Tree,
        board: int,
        sown: int,
        side: int,
        kids: list[tuple[int, int, int, int]],
        rep_limit: int,
        plies_left: int | None,
    ) -> None:
        self.tree = tree
        self.board, self.sown, self.side = board, sown, side
        self.ext_max = searcher.extensions
        self.rep_limit = rep_limit
        self.left0 = plies_left if plies_left is not None else 1 << 30
        self.order = [k[0] for k in sorted(kids, key=lambda k: -k[3])]
        self.kid_of = {k[0]: k for k in kids}
        self.iterations: list[Iteration] = []
        self.best_move = self.order[0]
        self.best_score = 0
        self.best_depth = 0
        self.root_scores: list[tuple[int, int]] = []
        self.exact = False

    def iterate(self, depth: int) -> bool:
        """Search every root move to `depth`; False when the search was aborted."""
        tree, side, other = self.tree, self.side, self.side ^ 1
        scores: dict[int, int] = {}
        alpha = -INF
        h0, r0 = tree.leaves, tree.repcuts
        it_best = -1
        try:
            for i, p in enumerate(self.order):
                _, b, s, g = self.kid_of[p]
                gain = 100 * g
                c = tree.reps(b, s, other)
                if self.left0 <= 1:
                    v = gain + _split(b, side)
                elif c >= self.rep_limit:
                    tree.repcut()
                    v = gain + _split(b, side)
                else:
                    tree.set_reps(b, s, other, c + 1)
                    try:
                        v = self._child(b, s, depth, gain, alpha, first=i == 0)
                    finally:
                        tree.set_reps(b, s, other, c)
                scores[p] = v
                if v > alpha:
                    alpha = v
                    it_best = p
        except SearchAborted:
            # Keep this iteration's choice only if it beat the previous best move,
            # which was searched first and so is fully proven at this depth.
            if it_best >= 0 and self.order[0] in scores:
                self.best_move = it_best
                self.best_score = scores[it_best]
            return False
        self.best_move = it_best
        self.best_score = alpha
        self.best_depth = depth
        self.exact = tree.leaves == h0 and (self.rep_limit >= 2 or tree.repcuts == r0)
        tree.tt_store(
            self.board, self.sown, side, SOLVED if self.exact else depth, EXACT, alpha, it_best
        )
        # Moves that failed low only have an upper bound; they keep their order below.
        self.order.sort(key=lambda q: -scores.get(q, -INF))
        self.root_scores = [(q, scores[q]) for q in self.order if q in scores]
        return True

    def _child(self, b: int, s: int, depth: int, gain: int, alpha: int, *, first: bool) -> int:
        """A root move's value: a full window for the first, a null window then a re-search."""
        node, other, ext, left = self.tree.node, self.side ^ 1, self.ext_max, self.left0 - 1
        if first:
            return gain - node(b, s, other, depth - 1, -INF, INF, ext, left)
        v = gain - node(b, s, other, depth - 1, gain - alpha - 1, gain - alpha, ext, left)
        if v > alpha:
            v = gain - node(b, s, other, depth - 1, -INF, gain - alpha, ext, left)
        return v
