"""Issue 10 #9: an address already in use says that another instance may be running."""

from __future__ import annotations

import socket

import pytest


def test_address_in_use_says_another_instance_may_run(board: object) -> None:
    from kiothi_board.api import start_api
    from kiothi_board.errors import ConfigError

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for door in ("tcp_port", "web_port"):
            other = "web_port" if door == "tcp_port" else "tcp_port"
            with pytest.raises(ConfigError) as caught:
                start_api(board, {door: port, other: None})  # type: ignore[arg-type]
            text = str(caught.value)
            assert f"127.0.0.1:{port}" in text and "already in use" in text
            assert "another kiothi-board may be running" in text and f"api.{door}" in text
