"""The dashboard's staff actions are the command table's entries marked `fleet`: their
arguments checked by their specs, anything else refused, and a test-added entry sent with
no change to the dashboard."""

from __future__ import annotations

import json
from typing import Any

from kiothi_board.controller import TABLE, CommandSpec
from kiothi_board.controller.kinds import Integer
from kiothi_board.controller.spec import Arg
from kiothi_board.fleet.staff import StaffGate, handle, staff_commands
from kiothi_board.i18n import tr

TOKEN = "staff-token-0123456789"


class Hub:
    """What the dashboard sends to the boards."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, dict[str, Any]]] = []

    def command(self, board: str, cmd: str, args: dict[str, Any]) -> None:
        self.sent.append((board, cmd, args))


def _staff(hub: Hub) -> Any:
    role = ["spectator"]
    gate = StaffGate(TOKEN)
    assert handle(json.dumps({"auth": TOKEN}), hub, gate, role)["role"] == "control"  # type: ignore[arg-type]
    return lambda msg: handle(json.dumps(msg), hub, gate, role)  # type: ignore[arg-type]


def test_the_actions_are_the_tables_fleet_entries() -> None:
    assert sorted(staff_commands()) == ["exhibit.set", "new_game", "settings.set"]
    hub = Hub()
    act = _staff(hub)
    assert (
        act({"action": "exhibit.set", "board": "b1", "args": {"enabled": True}})["type"] == "sent"
    )
    assert act({"action": "new_game", "board": "b2"}) == {
        "type": "sent", "action": "new_game", "board": "b2"
    }  # fmt: skip
    assert hub.sent == [("b1", "exhibit.set", {"enabled": True}), ("b2", "new_game", {})]
    # The spec's own checks, in its own words; nothing is sent.
    bad = act({"action": "settings.set", "board": "b1", "args": {"brightness": 7}})
    assert bad["message"] == "settings.set: brightness must be a number from 0.0 to 1.0, got 7"
    bad = act({"action": "exhibit.set", "board": "b1", "args": {"enabled": "yes"}})
    assert bad["type"] == "error" and "enabled must be true or false" in bad["message"]
    assert act({"action": "exhibit.set", "board": "b1", "args": [1]})["type"] == "error"
    # A command of the table the dashboard does not offer is not an action.
    assert act({"action": "resign", "board": "b1"})["message"] == "unknown action 'resign'"
    assert len(hub.sent) == 2


def test_an_entry_marked_fleet_is_an_action_with_no_other_change() -> None:
    TABLE.add(CommandSpec("rotate", tr("ask for a hint"), "staff",
                          (Arg("turns", Integer(1, 3), True),), fleet=True))  # fmt: skip
    try:
        hub = Hub()
        act = _staff(hub)
        assert act({"action": "rotate", "board": "b1", "args": {"turns": 2}})["type"] == "sent"
        assert act({"action": "rotate", "board": "b1", "args": {"turns": 4}})["type"] == "error"
        assert hub.sent == [("b1", "rotate", {"turns": 2})]
    finally:
        TABLE.remove("rotate")
    assert "rotate" not in staff_commands()
