"""The MQTT adapter's settings: the `[mqtt]` table read and checked, the broker URL, board ids.

Apart from the adapter (`api/mqtt.py`) so the fleet hub and the config tools can use them
without the adapter and its queue and threads."""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from kiothi_board.config_tables import MqttConfig
from kiothi_board.errors import ConfigError

__all__ = ["BOARD_ID", "MqttSettings", "check_board_id", "mqtt_settings", "parse_broker_url"]

BOARD_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Board ids and client names: one MQTT topic level, no wildcards or separators."""


def check_board_id(board: str) -> None:
    """ConfigError naming `mqtt.board_id` unless `board` is one topic level (`BOARD_ID`)."""
    if not BOARD_ID.match(board):
        raise ConfigError(f"mqtt.board_id: {board!r} must be 1-64 letters, digits, - or _")


@dataclass(frozen=True, slots=True)
class MqttSettings:
    """What the daemon's `[mqtt]` section says (validated by the config)."""

    url: str
    board_id: str
    prefix: str = "kiothi/v1"
    username: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    keepalive: int = 30
    periodic: float = 30.0
    queue_size: int = 1000
    max_clients: int = 32
    discovery: bool = False
    discovery_prefix: str = "homeassistant"
    web_url: str | None = None
    staff_users: frozenset[str] = frozenset()

    @property
    def base(self) -> str:
        """The board's topic root, `kiothi/v1/<board>`."""
        return f"{self.prefix}/{self.board_id}"


def mqtt_settings(cfg: MqttConfig, *, web_url: str | None = None) -> MqttSettings:
    """The daemon's `[mqtt]` table as settings; an empty `board_id` is the host name."""
    board = cfg.board_id or re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname())[:64]
    check_board_id(board)
    parse_broker_url(cfg.url)
    if cfg.tls_ca and not os.path.isfile(cfg.tls_ca):
        raise ConfigError(f"mqtt.tls_ca: {cfg.tls_ca!r} is not a readable file")
    return MqttSettings(
        url=cfg.url,
        board_id=board,
        prefix=cfg.prefix,
        username=cfg.username or None,
        password=cfg.password or None,
        tls_ca=cfg.tls_ca or None,
        keepalive=cfg.keepalive,
        periodic=float(cfg.periodic_s),
        queue_size=cfg.queue,
        max_clients=cfg.max_clients,
        discovery=cfg.discovery,
        discovery_prefix=cfg.discovery_prefix,
        web_url=web_url,
        staff_users=frozenset(cfg.staff_users),
    )


def parse_broker_url(url: str) -> tuple[str, int, bool]:
    """`mqtt://host[:port]` or `mqtts://host[:port]` → (host, port, tls)."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ConfigError(f"mqtt.url: {url!r} must start with mqtt:// or mqtts://")
    if not parts.hostname:
        raise ConfigError(f"mqtt.url: {url!r} names no host")
    tls = parts.scheme == "mqtts"
    try:
        port = parts.port or (8883 if tls else 1883)
    except ValueError as exc:
        raise ConfigError(f"mqtt.url: {url!r}: {exc}") from exc
    return parts.hostname, port, tls
