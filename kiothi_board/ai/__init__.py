"""The AI opponent: search, evaluation, levels, hints and the engine protocol (L1).

Imports only the standard library, `kiothi_board.rules`, the native core's loader and the
clock. Every player is built by its spec in one place (`registry.py`) and answers one
interface (`thinking.PlayerBase`):

    player = make_player("level:5", seed=7)   # or level_player(LevelChoice(5), seed=7)
    hint = player.choose(position)            # blocking; MoveBudget(...) to bound it
    thinking = player.start_think(position)   # returns at once; search on a worker thread
    thinking.add_done_callback(...)           # or poll thinking.done()
    thinking.stop() / thinking.cancel()       # move now / never mind
    hint = player.hint(position)              # best move, score, PV, explanation
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kiothi_board.ai.evaluation import BASELINE, TUNED, Weights, make_evaluator
    from kiothi_board.ai.levels import BASELINE_LEVEL, LEVELS, Level, LevelChoice, level
    from kiothi_board.ai.player import AIPlayer
    from kiothi_board.ai.registry import SPEC_HELP, level_player, make_player
    from kiothi_board.ai.search import Iteration, SearchAborted, Searcher, SearchResult
    from kiothi_board.ai.thinking import Hint, MoveBudget, PlayerBase, Thinking

# Loaded when first asked for (PEP 562): a reader of one light module (`ai/choice.py`, the
# config's level check) does not load the search, the evaluation and the rules' fast path.
_HOMES = {
    "evaluation": ("BASELINE", "TUNED", "Weights", "make_evaluator"),
    "levels": ("BASELINE_LEVEL", "LEVELS", "Level", "LevelChoice", "level"),
    "player": ("AIPlayer",),
    "registry": ("SPEC_HELP", "level_player", "make_player"),
    "search": ("Iteration", "SearchAborted", "Searcher", "SearchResult"),
    "thinking": ("Hint", "MoveBudget", "PlayerBase", "Thinking"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'kiothi_board.ai' has no attribute {name!r}")
    return getattr(importlib.import_module(f"kiothi_board.ai.{_HOME[name]}"), name)


__all__ = [
    "BASELINE",
    "BASELINE_LEVEL",
    "LEVELS",
    "SPEC_HELP",
    "TUNED",
    "AIPlayer",
    "Hint",
    "Iteration",
    "Level",
    "LevelChoice",
    "MoveBudget",
    "PlayerBase",
    "SearchAborted",
    "SearchResult",
    "Searcher",
    "Thinking",
    "Weights",
    "level",
    "level_player",
    "make_evaluator",
    "make_player",
]
