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
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kiothi_board.ai.evaluation import TUNED, Evaluator, Weights, make_evaluator
from kiothi_board.clock import Clock, SystemClock
from kiothi_board.rules import PITS, STANDARD, Variant, engine_for

INF = 1_000_000
SOLVED = 999  # TT depth of a subtree searched to its end
EXACT, LOWER, UPPER = 0, 1, 2
SIDE_SHIFT = 8 * PITS + PITS
SOWN_SHIFT = 8 * PITS
CHECK_EVERY = 1023  # nodes between clock/stop checks (a mask: every 1024 nodes)


class SearchAborted(Exception):
    """Raised inside the tree when the deadline passes or the stop event is set."""


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


class Searcher:
    """An alpha-beta searcher for one variant and one set of evaluation weights.

    Keeps its transposition table and history heuristic between calls (clear with
    `new_game`). Not thread-safe: one search at a time per searcher.
    """

    def __init__(
        self,
        variant: Variant = STANDARD,
        *,
        weights: Weights = TUNED,
        clock: Clock | None = None,
        tt_limit: int = 300_000,
        extensions: int = 2,
    ) -> None:
        self.variant = variant
        self.engine = engine_for(variant)
        self.weights = weights
        self.evaluate: Evaluator = make_evaluator(weights)
        self.clock: Clock = clock or SystemClock()
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.tt_limit = tt_limit
        self.extensions = extensions
        self.hist = [0] * PITS
        self.nodes = 0

    def new_game(self) -> None:
        """Forget the transposition table and history scores."""
        self.tt.clear()
        self.hist = [0] * PITS

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
        with the clock. `game_history` maps R11 keys to how often they occurred in the
        game. `plies_left` is the distance to a ply limit. `max_nodes` is an effort cap
        (checked with the clock, so it is exact to 1,024 nodes and independent of the
        machine): the tree aborts past it, and no iteration starts after 45 % of it.
        Raises ValueError when the side to move has no legal move (the game is over, R10).
        """
        eng = self.engine
        sow = eng.sow
        moves_of = eng.moves_of
        evaluate = self.evaluate
        clock = self.clock.now
        tt = self.tt
        if len(tt) > self.tt_limit:
            tt.clear()  # a crude bound on memory; the next iterations refill it quickly
        tt_get = tt.get
        hist = self.hist
        ext_max = self.extensions
        counters = [0, 0, 0]  # nodes, horizon leaves, repetition cut-offs
        reps: dict[int, int] = dict(game_history or {})
        reps_get = reps.get
        left0 = plies_left if plies_left is not None else 1 << 30
        start = clock()
        node_cap = max_nodes if max_nodes is not None else 1 << 62
        soft_nodes = node_cap * 45 // 100

        def check() -> None:
            if stop is not None and stop.is_set():
                raise SearchAborted
            if deadline is not None and clock() >= deadline:
                raise SearchAborted
            if counters[0] >= node_cap:
                raise SearchAborted

        def split(b: int, mover: int) -> int:
            """R11's split from the mover's view: own row minus the opponent's."""
            bs = b.to_bytes(PITS, "little")
            d = sum(bs[:10]) - sum(bs[10:])
            return 100 * (d if mover == 0 else -d)

        def node(
            board: int, sown: int, side: int, depth: int, alpha: int, beta: int, ext: int, left: int
        ) -> int:
            counters[0] += 1
            if not counters[0] & CHECK_EVERY:
                check()
            if depth <= 0:
                bs = board.to_bytes(PITS, "little")
                if side == 0:
                    if not any(bs[:10]):
                        return -100 * sum(bs)  # R10
                elif not any(bs[10:]):
                    return -100 * sum(bs)
                counters[1] += 1
                return evaluate(board, sown, side)
            key = board | sown << SOWN_SHIFT | side << SIDE_SHIFT
            entry = tt_get(key)
            ttmove = -1
            if entry is not None:
                edepth, eflag, escore, ttmove = entry
                if edepth >= depth and (
                    eflag == EXACT
                    or (eflag == LOWER and escore >= beta)
                    or (eflag == UPPER and escore <= alpha)
                ):
                    if edepth != SOLVED:
                        counters[1] += 1  # the stored value rests on a horizon too
                    return escore
            kids = []
            for p in moves_of(board, side):
                r = sow(board, sown, side, p)
                if r is not None:
                    kids.append((p, r[0], r[1], r[2]))
            if not kids:
                return -100 * sum(board.to_bytes(PITS, "little"))  # R10
            if len(kids) > 1:
                kids.sort(
                    key=lambda k: (k[0] == ttmove) * 10_000_000 + k[3] * 100_000 + hist[k[0]],
                    reverse=True,
                )
            h0 = counters[1]
            r0 = counters[2]
            other = side ^ 1
            best = -INF
            best_move = -1
            a = alpha
            first = True
            for p, b, s, g in kids:
                gain = 100 * g
                if left <= 1:
                    v = gain + split(b, side)  # ply limit (R11)
                else:
                    ck = b | s << SOWN_SHIFT | other << SIDE_SHIFT
                    c = reps_get(ck, 0)
                    if c >= rep_limit:
                        counters[2] += 1
                        v = gain + split(b, side)  # R11 repetition
                    else:
                        nd = depth - 1
                        ne = ext
                        if g and nd <= 0 and ext:
                            nd = 1  # a capture may leave a recapture pending: look one more ply
                            ne = ext - 1
                        reps[ck] = c + 1
                        try:
                            if first:
                                v = gain - node(
                                    b, s, other, nd, gain - beta, gain - a, ne, left - 1
                                )
                            else:
                                v = gain - node(
                                    b, s, other, nd, gain - a - 1, gain - a, ne, left - 1
                                )
                                if a < v < beta:
                                    v = gain - node(
                                        b, s, other, nd, gain - beta, gain - a, ne, left - 1
                                    )
                        finally:
                            if c:
                                reps[ck] = c
                            else:
                                del reps[ck]
                first = False
                if v > best:
                    best = v
                    best_move = p
                    if v > a:
                        a = v
                        if a >= beta:
                            hist[p] += depth * depth
                            break
            if counters[2] == r0:  # values that met a repetition depend on the path
                flag = LOWER if best >= beta else UPPER if best <= alpha else EXACT
                tt[key] = (SOLVED if counters[1] == h0 else depth, flag, best, best_move)
            return best

        root_kids = []
        for p in moves_of(board, side):
            r = sow(board, sown, side, p)
            if r is not None:
                root_kids.append((p, r[0], r[1], r[2]))
        if not root_kids:
            raise ValueError("no legal move: the game is over (R10)")
        root_key = position_key(board, sown, side)
        order = [k[0] for k in sorted(root_kids, key=lambda k: -k[3])]
        kid_of = {k[0]: k for k in root_kids}
        iterations: list[Iteration] = []
        best_move = order[0]
        best_score = 0
        best_depth = 0
        root_scores: list[tuple[int, int]] = []
        exact = False
        other = side ^ 1
        for depth in range(1, max_depth + 1):
            if depth > 1 and soft_deadline is not None and clock() >= soft_deadline:
                break
            if depth > 1 and counters[0] >= soft_nodes:
                break
            scores: dict[int, int] = {}
            alpha = -INF
            h0 = counters[1]
            r0 = counters[2]
            it_best = -1
            try:
                for i, p in enumerate(order):
                    _, b, s, g = kid_of[p]
                    gain = 100 * g
                    ck = position_key(b, s, other)
                    c = reps_get(ck, 0)
                    if left0 <= 1:
                        v = gain + split(b, side)
                    elif c >= rep_limit:
                        counters[2] += 1
                        v = gain + split(b, side)
                    else:
                        reps[ck] = c + 1
                        try:
                            if i == 0:
                                v = gain - node(
                                    b, s, other, depth - 1, -INF, INF, ext_max, left0 - 1
                                )
                            else:
                                v = gain - node(
                                    b,
                                    s,
                                    other,
                                    depth - 1,
                                    gain - alpha - 1,
                                    gain - alpha,
                                    ext_max,
                                    left0 - 1,
                                )
                                if v > alpha:
                                    v = gain - node(
                                        b,
                                        s,
                                        other,
                                        depth - 1,
                                        -INF,
                                        gain - alpha,
                                        ext_max,
                                        left0 - 1,
                                    )
                        finally:
                            if c:
                                reps[ck] = c
                            else:
                                del reps[ck]
                    scores[p] = v
                    if v > alpha:
                        alpha = v
                        it_best = p
            except SearchAborted:
                # Keep this iteration's choice only if it beat the previous best move,
                # which was searched first and so is fully proven at this depth.
                if it_best >= 0 and order[0] in scores:
                    best_move = it_best
                    best_score = scores[it_best]
                break
            best_move = it_best
            best_score = alpha
            best_depth = depth
            exact = counters[1] == h0 and (rep_limit >= 2 or counters[2] == r0)
            tt[root_key] = (SOLVED if exact else depth, EXACT, alpha, it_best)
            # Moves that failed low only have an upper bound; they keep their order below.
            order.sort(key=lambda q: -scores.get(q, -INF))
            root_scores = [(q, scores[q]) for q in order if q in scores]
            it = Iteration(
                depth,
                best_move,
                best_score,
                self._pv(board, sown, side, best_move, depth),
                counters[0],
                clock() - start,
                exact,
            )
            iterations.append(it)
            if on_iteration is not None:
                on_iteration(it)
            if exact or (len(root_kids) == 1 and depth >= 2 and soft_deadline is not None):
                break
        self.nodes = counters[0]
        pv = self._pv(board, sown, side, best_move, max(best_depth, 1))
        return SearchResult(
            best_move,
            best_score,
            best_depth,
            pv,
            counters[0],
            clock() - start,
            exact,
            iterations,
            root_scores,
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
            entry = self.tt.get(key)
            if entry is None or entry[3] < 0:
                break
            move = entry[3]
            r = self.engine.sow(board, sown, side, move)
            if r is None:
                break
            pv.append(move)
        return pv
