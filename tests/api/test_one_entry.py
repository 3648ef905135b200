"""A new command is one `CommandSpec` entry: the test adds one, and every door serves it
(TCP, MQTT, the web socket), with its arguments checked, its role enforced, in the schema
and in the help; the Board runs it with `call`."""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kiothi_board.api.schemas import request_schema
from kiothi_board.config import validate
from kiothi_board.controller import TABLE, CommandSpec
from kiothi_board.controller.kinds import Integer
from kiothi_board.controller.spec import Arg, ArgError, keyed
from kiothi_board.daemon import Daemon
from kiothi_board.i18n import tr
from tests.api.helpers import socket_client
from tests.api.test_mqtt import Watcher
from tests.api.wire import RawWebSocket
from tests.conftest import Mosquitto

SPIN = CommandSpec(
    "spin",
    tr("ask for a hint"),  # a catalog entry that exists: the test adds no words
    "control",
    (Arg("times", Integer(1, 5), True),),
    handler=lambda ctl, times: times * ctl.session.game_id,
    reply=keyed("spun"),
    reply_schema={"type": "object", "required": ["spun"]},
)
"""The one entry: `spin` {"times": n} answers n × the current game's id."""


@pytest.fixture
def daemon(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[tuple[Daemon, str]]:
    TABLE.add(SPIN)
    prefix = f"kiothi-test-{uuid.uuid4().hex[:8]}/v1"
    cfg = validate(
        {
            "game": {"mode": "two"},
            "api": {"tcp_port": 0, "web_port": 0, "trust_loopback_tcp": True},
            "mqtt": {"url": mosquitto.url, "board_id": "b1", "prefix": prefix,
                     "staff_users": ["ops"]},
        }
    )  # fmt: skip
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path))
    try:
        yield daemon, f"{prefix}/b1"
    finally:
        daemon.close()
        TABLE.remove("spin")


def test_one_entry_is_served_on_every_door_checked_and_refused_by_role(
    daemon: tuple[Daemon, str], mosquitto: Mosquitto
) -> None:
    d, base = daemon
    gid = d.board.state()["game_id"]
    assert d.board.call("spin", times=2) == 2 * gid  # the Board runs it by name
    with pytest.raises(ArgError, match="spin: times must be an integer from 1 to 5"):
        d.board.call("spin", times=9)

    assert d.api is not None and d.api.tcp_port and d.api.web_port
    tcp = socket_client(socket.create_connection(("127.0.0.1", d.api.tcp_port)))
    assert tcp.request("spin", {"times": 3})["result"] == {"spun": 3 * gid}
    bad = tcp.request("spin", {"times": 0})["error"]
    assert bad["code"] == "bad_args" and "times must be an integer from 1 to 5" in bad["message"]
    assert tcp.request("spin", {"times": 1, "x": 1})["error"]["code"] == "bad_args"
    assert "spin" in tcp.request("hello")["result"]["commands"]
    helped = {c["name"]: c for c in tcp.request("help")["result"]["commands"]}
    assert helped["spin"]["help"] == "ask for a hint" and helped["spin"]["allowed"] is True
    assert helped["spin"]["args"] == "`times` (an integer from 1 to 5)"

    # The web socket: a page without a ticket is a spectator, so the role refuses it.
    port = d.api.web_port
    ws = RawWebSocket(port, {"Origin": f"http://127.0.0.1:{port}"})
    try:
        refused = ws.request(1, "spin", {"times": 1})["error"]
        assert refused["code"] == "unauthorized" and "ask for a hint" in refused["message"]
        seen = {c["name"]: c for c in ws.request(2, "help")["result"]["commands"]}
        assert seen["spin"]["allowed"] is False and seen["spin"]["role"] == "control"
    finally:
        ws.close()

    # MQTT: the staff's broker user runs it, anyone else is refused.
    w = Watcher(f"{base}/#", mosquitto.port)
    try:
        w.wait(f"{base}/status")

        def ask(user: str, rid: int, args: dict[str, Any]) -> dict[str, Any]:
            line = json.dumps({"id": rid, "cmd": "spin", "args": args})
            w.client.publish(f"{base}/cmd/{user}", line)
            got = w.wait(f"{base}/reply/{user}", lambda p: f'"id":{rid}'.encode() in p)
            reply: dict[str, Any] = json.loads(got)
            return reply

        assert ask("ops", 1, {"times": 4})["result"] == {"spun": 4 * gid}
        assert ask("t1", 2, {"times": 4})["error"]["code"] == "unauthorized"
    finally:
        w.close()

    # The schema comes from the entry's arguments.
    schema = request_schema(SPIN)
    schema["properties"]["id"] = {}  # the shared definitions live in common.json
    jsonschema.validate({"id": 1, "cmd": "spin", "args": {"times": 5}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"id": 1, "cmd": "spin", "args": {"times": 6}}, schema)


def test_the_board_refuses_what_the_table_does_not_have() -> None:
    assert "spin" not in TABLE
    assert TABLE["hint"].help == "ask for a hint"
