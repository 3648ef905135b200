"""Search: tactics, exactness against brute force, R11, determinism, deadlines."""

from __future__ import annotations

import random
from collections import Counter

from kiothi_board.ai import BASELINE, AIPlayer, Searcher
from kiothi_board.ai.evaluation import make_evaluator
from kiothi_board.rules import Position, Side, engine_for, pack, pack_flags

ENG = engine_for(Position.initial().variant)


def make(board: list[int], sown: list[int], captured: tuple[int, int], side: int = 0) -> Position:
    """A play-phase position from a board, the sown pit indices and the captures."""
    flags = tuple(i in sown for i in range(20))
    pos = Position(
        board=tuple(board),
        sown=flags,
        captured=captured,
        to_move=Side(side),
        phase="play",
        ply=10,
    )
    return Position.from_json(pos.to_json())


def test_finds_the_forced_capture() -> None:
    # S10 (12 seeds) goes round and lands in the empty S2, facing a sown N9 of 10 (R8.3).
    board = [0] * 20
    board[9] = 12
    board[4] = 1
    board[18] = 10
    board[12] = 2
    pos = make(board, [18, 12], (20, 15))
    for depth in (1, 2, 4):
        res = Searcher().search(*pos.packed, max_depth=depth)
        assert res.move == 9, depth


def minimax(board: int, sown: int, side: int, depth: int) -> int:
    """Plain minimax on the captured difference (BASELINE), no pruning, no tables."""
    kids = ENG.children(board, sown, side)
    if not kids:
        return -100 * sum(board.to_bytes(20, "little"))
    if depth == 0:
        return 0
    return max(100 * g - minimax(b, s, side ^ 1, depth - 1) for _, b, s, g in kids)


def random_positions(n: int, seed: int, plies: tuple[int, int] = (10, 60)) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position.initial().open("pass").open("pass")
        for _ in range(rng.randrange(*plies)):
            if pos.over:
                break
            pos = pos.play(rng.choice(pos.legal_moves()))
        if not pos.over:
            out.append(pos)
    return out


def test_alpha_beta_equals_minimax_and_avoids_blunders() -> None:
    blunders_avoided = 0
    for pos in random_positions(12, 5):
        board, sown, side = pos.packed
        s = Searcher(weights=BASELINE, extensions=0)
        # rep_limit=3 switches repetition scoring off: plain minimax knows none.
        res = s.search(board, sown, side, max_depth=3, rep_limit=3)
        assert res.score == minimax(board, sown, side, 3)
        greedy = max(ENG.children(board, sown, side), key=lambda k: k[3])
        greedy_value = 100 * greedy[3] - minimax(greedy[1], greedy[2], side ^ 1, 2)
        if greedy_value < res.score:
            blunders_avoided += 1
            assert res.move != greedy[0]
    assert blunders_avoided >= 1


def exact_value(board: int, sown: int, side: int, seen: Counter[int], depth: int = 0) -> int | None:
    """Brute force to the end under R10 and R11 (third occurrence); None if too deep."""
    if depth > 40:
        return None
    kids = ENG.children(board, sown, side)
    if not kids:
        return -100 * sum(board.to_bytes(20, "little"))
    best = None
    for _, b, s, g in kids:
        key = b | s << 160 | (side ^ 1) << 180
        seen[key] += 1
        if seen[key] >= 3:
            bs = b.to_bytes(20, "little")
            d = sum(bs[:10]) - sum(bs[10:])
            v: int | None = 100 * g + 100 * (d if side == 0 else -d)
        else:
            sub = exact_value(b, s, side ^ 1, seen, depth + 1)
            v = None if sub is None else 100 * g - sub
        seen[key] -= 1
        if v is None:
            return None
        best = v if best is None else max(best, v)
    return best


def test_exact_endgame_agrees_with_brute_force() -> None:
    rng = random.Random(11)
    checked = 0
    while checked < 15:
        board = [0] * 20
        for _ in range(rng.randrange(2, 5)):
            board[rng.randrange(20)] += 1
        if not any(board[:10]):
            continue
        sown = [i for i in range(20) if rng.random() < 0.6]
        b, s = pack(board), pack_flags([i in sown for i in range(20)])
        key = b | s << 160
        truth = exact_value(b, s, 0, Counter({key: 1}))
        if truth is None:
            continue
        res = Searcher(weights=BASELINE).search(
            b, s, 0, max_depth=60, rep_limit=2, game_history={key: 1}
        )
        assert res.exact
        assert res.score == truth, (board, sown)
        checked += 1


def test_r11_repetition_is_scored_as_the_split() -> None:
    # South's only move, S3 -> S4, is reversible (S3 already sown, no crossing).
    board = [0] * 20
    board[2] = 1
    board[15] = 3
    board[11] = 2
    pos = make(board, [2, 15, 11], (30, 24))
    b, s, side = pos.packed
    child = ENG.sow(b, s, 0, 2)
    assert child is not None and child[1] == s
    ckey = child[0] | child[1] << 160 | 1 << 180
    res = Searcher().search(b, s, side, max_depth=4, game_history={pos.key: 1, ckey: 2})
    assert res.score == 100 * (1 - 5)  # each side takes its own row (R11)
    free = Searcher().search(b, s, side, max_depth=4, game_history={pos.key: 1})
    assert free.score != res.score


def test_same_seed_same_choices() -> None:
    positions = random_positions(4, 9)
    for lv in (1, 2, 3):
        a = [AIPlayer(lv, seed=3, movetime=5.0).choose(p).action for p in positions]
        b = [AIPlayer(lv, seed=3, movetime=5.0).choose(p).action for p in positions]
        assert a == b


class FakeClock:
    """Advances a millisecond at every reading: a search 'takes' 1 ms per check."""

    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        self.t += 0.001
        return self.t

    def wall(self) -> float:
        return 1_767_225_600.0 + self.t


def test_deadline_respected_with_a_fake_clock() -> None:
    pos = random_positions(1, 21)[0]
    clock = FakeClock()
    player = AIPlayer(9, seed=1, clock=clock, movetime=0.05)
    start = clock.t
    hint = player.choose(pos)
    assert hint.move in pos.legal_moves()
    assert clock.t - start <= 0.05 + 0.005
    assert hint.depth >= 1


def test_material_evaluator_is_zero() -> None:
    assert make_evaluator(BASELINE)(123, 0, 0) == 0


def test_reused_tables_do_not_fake_a_solved_search() -> None:
    # Regression: TT values resting on a horizon once made whole subtrees "solved".
    for pos in random_positions(6, 17):
        board, sown, side = pos.packed
        shared = Searcher(weights=BASELINE, extensions=0)
        shared.search(board, sown, side, max_depth=3, rep_limit=3)
        again = shared.search(board, sown, side, max_depth=5, rep_limit=3)
        fresh = Searcher(weights=BASELINE, extensions=0).search(
            board, sown, side, max_depth=5, rep_limit=3
        )
        assert again.score == fresh.score == minimax(board, sown, side, 5)
        assert again.depth == 5


def test_a_node_cap_bounds_the_effort_and_repeats_exactly() -> None:
    pos = Position.initial().open("pass").open("pass").play("S6").play("N8")
    capped = [Searcher().search(*pos.packed, max_nodes=5_000) for _ in range(2)]
    more = Searcher().search(*pos.packed, max_nodes=40_000)
    a, b = capped
    assert (a.move, a.score, a.depth, a.nodes) == (b.move, b.score, b.depth, b.nodes)
    assert a.nodes <= 5_000 + 1_024 and a.depth >= 2
    assert more.nodes > a.nodes and more.depth > a.depth
