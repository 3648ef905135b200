"""The broker's ACL for a fleet: the shipped file, with one block per board.

`kiothi_board/fleet/kiothi.acl` is the file docs/fleet.md shows; its `user hall-1` block
is the example of a board's own lines. `fleet_acl(["hall-1", "cafe-2"])` is that file with
the example's block copied for each board (`kiothi-board fleet --print-acl hall-1 cafe-2`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kiothi_board.api.mqtt_settings import check_board_id

__all__ = ["SHIPPED_ACL", "fleet_acl"]

SHIPPED_ACL = Path(__file__).with_name("kiothi.acl")
_EXAMPLE = "hall-1"


def board_block(board: str) -> str:
    """The lines that let broker user `board` publish as board `board`, and only it."""
    check_board_id(board)
    text = SHIPPED_ACL.read_text()
    start = text.index(f"user {_EXAMPLE}\n")
    end = text.find("\n\n", start)
    block = text[start:] if end < 0 else text[start:end] + "\n"
    node = "kiothi_" + board.replace("-", "_")  # Home Assistant's node id (mqtt_discovery)
    return block.replace("kiothi_" + _EXAMPLE.replace("-", "_"), node).replace(_EXAMPLE, board)


def fleet_acl(boards: Iterable[str]) -> str:
    """The shipped ACL with a block for each of `boards` (the example's block left out)."""
    text = SHIPPED_ACL.read_text()
    head = text[: text.index(f"user {_EXAMPLE}\n")]
    return head + "\n".join(board_block(b) for b in boards)
