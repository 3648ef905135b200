"""Error replies: the project's own errors get their codes; any other exception is `internal`,
logged with its traceback, and the connection survives (over a real TCP transport)."""

from __future__ import annotations

import logging
import socket

import pytest

from kiothi_board.api import start_api
from kiothi_board.board import Board
from kiothi_board.errors import BadArgumentError, ConflictError, NotFoundError
from tests.api.helpers import socket_client


def _raiser(board: Board, name: str, exc: BaseException) -> object:
    """`board.call`, but command `name` raises `exc`."""
    real = board.call

    def call(command: str, /, **args: object) -> object:
        if command == name:
            raise exc
        return real(command, **args)

    return call


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (KeyError("bug"), "internal"),  # a plain KeyError is a bug, not "not found"
        (ValueError("bug"), "internal"),
        (RuntimeError("bug"), "internal"),
        (ZeroDivisionError(), "internal"),
        (NotFoundError("no such thing"), "not_found"),
        (BadArgumentError("bad thing"), "bad_args"),
        (ConflictError("not now"), "conflict"),
    ],
)
def test_only_project_errors_get_codes_and_the_connection_survives(
    board: Board,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    exc: BaseException,
    code: str,
) -> None:
    monkeypatch.setattr(board, "call", _raiser(board, "hint", exc))
    caplog.set_level(logging.ERROR)
    cfg = {"tcp_port": 0, "web_port": None, "health_interval": 0, "trust_loopback_tcp": True}
    with start_api(board, cfg) as server:
        client = socket_client(socket.create_connection(("127.0.0.1", server.tcp_port)))
        reply = client.request("hint")
        assert reply["ok"] is False and reply["error"]["code"] == code
        logged = [r for r in caplog.records if "hint failed" in r.getMessage()]
        if code == "internal":
            assert "bug" not in reply["error"]["message"]  # no internals leak to the client
            assert logged and logged[0].exc_info is not None  # the traceback is in the log
        else:
            assert not logged
        assert client.request("ping")["ok"]  # the same connection still answers
        assert client.request("new_game", {"pace": "instant"})["ok"]
