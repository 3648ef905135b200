"""The config's tables as typed, immutable settings: what the composition hands the parts.

`kiothi_board.config` checks the TOML against its schema and fills in the defaults; each
table then becomes one of these values (`Config.board`, `Config.leds`, `Config.game`,
`Config.store`, `Config.daemon`, `Config.mqtt`, `Config.exhibit`, `Config.voice`), so no
part below the daemon reads a key by its name. The `[api]`, `[mqtt]` and `[exhibit]` tables
also have settings of their own in their rooms (`ApiConfig`, `MqttSettings`,
`ExhibitSettings`), made from these checked tables.
Reading a config imports no AI (the tools that only check a config stay quick), so a level
stays as the config gives it until the daemon parses it into a `LevelChoice`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

__all__ = [
    "BoardConfig",
    "DaemonConfig",
    "ExhibitConfig",
    "GameConfig",
    "LedConfig",
    "MqttConfig",
    "StoreConfig",
    "VoiceConfig",
    "from_table",
]

T = TypeVar("T")
Pin = int | str


@dataclass(frozen=True, slots=True)
class BoardConfig:
    """`[board]`: the pit inputs."""

    input: str = "auto"
    port: str = "/dev/kiothi-io"
    heartbeat_timeout: float = 0.5
    pins: tuple[Pin, ...] = ()
    control_pins: tuple[Pin, ...] = ()
    pull_up: bool = True
    sensor: bool = False
    debounce_ms: float = 20.0
    hold_s: float = 1.0
    stuck_s: float = 30.0
    language: str = "en"
    languages: tuple[str, ...] = ()

    @property
    def enabled_languages(self) -> tuple[str, ...]:
        """The languages visitors may switch between, the venue's default first."""
        rest = tuple(c for c in self.languages if c != self.language)
        return (self.language, *rest)


@dataclass(frozen=True, slots=True)
class LedConfig:
    """`[leds]`: the rings and their data line."""

    output: str = "auto"
    leds_per_ring: int = 16
    pin: str = "D18"
    brightness: float = 0.3
    max_brightness: float = 0.5
    pixel_order: str = "GRB"
    supply_milliamps: float = 3000.0
    offset: Any = 0  # one for all, 20 of them, or by pit name
    direction: Any = "cw"
    chain: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameConfig:
    """`[game]`: the game a board plays by default."""

    mode: str = "ai"
    human_side: str = "S"
    level: int | str = 2  # checked: 1…9 or "adaptive"; `LevelChoice.parse` it where it plays
    pace: str = "step"
    variant: str = ""
    long_move_laps: int = 30
    palette: str = "default"
    over_seconds: float = 10.0


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """`[store]`: where the games are kept."""

    backend: str = "sqlite"
    path: str = ""
    redis_url: str = "redis://127.0.0.1:6379/0"


@dataclass(frozen=True, slots=True)
class DaemonConfig:
    """`[daemon]`: the loop's rate and the log."""

    tick_hz: float = 50.0
    log_level: str = "info"


@dataclass(frozen=True, slots=True)
class ExhibitConfig:
    """`[exhibit]`: exhibition mode, its hours and its timing (docs/exhibition.md)."""

    enabled: bool = False
    timezone: str = "UTC"
    opening_hours: tuple[str, ...] = ()
    closed_days: tuple[str, ...] = ()
    closed: str = "glow"
    quiet_hours: tuple[str, ...] = ()
    brightness: tuple[str, ...] = ()
    attract_brightness: float = 0.4
    quiet_brightness: float = 0.3
    idle_s: float = 90.0
    countdown_s: float = 20.0
    hint_after_s: float = 40.0
    two_player_s: float = 3.0
    level: int | str = "adaptive"  # checked as game.level is; `LevelChoice.parse` it
    pace: str = "step"
    variant: str = ""


@dataclass(frozen=True, slots=True)
class MqttConfig:
    """`[mqtt]`: the venue's broker (docs/fleet.md); `url` empty: off. The password is
    never shown by `repr`."""

    url: str = ""
    board_id: str = ""
    prefix: str = "kiothi/v1"
    username: str = ""
    password: str = field(default="", repr=False)
    tls_ca: str = ""
    keepalive: int = 30
    staff_users: tuple[str, ...] = ()
    periodic_s: float = 30.0
    queue: int = 1000
    max_clients: int = 32
    discovery: bool = False
    discovery_prefix: str = "homeassistant"


@dataclass(frozen=True, slots=True)
class VoiceConfig:
    """`[voice]`: the board speaks (docs/install.md, "A voice"); off unless `enabled`."""

    enabled: bool = False
    output: str = "auto"
    device: str = ""
    volume: float = 0.5
    rate: int = 150
    what: tuple[str, ...] = ("guide", "events")


@dataclass(frozen=True, slots=True)
class RemoteConfig:
    """`[remote]`: playing a board elsewhere over the broker (docs/remote.md)."""

    enabled: bool = False
    name: str = ""
    gone_s: float = 120.0
    invite_s: float = 60.0
    accept_from: tuple[str, ...] = ()
    pace: str = "step"


def _value(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def from_table(cls: type[T], table: Mapping[str, Any]) -> T:
    """A checked table (every key of the schema present) as its typed settings."""
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    values = {k: _value(v) for k, v in table.items() if k in names}
    return cls(**values)
