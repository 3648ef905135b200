"""AIPlayer: off-thread thinking, stop and cancel, hints, openings, levels."""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError

import pytest

from kiothi_board.ai import LEVELS, AIPlayer, level
from kiothi_board.ai.opening import candidates
from kiothi_board.clock import FakeClock
from kiothi_board.rules import Position


def midgame() -> Position:
    pos = Position.initial().open("pass").open("pass")
    for move in ("S6", "N6", "S8", "N9", "S10", "N7"):
        pos = pos.play(move)
    return pos


def test_levels_are_named_and_ordered() -> None:
    names = [lv.name for lv in LEVELS.values()]
    assert names == [
        "Beginner",
        "Casual",
        "Club",
        "Skilled",
        "Strong",
        "Advanced",
        "Veteran",
        "Expert",
        "Master",
    ]
    assert level("club").number == 3 and level("9").name == "Master"
    # Levels 1–8 are defined by effort (a beginner's eyes, or depth and nodes); 9 by time.
    effort = [lv for n, lv in LEVELS.items() if n <= 8]
    assert all(lv.style is not None or lv.nodes is not None for lv in effort)
    assert [lv.max_depth for lv in effort] == sorted(lv.max_depth for lv in effort)
    assert LEVELS[9].nodes is None and LEVELS[9].style is None
    assert all(lv.blurb for lv in LEVELS.values())
    with pytest.raises(ValueError, match="expected 1…9"):
        level(10)


def test_start_think_returns_at_once_and_stop_gives_a_move() -> None:
    player = AIPlayer(9, seed=1, movetime=30.0)
    pos = midgame()
    started = threading.Event()
    thinking = player.start_think(pos, on_iteration=lambda it: started.set())
    assert not thinking.done()
    assert started.wait(30)
    thinking.stop()
    hint = thinking.result(timeout=30)
    assert hint.move in pos.legal_moves()
    player.close()


def test_cancel_discards_the_result_and_ends_the_thread() -> None:
    player = AIPlayer(9, seed=1, movetime=30.0)
    thinking = player.start_think(midgame())
    assert thinking.cancel()
    with pytest.raises(CancelledError):
        thinking.result(timeout=30)
    thinking.join(5)
    assert thinking.done()
    player.close()
    player.close()  # idempotent


def test_done_callback_runs() -> None:
    got = threading.Event()
    with AIPlayer(2, seed=1) as player:
        thinking = player.start_think(midgame())
        thinking.add_done_callback(lambda t: got.set())
        assert got.wait(30)
        assert thinking.result().move is not None


def test_hint_explains_a_move() -> None:
    pos = midgame()
    hint = AIPlayer(5, seed=0, movetime=0.1).hint(pos)
    assert hint.move in pos.legal_moves()
    assert hint.pv[0] == hint.action
    assert hint.action in hint.explanation
    assert "margin" in hint.explanation


def test_opening_hint_is_searched_and_explained() -> None:
    pos = Position.initial()
    hint = AIPlayer(5, seed=0, movetime=0.2).hint(pos)
    assert hint.opening is not None and hint.move is None
    texts = {str(c.action) for c in candidates(pos)}
    assert hint.action in texts
    assert "pass" in hint.explanation or "against passing" in hint.explanation
    nxt = pos.open(hint.opening)
    north = AIPlayer(3, seed=0, movetime=0.1).choose(nxt)
    assert north.opening is not None
    assert nxt.open(north.opening).phase == "play"


def test_candidates_are_legal_and_distinct() -> None:
    pos = Position.initial()
    cands = candidates(pos)
    assert str(cands[0].action) == "pass"
    boards = {pos.open(c.action).board for c in cands}
    assert len(boards) == len(cands) > 50


class CrawlingClock(FakeClock):
    """A clock that moves 0.1 ms each time it is read: a very slow machine."""

    def now(self) -> float:
        self.advance(1e-4)
        return super().now()


def test_effort_levels_play_the_same_under_any_clock() -> None:
    """A level defined by nodes gives the same move however slow the clock runs."""
    pos = midgame()
    slow = AIPlayer(3, seed=0, clock=CrawlingClock()).choose(pos)
    fast = AIPlayer(3, seed=0).choose(pos)
    assert (slow.action, slow.nodes, slow.depth) == (fast.action, fast.nodes, fast.depth)


def test_searching_levels_have_seeded_lapses() -> None:
    """Level 5 now and then plays a move by eye instead of its search, the same for a seed."""
    pos = midgame().play("S8")  # by eye, level 5 misjudges this position
    runs = [[AIPlayer(5, seed=s).choose(pos).action for s in range(40)] for _ in range(2)]
    assert runs[0] == runs[1]
    searched = AIPlayer(5, seed=0).hint(pos).action  # a hint never lapses
    assert len(set(runs[0])) > 1
    assert max(set(runs[0]), key=runs[0].count) == searched
