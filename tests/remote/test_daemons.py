"""Two board daemons (in-process, each with its MQTT door) play a match over one broker,
driven through the API's `remote_*` commands."""

from __future__ import annotations

import contextlib
import io
import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.cli import main as cli_main
from kiothi_board.cli import replay_main
from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.rules import parse_record
from tests.conftest import Mosquitto, poll_until
from tests.remote.conftest import Player, play_match


def _daemon(tmp: Path, url: str, board: str, prefix: str, **remote: Any) -> Daemon:
    cfg = validate({
        "game": {"mode": "two"},
        "api": {"tcp_port": 0, "web_port": -1, "token": "t0ken-for-the-remote-cli-test"},
        "mqtt": {"url": url, "board_id": board, "prefix": prefix, "keepalive": 2},
        "remote": {"enabled": True, "name": f"Hall {board[-1]}", "pace": "instant", **remote},
    })  # fmt: skip
    d = Daemon(cfg, sim=True, state_dir=str(tmp / board), seed=1)
    d.board.start()
    return d


@pytest.fixture
def pair(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[tuple[Daemon, Daemon]]:
    prefix = f"kt-{uuid.uuid4().hex[:8]}/v1"
    a = _daemon(tmp_path, mosquitto.url, "b1", prefix)
    b = _daemon(tmp_path, mosquitto.url, "b2", prefix)
    yield a, b
    a.close()
    b.close()


def ask(d: Daemon, cmd: str, **args: Any) -> dict[str, Any]:
    assert d.api is not None
    staff = d.api.dispatcher.open_session("direct", "t", trusted=True, wake=lambda: None)
    got = d.api.dispatcher.handle_line(staff, json.dumps({"id": 1, "cmd": cmd, "args": args}))
    assert got is not None
    return got


def run_cli(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(argv) == 0
    return out.getvalue()


def _player(d: Daemon) -> Player:
    def call(cmd: str, **args: Any) -> None:
        assert ask(d, cmd, **args)["ok"]

    return Player(lambda: d.board.ask(lambda c: c.session.game), call, lambda: d.remote.match.local)


def test_two_daemons_play_a_match_through_the_api(pair: tuple[Daemon, Daemon]) -> None:
    a, b = pair
    seen = poll_until(
        lambda: (
            (r := ask(a, "remote_status")["result"])["boards"].get("b2", {}).get("presence")
            == "online"
            and r
        ),
        "b2 in b1's list of boards",
    )
    assert seen["boards"]["b2"] == {"name": "Hall 2", "lang": "en", "free": True,
                                    "presence": "online"}  # fmt: skip
    cli = ["remote", "--port", str(a.api.tcp_port), "--token", "t0ken-for-the-remote-cli-test"]
    listed = run_cli([*cli, "list"])  # the CLI, as a person at b1 runs it
    assert "b2" in listed and "Hall 2" in listed
    assert '"to": "b2"' in run_cli([*cli, "invite", "b2", "--side", "N"])
    poll_until(lambda: ask(b, "remote_status")["result"]["invitations"] == ["b1"], "invited")
    assert ask(b, "remote_accept")["ok"]
    poll_until(lambda: a.remote.match and b.remote.match, "both matches")
    play_match([_player(a), _player(b)], random.Random(3), resign_after=40)
    ga = a.board.ask(lambda c: (c.session.game, c.session.game_id))
    gb = b.board.ask(lambda c: (c.session.game, c.session.game_id))
    assert ga[0].stage == gb[0].stage == "over"
    ra, rb = a.store.get_game(ga[1]), b.store.get_game(gb[1])
    assert json.dumps(ra) == json.dumps(rb)
    assert parse_record(ra).final() == ga[0].position
    for d, record in ((a, ra), (b, rb)):  # `kiothi-board replay` checks each board's record
        path = d.state_dir / "match.json"
        path.write_text(json.dumps(record))
        assert replay_main([str(path)]) == 0


def test_a_board_restarted_mid_match_goes_on_where_it_was(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """b2's daemon closes mid-match and a new one starts on its state directory: it reads
    the match back, the broker's retained log replays it, and the game goes on."""
    prefix = f"kt-{uuid.uuid4().hex[:8]}/v1"
    a = _daemon(tmp_path, mosquitto.url, "b1", prefix)
    b = _daemon(tmp_path, mosquitto.url, "b2", prefix)
    try:
        poll_until(lambda: "b2" in a.remote.lobby and "b1" in b.remote.lobby, "the cards")
        assert ask(a, "remote_invite", board="b2", side="S")["ok"]
        poll_until(lambda: "b1" in b.remote.invitations, "invited")
        assert ask(b, "remote_accept")["ok"]
        poll_until(lambda: a.remote.match and b.remote.match, "both matches")
        poll_until(lambda: all(d.board.ask(lambda c: c.session.game) for d in (a, b)), "games")
        play_match([_player(a), _player(b)], random.Random(4), limit=8, to_the_end=False)
        poll_until(lambda: a.remote.match.log == b.remote.match.log, "both logs alike")
        before = b.remote.match.log[:]
        b.close()
        b = _daemon(tmp_path, mosquitto.url, "b2", prefix)
        poll_until(lambda: b.remote.match is not None and len(b.remote.match.log) == len(before),
                   "b2's match read back and its log replayed")  # fmt: skip
        assert b.remote.match.log == before
        play_match([_player(a), _player(b)], random.Random(5), resign_after=30)
        ga = a.board.ask(lambda c: (c.session.game, c.session.game_id))
        gb = b.board.ask(lambda c: (c.session.game, c.session.game_id))
        assert json.dumps(a.store.get_game(ga[1])) == json.dumps(b.store.get_game(gb[1]))
        assert not (b.state_dir / "remote-match.json").exists()
    finally:
        a.close()
        b.close()
