"""The simulator's screen: the guide's instruction, what went wrong, restore targets."""

from __future__ import annotations

import re

from kiothi_board.sim import render_board

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _plain(text: str) -> str:
    return ANSI.sub("", text)


def test_screen_shows_instruction_message_and_restore_marks() -> None:
    frame = [[(0, 0, 0)] * 16 for _ in range(20)]
    board = [0] * 20
    board[0] = 3
    state = {
        "game_id": 4,
        "stage": "set",
        "board": board,
        "position": {"to_move": "S", "captured": [1, 2]},
        "instruction": "Undo: set S1 to 3, then hold any pit to confirm the board.",
        "said": "S7 is empty: choose a pit with seeds.",
        "restore": {"pending": ["S1"]},
        "url": "http://127.0.0.1:8420/",
    }
    screen = _plain(render_board(frame, state))
    lines = screen.splitlines()
    assert "Undo: set S1 to 3, then hold any pit to confirm the board." in lines
    assert "S7 is empty: choose a pit with seeds." in lines
    assert " S1:3*" in screen  # the label is the ring's target, marked as changing
    assert "web twin: http://127.0.0.1:8420/" in lines
    assert "stage" not in screen  # no internal stage names for a new player


def test_n_asks_before_a_new_game() -> None:
    """Issue 10 #6: `n` started a new game at once."""
    from kiothi_board.controller import TABLE
    from kiothi_board.sim import SimKeys

    keys = SimKeys()
    assert keys.feed("n") is None and keys.prompt == TABLE["new"].ask
    assert keys.feed("6") is None and keys.prompt is None  # any other key keeps the game
    assert keys.feed("6") == ("tap", 5)
    keys.feed("n")
    assert keys.feed("y") == ("command", "new") and keys.prompt is None
    assert keys.feed("^") == ("hold", 5)
    assert keys.feed("g") == ("command", "tutorial")
    assert keys.feed("?") is None


def test_dot_then_a_key_holds_on_any_keyboard() -> None:
    """Issue 24 #6: holds were only the characters Shift+digit makes on a US keyboard."""
    from kiothi_board.sim import SimKeys

    keys = SimKeys()
    assert keys.feed(".") is None
    assert keys.feed("6") == ("hold", 5)
    assert keys.feed("6") == ("tap", 5)
    assert keys.feed(".") is None and keys.feed("p") == ("hold", 10)
