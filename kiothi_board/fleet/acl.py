"""The broker's ACL for a fleet: the shipped file, with one block per board.

`kiothi_board/fleet/kiothi.acl` is the file docs/fleet.md shows; its `user hall-1` block
is the example of a board's own lines. `fleet_acl(["hall-1", "cafe-2"])` is that file with
the example's block copied for each board (`kiothi-board fleet --print-acl hall-1 cafe-2`).
A board id may not be one of the file's fixed users (`staff`, `display`, `homeassistant`:
the board would get their rights and they its), nor share a Home Assistant node id with
another board (`hall_1` and `hall-1` are both `kiothi_hall_1`: one would overwrite the
other's entities).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kiothi_board.api.mqtt_settings import check_board_id
from kiothi_board.errors import ConfigError

__all__ = ["SHIPPED_ACL", "SHIPPED_CONF", "check_fleet", "fixed_users", "fleet_acl"]

SHIPPED_ACL = Path(__file__).with_name("kiothi.acl")
SHIPPED_CONF = Path(__file__).with_name("kiothi.conf")
"""The broker config docs/fleet.md shows (`/etc/mosquitto/conf.d/kiothi.conf`)."""
_EXAMPLE = "hall-1"


def fixed_users() -> tuple[str, ...]:
    """The users the shipped ACL names before the boards' example block."""
    text = SHIPPED_ACL.read_text()
    head = text[: text.index(f"user {_EXAMPLE}\n")]
    return tuple(ln.split()[1] for ln in head.splitlines() if ln.startswith("user "))


def _node(board: str) -> str:
    return "kiothi_" + board.replace("-", "_")  # Home Assistant's node id (mqtt_discovery)


def check_fleet(boards: Iterable[str]) -> list[str]:
    """The board ids, each checked; one line naming the first that cannot be in the ACL."""
    fixed = fixed_users()
    nodes: dict[str, str] = {}
    out = []
    for board in boards:
        check_board_id(board)
        if board == "match":
            raise ConfigError(
                "mqtt.board_id: 'match' names the remote matches' topics "
                "(docs/remote.md): give the board another id"
            )
        if board in fixed:
            raise ConfigError(
                f"mqtt.board_id: {board!r} is one of the ACL's fixed users "
                f"({', '.join(fixed)}): give the board another id"
            )
        other = nodes.get(_node(board))
        if other is not None:
            same = "is given twice" if other == board else f"and {other!r} are"
            raise ConfigError(
                f"mqtt.board_id: {board!r} {same} one Home Assistant node id "
                f"({_node(board)!r}): give each board its own id"
            )
        nodes[_node(board)] = board
        out.append(board)
    return out


def board_block(board: str) -> str:
    """The lines that let broker user `board` publish as board `board`, and only it."""
    check_board_id(board)
    text = SHIPPED_ACL.read_text()
    start = text.index(f"user {_EXAMPLE}\n")
    end = text.find("\n\n", start)
    block = text[start:] if end < 0 else text[start:end] + "\n"
    return block.replace(_node(_EXAMPLE), _node(board)).replace(_EXAMPLE, board)


def fleet_acl(boards: Iterable[str]) -> str:
    """The shipped ACL with a block for each of `boards` (the example's block left out);
    `ConfigError` for a board id that cannot be in it (`check_fleet`)."""
    checked = check_fleet(boards)
    text = SHIPPED_ACL.read_text()
    head = text[: text.index(f"user {_EXAMPLE}\n")]
    return head + "\n".join(board_block(b) for b in checked)
