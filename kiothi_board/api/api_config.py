"""`ApiConfig`: the `[api]` settings as the API layer takes them (docs/api.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from kiothi_board.api.budget import DEFAULT_BUDGET, DEFAULT_MAX_REPLY
from kiothi_board.api.protocol import MAX_LINE
from kiothi_board.errors import ConfigError

__all__ = ["ApiConfig"]


@dataclass(frozen=True, slots=True)
class ApiConfig:
    """The `[api]` settings. Ports: 0 picks a free port, None turns the door off.

    `token` is a secret: it is never logged and never shown by `repr`.
    """

    host: str = "127.0.0.1"
    tcp_port: int | None = 7420
    unix_path: str | None = None
    web_host: str = "127.0.0.1"
    web_port: int | None = 8420
    serial: tuple[str, ...] = ()
    serial_baud: int = 115200
    token: str | None = field(default=None, repr=False)
    sim: bool = False
    max_line: int = MAX_LINE
    rate: float = 50.0
    burst: float = 200.0
    outbox_limit: int = 2000
    frame_fps: float = 15.0
    health_interval: float = 30.0
    redis_url: str | None = None
    redis_prefix: str = "kiothi:v1"
    redis_queue: int = 1000
    trust_loopback_tcp: bool = False
    host_names: tuple[str, ...] = ()
    staff_pin: str | None = field(default=None, repr=False)
    session_ttl: float = 12 * 3600.0
    client_budget: int = DEFAULT_BUDGET
    max_reply: int = DEFAULT_MAX_REPLY
    max_connections: int = 512
    max_per_door: int = 256
    max_per_peer: int = 128
    idle_timeout: float = 300.0
    header_timeout: float = 10.0
    auth_rate: float = 1.0
    auth_burst: float = 5.0
    auth_global_rate: float = 10.0
    auth_daily: float = 5000.0
    languages: tuple[str, ...] = ("en",)  # from [board]: the venue's, its default first

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ApiConfig:
        """Read the `[api]` table of the daemon's config; unknown keys are errors."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown [api] keys {sorted(unknown)!r}; known: {sorted(known)}")
        kwargs = dict(data)
        if "serial" in kwargs:
            serial = kwargs["serial"]
            kwargs["serial"] = (serial,) if isinstance(serial, str) else tuple(serial)
        if "host_names" in kwargs:
            kwargs["host_names"] = tuple(kwargs["host_names"])
        if "languages" in kwargs:
            kwargs["languages"] = tuple(kwargs["languages"])
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise ConfigError(f"bad [api] config: {exc}") from exc
