"""sd_notify: readiness and watchdog datagrams reach a real Unix socket like systemd's."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from kiothi_board.sdnotify import Notifier


def test_notifications_reach_the_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "notify")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    server.settimeout(2)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    with Notifier() as notifier:
        assert notifier.enabled and notifier.watchdog_interval == 5.0
        assert notifier.ready("playing")
        assert server.recv(100) == b"READY=1\nSTATUS=playing"
        assert notifier.watchdog()
        assert server.recv(100) == b"WATCHDOG=1"
        assert notifier.stopping()
        assert server.recv(100) == b"STOPPING=1"
    server.close()


def test_without_systemd_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    notifier = Notifier()
    assert not notifier.enabled and notifier.watchdog_interval is None
    assert not notifier.ready() and not notifier.watchdog()
    notifier.close()
    notifier.close()
