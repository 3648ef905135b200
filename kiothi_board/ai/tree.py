"""The search's inner loop on the Python core: `PyTree`, one negamax PVS node at a time.

`search.Searcher` runs iterative deepening and the root; a tree holds what a search keeps
between nodes (the transposition table, the history heuristic, the repetition counts of
the game and the path, the counters) and searches below the root. The native core's
`Tree` (kiothi_board/native/tree.c) is the same loop in C, branch for branch: both visit
the same nodes in the same order and store the same entries, so a search returns the same
move, score and node count on either core (tests/ai/test_native_search.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Protocol

from kiothi_board.ai.evaluation import Evaluator, Weights, make_evaluator
from kiothi_board.rules import PITS
from kiothi_board.rules.fast import SIDE_SHIFT, SOWN_SHIFT, Engine

INF = 1_000_000
SOLVED = 999  # TT depth of a subtree searched to its end
EXACT, LOWER, UPPER = 0, 1, 2
CHECK_EVERY = 1023  # nodes between clock/stop checks (a mask: every 1024 nodes)

TTEntry = tuple[int, int, int, int]  # depth, bound, score, move


class SearchAborted(Exception):
    """Raised inside the tree when the deadline passes, the stop event is set or the node
    cap is reached."""


class Tree(Protocol):
    """The inner loop of either core (see the module docstring)."""

    @property
    def nodes(self) -> int:
        """Nodes visited since `begin`."""
        ...

    @property
    def leaves(self) -> int:
        """Horizon values met since `begin` (a subtree without any is solved)."""
        ...

    @property
    def repcuts(self) -> int:
        """Repetition cut-offs since `begin` (values that met one depend on the path)."""
        ...

    def begin(
        self,
        game_history: Mapping[int, int] | None,
        rep_limit: int,
        stop: threading.Event | None,
        clock: Callable[[], float],
        deadline: float | None,
        node_cap: int,
    ) -> None:
        """Start a search: counters to zero, repetition counts from the game's."""
        ...

    def node(
        self,
        board: int,
        sown: int,
        side: int,
        depth: int,
        alpha: int,
        beta: int,
        ext: int,
        left: int,
    ) -> int:
        """The value of a position for its side to move; raises SearchAborted."""
        ...

    def reps(self, board: int, sown: int, side: int) -> int:
        """How often the position occurred in the game and on the current path."""
        ...

    def set_reps(self, board: int, sown: int, side: int, count: int) -> None:
        """Set that count (the root pushes and pops its children)."""
        ...

    def repcut(self) -> None:
        """Count a repetition cut-off made at the root."""
        ...

    def tt_get(self, board: int, sown: int, side: int) -> TTEntry | None:
        """The transposition-table entry of a position."""
        ...

    def tt_store(
        self, board: int, sown: int, side: int, depth: int, flag: int, score: int, move: int
    ) -> None:
        """Store an entry (the root's)."""
        ...

    def tt_len(self) -> int:
        """Entries in the table."""
        ...

    def tt_clear(self) -> None:
        """Empty the table."""
        ...

    def new_game(self) -> None:
        """Forget the table and the history heuristic."""
        ...

    def evaluate(self, board: int, sown: int, side: int) -> int:
        """The static evaluation, centi-seeds for the side to move."""
        ...


def native_tree(engine: Engine, weights: Weights) -> Tree:
    """The native core's tree for an engine of the native core."""
    from kiothi_board import native

    ext = native.extension()
    assert ext is not None and engine.core == "native"
    values = (
        weights.row,
        weights.safe,
        weights.mobility,
        weights.last_pit,
        weights.chain,
        weights.pile,
        weights.pile_size,
        weights.tempo,
    )
    tree: Tree = ext.CoreTree(engine.rules, values, SearchAborted)  # type: ignore[attr-defined]
    return tree


class PyTree:
    """The Python core's tree: `node` is a closure built by `begin`, its tables bound as
    cell constants (the hot loop of the Python path)."""

    def __init__(self, engine: Engine, weights: Weights) -> None:
        self.engine = engine
        self.evaluate: Evaluator = make_evaluator(weights)
        self.tt: dict[int, TTEntry] = {}
        self.hist = [0] * PITS
        self.counters = [0, 0, 0]  # nodes, horizon leaves, repetition cut-offs
        self.rep: dict[int, int] = {}
        self.node: Callable[[int, int, int, int, int, int, int, int], int] = self._unready

    @staticmethod
    def _unready(*args: int) -> int:
        raise RuntimeError("PyTree.node before begin()")

    @property
    def nodes(self) -> int:
        """Nodes visited since `begin`."""
        return self.counters[0]

    @property
    def leaves(self) -> int:
        """Horizon values met since `begin`."""
        return self.counters[1]

    @property
    def repcuts(self) -> int:
        """Repetition cut-offs since `begin`."""
        return self.counters[2]

    def reps(self, board: int, sown: int, side: int) -> int:
        """How often the position occurred in the game and on the current path."""
        return self.rep.get(board | sown << SOWN_SHIFT | side << SIDE_SHIFT, 0)

    def set_reps(self, board: int, sown: int, side: int, count: int) -> None:
        """Set that count; 0 forgets the position."""
        key = board | sown << SOWN_SHIFT | side << SIDE_SHIFT
        if count:
            self.rep[key] = count
        else:
            self.rep.pop(key, None)

    def repcut(self) -> None:
        """Count a repetition cut-off made at the root."""
        self.counters[2] += 1

    def tt_get(self, board: int, sown: int, side: int) -> TTEntry | None:
        """The transposition-table entry of a position."""
        return self.tt.get(board | sown << SOWN_SHIFT | side << SIDE_SHIFT)

    def tt_store(
        self, board: int, sown: int, side: int, depth: int, flag: int, score: int, move: int
    ) -> None:
        """Store an entry."""
        self.tt[board | sown << SOWN_SHIFT | side << SIDE_SHIFT] = (depth, flag, score, move)

    def tt_len(self) -> int:
        """Entries in the table."""
        return len(self.tt)

    def tt_clear(self) -> None:
        """Empty the table."""
        self.tt.clear()

    def new_game(self) -> None:
        """Forget the table and the history heuristic."""
        self.tt.clear()
        self.hist[:] = [0] * PITS

    def begin(
        self,
        game_history: Mapping[int, int] | None,
        rep_limit: int,
        stop: threading.Event | None,
        clock: Callable[[], float],
        deadline: float | None,
        node_cap: int,
    ) -> None:
        """Start a search: counters to zero, repetition counts from the game's."""
        self.counters = [0, 0, 0]
        self.rep = dict(game_history or {})
        self.node = _make_node(self, rep_limit, stop, clock, deadline, node_cap)


def _make_node(
    tree: PyTree,
    rep_limit: int,
    stop: threading.Event | None,
    clock: Callable[[], float],
    deadline: float | None,
    node_cap: int,
) -> Callable[[int, int, int, int, int, int, int, int], int]:
    """The recursive node function of one search (the native core's `kc_node`)."""
    sow = tree.engine.sow
    moves_of = tree.engine.moves_of
    evaluate = tree.evaluate
    tt = tree.tt
    tt_get = tt.get
    hist = tree.hist
    counters = tree.counters
    reps = tree.rep
    reps_get = reps.get

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
                            v = gain - node(b, s, other, nd, gain - beta, gain - a, ne, left - 1)
                        else:
                            v = gain - node(b, s, other, nd, gain - a - 1, gain - a, ne, left - 1)
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

    return node
