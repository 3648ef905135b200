"""The AI opponent: search, evaluation, levels, hints and the engine protocol (L1).

Imports only the standard library and `kiothi_board.rules`. The daemon's entry points:

    player = AIPlayer(5, seed=7)              # or AIPlayer("Strong", seed=7)
    thinking = player.start_think(position)   # returns at once; search on a worker thread
    thinking.add_done_callback(...)           # or poll thinking.done()
    thinking.stop() / thinking.cancel()       # move now / never mind
    hint = player.hint(position)              # blocking; best move, score, PV, explanation
"""

from __future__ import annotations

from kiothi_board.ai.evaluation import BASELINE, TUNED, Weights, make_evaluator
from kiothi_board.ai.player import (
    BASELINE_LEVEL,
    LEVELS,
    AIPlayer,
    Hint,
    Level,
    Thinking,
    baseline_player,
    level,
)
from kiothi_board.ai.search import Iteration, SearchAborted, Searcher, SearchResult

__all__ = [
    "BASELINE",
    "BASELINE_LEVEL",
    "LEVELS",
    "TUNED",
    "AIPlayer",
    "Hint",
    "Iteration",
    "Level",
    "SearchAborted",
    "SearchResult",
    "Searcher",
    "Thinking",
    "Weights",
    "baseline_player",
    "level",
    "make_evaluator",
]
