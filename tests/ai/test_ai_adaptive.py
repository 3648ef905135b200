"""The adaptive visitor level: its adjustment on scripted positions (no long matches)."""

from __future__ import annotations

from kiothi_board.ai.adaptive import (
    AHEAD,
    ENDGAME_RUNG,
    ENDGAME_SEEDS,
    RUNGS,
    START,
    STRONG_FLOOR,
    TARGET,
    Adjuster,
    SteerPlayer,
    _lead_after,
    lead,
    opponent_move,
)
from kiothi_board.ai.novice import NovicePlayer
from kiothi_board.ai.registry import make_player
from kiothi_board.clock import FakeClock
from kiothi_board.rules import Position, Side

T = True


def position(captured: tuple[int, int], to_move: Side = Side.N) -> Position:
    """A mid-game position with 30 seeds on the board, 15 in each row."""
    board = (0, 0, 2, 3, 1, 0, 4, 2, 1, 2, 1, 2, 0, 3, 2, 1, 0, 4, 2, 0)
    assert sum(captured) + sum(board) == 60
    return Position(board=board, sown=(T,) * 20, captured=captured, to_move=to_move, phase="play")


def test_lead_counts_captures_and_half_the_rows() -> None:
    pos = position((20, 10))
    assert sum(pos.board[:10]) == 15 and sum(pos.board[10:]) == 15
    assert lead(pos, Side.S) == 10 and lead(pos, Side.N) == -10
    lopsided = Position(board=(4,) * 5 + (0,) * 15, sown=(T,) * 20, captured=(20, 20), phase="play")
    assert lead(lopsided, Side.S) == 10


def test_ahead_it_eases_off_behind_it_tightens_up() -> None:
    adj = Adjuster()
    assert adj.rung == START
    assert adj.step(6.0) == START - 1  # ahead: one rung down
    assert adj.step(2.0) == START - 1  # close: stays
    assert adj.step(-1.0) == START - 1
    assert adj.step(-3.0) == START  # behind: one up
    assert adj.step(-9.0) == START + 2  # far behind: two up
    assert adj.step(9.0) == START  # far ahead: two down
    for _ in range(10):
        adj.step(-20.0)
    assert adj.rung == len(RUNGS) - 1  # level 5 at most
    for _ in range(20):
        adj.step(20.0)
    assert adj.rung == 0


def test_an_opponent_who_plays_well_is_no_novice() -> None:
    strong, weak = Adjuster(), Adjuster()
    for _ in range(8):
        strong.observe(best_capture=4, taken=4, left_to_us=0)  # takes the most, leaves nothing
        weak.observe(best_capture=4, taken=0, left_to_us=6)  # misses it and gives 6 away
        weak.observe(best_capture=0, taken=0, left_to_us=0)  # quiet: says nothing
    assert strong.floor == STRONG_FLOOR and weak.floor == 0
    assert weak.seen == 8
    for _ in range(10):
        strong.step(20.0)
        weak.step(20.0)
    assert strong.rung == STRONG_FLOOR and weak.rung == 0


def test_steer_brings_the_lead_nearest_to_the_target() -> None:
    pos = position((10, 20))  # North is 10 ahead: steer gives seeds back
    player = SteerPlayer(seed=0)
    hint = player.choose(pos)
    assert hint.move is not None
    offs = {p: abs(_lead_after(pos.play(p), Side.N) - TARGET) for p in pos.legal_moves()}
    assert offs[hint.move] == min(offs.values())
    assert len(set(offs.values())) > 1  # the choice mattered


def test_the_opponents_move_is_read_from_consecutive_positions() -> None:
    before = position((15, 15), Side.S)
    board, sown, side = before.packed
    gains = {k[0]: k[3] for k in before.engine.children(board, sown, side)}
    best = max(gains, key=lambda p: gains[p])
    now = before.play(best)
    seen = opponent_move(before, now)
    assert seen is not None
    assert seen[0] == seen[1] == gains[best]
    assert opponent_move(before, position((15, 15), Side.N)) is None  # not one move apart


def test_the_player_steps_down_when_far_ahead_and_up_when_behind() -> None:
    ahead = make_player("level:adaptive", seed=1)
    hint = ahead.choose(position((14, 16)))  # North leads by 2: close, no change
    assert ahead.adjuster.rung == START and hint.move is not None
    ahead.new_game()
    ahead.choose(position((10, 20)))  # North leads by 10: far ahead
    assert ahead.adjuster.rung == START - 2
    assert ahead.last_rung == RUNGS[START - 2]
    assert "adaptive" not in hint.explanation, "a player never reads the internal rung"
    behind = make_player("level:adaptive", seed=1)
    hint = behind.choose(position((24, 6)))  # North trails by 18
    assert behind.adjuster.rung == START + 2
    assert behind.last_rung == "level:3" and "level:" not in hint.explanation
    behind.new_game()
    assert behind.adjuster.rung == START and behind.adjuster.history == []


def test_it_watches_the_visitor_between_its_moves() -> None:
    player = make_player("level:adaptive", seed=2)
    visitor = NovicePlayer("greedy", 2)
    pos = position((15, 15), Side.S)
    for _ in range(6):
        if pos.over:
            break
        pos = pos.play(visitor.choose(pos).move)  # type: ignore[arg-type]
        if pos.over:
            break
        pos = pos.play(player.choose(pos).move)  # type: ignore[arg-type]
    adj = player.adjuster
    assert len(adj.history) >= 3
    assert adj.seen >= 1  # the visitor's moves were read and judged


def test_same_seed_same_game() -> None:
    def game(seed: int) -> list[str]:
        # A clock that stands still: the safety caps never cut a search short under load.
        a, b = (
            make_player("level:adaptive", seed=seed, clock=FakeClock()),
            NovicePlayer("greedy-0.25", seed),
        )
        pos = Position.initial()
        out = []
        for i in range(40):
            if pos.over:
                break
            hint = (a if i % 2 == 0 else b).choose(pos)
            out.append(hint.action)
            pos = pos.apply(hint.action)
        return out

    assert game(4) == game(4)


def test_in_the_endgame_it_plays_at_least_level_5_unless_well_ahead() -> None:
    assert RUNGS[ENDGAME_RUNG] == "level:5"
    adj = Adjuster()
    assert adj.step(0.0, seeds_left=ENDGAME_SEEDS + 1) == START  # not yet the endgame
    assert adj.step(0.0, seeds_left=ENDGAME_SEEDS) == ENDGAME_RUNG  # the endgame, level
    assert adj.rung == START  # for that move only: the lead-driven rung is unchanged
    assert adj.step(AHEAD, seeds_left=4) == ENDGAME_RUNG  # a small lead: still careful
    assert adj.step(AHEAD + 1, seeds_left=4) == START - 1  # well ahead: it eases off
    assert adj.history == [START, ENDGAME_RUNG, ENDGAME_RUNG, START - 1]


def test_the_player_reads_the_seeds_left_for_the_endgame_rule() -> None:
    board = (0, 0, 2, 0, 1, 0, 0, 2, 1, 0, 1, 0, 0, 3, 0, 1, 0, 0, 2, 0)  # 13 seeds left
    pos = Position(board=board, sown=(T,) * 20, captured=(24, 23), to_move=Side.N, phase="play")
    player = make_player("level:adaptive", seed=3, clock=FakeClock())
    hint = player.choose(pos)
    assert player.adjuster.history == [ENDGAME_RUNG]
    assert player.last_rung == "level:5" and "level:" not in hint.explanation
