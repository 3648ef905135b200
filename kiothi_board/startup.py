"""Which game the daemon opens with: the saved one, a demo, or a new board's tutorial.

- `--autoplay` (an unattended demo) starts its own game instead of playing on a visitor's
  saved one (which is stored as abandoned, R13); after a crash it resumes its own demo.
  Its games are those begun after the store id kept under `DEMO_AFTER` in the settings,
  written before the demo's first game so that no kill can leave the mark behind the game.
- Otherwise the saved game is resumed; with none, a board that has never held a game and
  is set up as the tutorial plays (the defaults: against the AI, step pace, standard rules)
  opens with the tutorial, else a new game with the configured settings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kiothi_board.board import Board
from kiothi_board.store.base import GameStore

__all__ = ["DEMO_AFTER", "open_game"]

DEMO_AFTER = "autoplay_after"
"""Settings key: the demo's games are those with a larger store id."""


def open_game(
    controller: Board,
    store: GameStore,
    *,
    tutorial_fits: bool,
    autoplay: bool,
    new_game: Callable[[], int],
) -> None:
    """Open the right game for a daemon starting now (see the module's docstring)."""
    state = controller.state()
    settings: dict[str, Any] = store.load_settings()
    if autoplay:
        after = settings.get(DEMO_AFTER)
        current = state["game_id"]
        if state["stage"] != "none" and isinstance(after, int) and (current or 0) > after:
            return  # the demo's own game, resumed after a crash or a restart
        newest = store.list_games(1)
        settings[DEMO_AFTER] = int(newest[0]["id"]) if newest else 0
        store.save_settings(settings)
        new_game()  # a visitor's unfinished game is stored as abandoned first
        return
    if DEMO_AFTER in settings:  # people play again: a later demo must not take their game
        del settings[DEMO_AFTER]
        store.save_settings(settings)
    if state["stage"] != "none":
        return
    if tutorial_fits and not store.list_games(1):
        controller.call("tutorial")
    else:
        new_game()
