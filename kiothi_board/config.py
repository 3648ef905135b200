"""The daemon's configuration: a TOML file validated against a schema, with built-in defaults.

Only the composition (the daemon and the helpers beside it that build the exhibition and
the drivers, and the tools, each its own program) reads configuration; every other room
gets typed settings passed in (`kiothi_board.config_tables`). An error names the file, the
key and the reason.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiothi_board.ai.levels import ADAPTIVE, MAX_LEVEL, LevelChoice
from kiothi_board.config_checks import (
    Check,
    between,
    broker_users,
    names,
    one_of,
    pin,
    secret,
    strings,
    topic_prefix,
)
from kiothi_board.config_tables import (
    BoardConfig,
    DaemonConfig,
    ExhibitConfig,
    GameConfig,
    LedConfig,
    MqttConfig,
    RemoteConfig,
    StoreConfig,
    VoiceConfig,
    from_table,
)
from kiothi_board.errors import ConfigError
from kiothi_board.hardware.pinmap import load_map
from kiothi_board.hardware.registry import LED_OUTPUTS, PIT_INPUTS, VOICE_OUTPUTS
from kiothi_board.i18n import DEFAULT_LANGUAGE, available


@dataclass(frozen=True, slots=True)
class Key:
    """One configuration key: its type(s), default and an optional extra check."""

    types: tuple[type, ...]
    default: Any
    check: Check | None = None
    help: str = ""


def _level(value: Any) -> str | None:
    """A playing level, as `LevelChoice` reads one (light: tools that read the config but
    never play, such as pinout, leds and doctor, load no search)."""
    try:
        LevelChoice.read(value)
    except ValueError as exc:
        return f"must be {exc}"
    return None


def _pin_list(length: int | None = None, max_length: int | None = None) -> Check:
    def check(value: Any) -> str | None:
        if not all(isinstance(v, int | str) and not isinstance(v, bool) for v in value):
            return "must be a list of GPIO numbers or names"
        if length is not None and len(value) != length:
            return f"must list exactly {length} pins, got {len(value)}"
        if max_length is not None and len(value) > max_length:
            return f"must list at most {max_length} pins, got {len(value)}"
        if len(set(value)) != len(value):
            return "lists a pin twice"
        return None

    return check


def _language(value: Any) -> str | None:
    if value in available():
        return None
    return f"has no catalog; the board speaks {', '.join(available())} (docs/translating.md)"


def _language_list(value: Any) -> str | None:
    if not all(isinstance(v, str) for v in value):
        return "must be a list of language codes"
    bad = [v for v in value if v not in available()]
    if bad:
        return f"{bad[0]!r} has no catalog; the board speaks {', '.join(available())}"
    return "lists a language twice" if len(set(value)) != len(value) else None


VOICE_WHAT = ("guide", "events", "accessibility")


def _voice_what(value: Any) -> str | None:
    bad = [v for v in value if v not in VOICE_WHAT]
    return f"{bad[0]!r} is not one of {', '.join(VOICE_WHAT)}" if bad else None


REMOVED: dict[tuple[str, str], str] = {
    ("mqtt", "trust_broker"): "was removed: the broker's user name decides on MQTT; list "
    "the users who may control this board in mqtt.staff_users (docs/fleet.md)",
}
"""Keys that no longer exist, and what to write instead (a one-line error, not a guess)."""


def api_settings(config: Config, *, sim: bool) -> dict[str, Any]:
    """The `[api]` table as the API layer takes it: empty strings and -1 mean "off"."""
    out: dict[str, Any] = dict(config["api"])
    for key in ("unix_path", "token", "redis_url", "staff_pin"):
        out[key] = out[key] or None
    for key in ("tcp_port", "web_port"):
        out[key] = None if out[key] < 0 else out[key]
    out["serial"] = tuple(out["serial"])
    out["host_names"] = tuple(out["host_names"])
    out["sim"] = sim
    out["languages"] = config.board.enabled_languages
    return out


def default_state_dir() -> str:
    """Where the store lives: systemd's $STATE_DIRECTORY, else ~/.local/state/kiothi-board."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return state.split(":")[0]
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return str(Path(base) / "kiothi-board")


_DIRECT = load_map("direct")  # the packaged pin map is the source of the pin defaults

SCHEMA: dict[str, dict[str, Key]] = {
    "board": {
        "input": Key(
            (str,),
            "auto",
            one_of(*PIT_INPUTS.choices()),
            "pit inputs: the Pi's GPIO, the RP2040 co-processor, or simulated",
        ),
        "port": Key((str,), "/dev/kiothi-io", None, "the co-processor's serial port or URL"),
        "heartbeat_timeout": Key((int, float), 0.5, between(0.1, 10)),
        "pins": Key(
            (list,),
            list(_DIRECT.pits),
            _pin_list(20),
            "the 20 pit input pins in index order S1…S10, N1…N10 (default: the direct map)",
        ),
        "control_pins": Key(
            (list,), list(_DIRECT.controls), _pin_list(max_length=4), "up to 4 control buttons"
        ),
        "pull_up": Key((bool,), True),
        "sensor": Key((bool,), False, None, "seed sensors: a drop confirms a sowing step"),
        "debounce_ms": Key((int, float), 20, between(0, 500)),
        "hold_s": Key((int, float), 1.0, between(0.2, 10)),
        "stuck_s": Key((int, float), 30.0, between(1, 3600)),
        "language": Key(
            (str,), DEFAULT_LANGUAGE, _language, "the board's words: en, sw, fr, de (a venue's own)"
        ),
        "languages": Key(
            (list,),
            [],
            _language_list,
            "the languages visitors may switch to (S9+S10, the page's button); [] = language only",
        ),
    },
    "leds": {
        "output": Key(
            (str,),
            "auto",
            one_of(*LED_OUTPUTS.choices()),
            "neopixel: SPI0 MOSI (GPIO10, no root); neopixel-pwm: rpi_ws281x on leds.pin",
        ),
        "leds_per_ring": Key((int,), 16, one_of(12, 16, 24)),
        "pin": Key((str,), "D18", None, "the PWM data pin (neopixel-pwm only)"),
        "brightness": Key((int, float), 0.3, between(0, 1)),
        "max_brightness": Key((int, float), 0.5, between(0, 1)),
        "pixel_order": Key((str,), "GRB", one_of("RGB", "GRB", "RGBW", "GRBW")),
        "supply_milliamps": Key((int, float), 3000, between(100, 100_000)),
        "offset": Key((list, int, dict), 0, None, "first-LED offset: one for all, 20, or by pit"),
        "direction": Key((list, str, dict), "cw", None, "cw/ccw: one for all, 20, or by pit"),
        "chain": Key((list,), [], None, "pit names in LED-chain order (empty: S1…S10, N1…N10)"),
    },
    "game": {
        "mode": Key((str,), "ai", one_of("two", "ai", "demo"), "two players, human vs AI, AI demo"),
        "human_side": Key((str,), "S", one_of("S", "N")),
        "level": Key(
            (int, str), 2, _level, f'1…{MAX_LEVEL}, or "{ADAPTIVE}" (keeps the game close)'
        ),
        "pace": Key((str,), "step", one_of("step", "flow", "instant")),
        "variant": Key((str,), "", None, "comma-separated variants, e.g. V3,V7"),
        "long_move_laps": Key((int,), 30, between(1, 1000)),
        "palette": Key((str,), "default", one_of("default", "colour-blind", "night")),
        "over_seconds": Key((int, float), 10.0, between(0, 3600), "show the result, then idle"),
    },
    "store": {
        "backend": Key((str,), "sqlite", one_of("sqlite", "redis")),
        "path": Key((str,), "", None, "SQLite file (empty: games.sqlite3 in the state directory)"),
        "redis_url": Key((str,), "redis://127.0.0.1:6379/0"),
    },
    "api": {
        "host": Key((str,), "127.0.0.1", None, "JSON-lines TCP: listen address"),
        "tcp_port": Key((int,), 7420, between(-1, 65535), "0: any free port, -1: off"),
        "unix_path": Key((str,), "", None, "a Unix socket (empty: none)"),
        "web_host": Key((str,), "127.0.0.1", None, "web page and WebSocket: listen address"),
        "web_port": Key((int,), 8420, between(-1, 65535), "0: any free port, -1: off"),
        "serial": Key((list,), [], None, "serial devices or pyserial URLs"),
        "serial_baud": Key((int,), 115200, between(300, 4_000_000)),
        "token": Key((str,), "", secret(16), "needed to control over TCP/WebSocket; never logged"),
        "staff_pin": Key((str,), "", pin, "8-12 digits: a session from the page"),
        "trust_loopback_tcp": Key((bool,), False, None, "loopback TCP clients control at once"),
        "host_names": Key((list,), [], names, "extra names the web server answers to"),
        "session_ttl": Key((int, float), 43200, between(60, 30 * 86400), "seconds"),
        "client_budget": Key((int,), 1 << 20, between(64 << 10, 1 << 30), "bytes per client"),
        "max_reply": Key((int,), 256 << 10, between(16 << 10, 1 << 30), "bytes"),
        "max_connections": Key((int,), 512, between(8, 1_000_000)),
        "max_per_door": Key((int,), 256, between(1, 1_000_000)),
        "max_per_peer": Key((int,), 128, between(1, 1_000_000)),
        "idle_timeout": Key((int, float), 300, between(1, 86400), "s without a byte: closed"),
        "header_timeout": Key((int, float), 10, between(0.5, 600), "s for an HTTP request"),
        "auth_rate": Key((int, float), 1, between(0.001, 1000), "failures/s per peer address"),
        "auth_burst": Key((int, float), 5, between(1, 10000)),
        "auth_global_rate": Key((int, float), 10, between(0.001, 10000), "failures/s in all"),
        "auth_daily": Key((int, float), 5000, between(1, 1_000_000), "failures/day in all"),
        "max_line": Key((int,), 16384, between(256, 10_000_000)),
        "rate": Key((int, float), 50, between(1, 100_000), "requests/s per client"),
        "burst": Key((int, float), 200, between(1, 1_000_000)),
        "outbox_limit": Key((int,), 2000, between(10, 1_000_000)),
        "frame_fps": Key((int, float), 15, between(1, 60), "LED frames/s sent to the web twin"),
        "health_interval": Key((int, float), 30, between(1, 3600)),
        "redis_url": Key((str,), "", None, "the Redis bus (empty: off)"),
        "redis_prefix": Key((str,), "kiothi:v1"),
        "redis_queue": Key((int,), 1000, between(10, 1_000_000)),
    },
    "exhibit": {
        "enabled": Key((bool,), False, None, "exhibition mode at start (staff: exhibit.set)"),
        "timezone": Key((str,), "UTC", None, "the venue's time zone, e.g. Europe/Paris"),
        "opening_hours": Key((list,), [], strings, 'e.g. ["tue-sun 10:00-18:00"]; empty: always'),
        "closed_days": Key((list,), [], strings, 'ISO dates, e.g. ["2026-12-25"]'),
        "closed": Key((str,), "glow", one_of("glow", "dark"), "outside opening hours"),
        "quiet_hours": Key((list,), [], strings, "dimmed, no attract animation"),
        "brightness": Key((list,), [], strings, 'e.g. ["09:00=0.5", "17:00=0.3"]'),
        "attract_brightness": Key((int, float), 0.4, between(0, 1), "attract loop, of the above"),
        "quiet_brightness": Key((int, float), 0.3, between(0, 1)),
        "idle_s": Key((int, float), 90, between(5, 3600), "no press this long: count down"),
        "countdown_s": Key((int, float), 20, between(1, 600), "then the game is abandoned"),
        "hint_after_s": Key((int, float), 40, between(1, 3600), "offer a hint after this pause"),
        "two_player_s": Key((int, float), 3, between(0.5, 30), "a press on each side: two play"),
        "level": Key((int, str), ADAPTIVE.to_json(), _level, "the visitor's opponent"),
        "pace": Key((str,), "step", one_of("step", "flow", "instant")),
        "variant": Key((str,), ""),
    },
    "mqtt": {
        "url": Key((str,), "", None, "the venue's broker: mqtt://host:1883 (empty: off)"),
        "board_id": Key((str,), "", None, "this board's name in the fleet (empty: the host name)"),
        "prefix": Key((str,), "kiothi/v1", topic_prefix),
        "username": Key((str,), "", None, "the board's broker user (empty: none)"),
        "password": Key((str,), "", None, "never logged"),
        "tls_ca": Key((str,), "", None, "CA file for mqtts:// (empty: the system's)"),
        "keepalive": Key((int,), 30, between(2, 3600), "seconds; offline shows after 1.5x"),
        "staff_users": Key((list,), [], broker_users, "broker users who control this board"),
        "periodic_s": Key((int, float), 30, between(1, 3600), "health and stats refresh"),
        "queue": Key((int,), 1000, between(10, 1_000_000)),
        "max_clients": Key((int,), 32, between(1, 10_000)),
        "discovery": Key((bool,), False, None, "announce the board to Home Assistant"),
        "discovery_prefix": Key((str,), "homeassistant", topic_prefix),
    },
    "voice": {
        "enabled": Key((bool,), False, None, "the board speaks (the installer adds espeak-ng)"),
        "output": Key(
            (str,),
            "auto",
            one_of(*VOICE_OUTPUTS.choices()),
            "espeak: espeak-ng to ALSA (aplay); sim: a 🔊 line in the terminal",
        ),
        "device": Key((str,), "", None, "aplay's ALSA device, e.g. plughw:1 (empty: default)"),
        "volume": Key((int, float), 0.5, between(0, 1), "staff: voice.set"),
        "rate": Key((int,), 150, between(80, 450), "words a minute"),
        "what": Key(
            (list,),
            ["guide", "events"],
            _voice_what,
            "guide, events, accessibility (each press and the board read out)",
        ),
    },
    "remote": {
        "enabled": Key((bool,), False, None, "play boards elsewhere over the broker"),
        "name": Key((str,), "", None, "this board's name to the other players (empty: board id)"),
        "gone_s": Key((int, float), 120, between(1, 86_400), "absence before a claim"),
        "invite_s": Key((int, float), 60, between(5, 3600), "how long an invitation stands"),
        "accept_from": Key((list,), [], broker_users, "exhibition mode: the boards it accepts"),
        "pace": Key((str,), "step", one_of("step", "flow", "instant"), "the remote side's moves"),
    },
    "daemon": {
        "tick_hz": Key((int, float), 50, between(1, 1000)),
        "log_level": Key((str,), "info", one_of("debug", "info", "warning", "error")),
    },
}


class Config(Mapping[str, Mapping[str, Any]]):
    """Validated configuration; every key has a value. The composition reads its tables as
    typed settings (`config.board`, `.leds`, `.game`, `.store`, `.daemon`, `.mqtt`,
    `.remote`, `.exhibit`, `.voice`); tools that print or check a config may read it as
    tables of keys (`config["game"]["level"]`)."""

    def __init__(self, sections: dict[str, dict[str, Any]], source: str) -> None:
        self._sections = sections
        self.source = source
        self.board = from_table(BoardConfig, sections["board"])
        self.leds = from_table(LedConfig, sections["leds"])
        self.game = from_table(GameConfig, sections["game"])
        self.store = from_table(StoreConfig, sections["store"])
        self.daemon = from_table(DaemonConfig, sections["daemon"])
        self.mqtt = from_table(MqttConfig, sections["mqtt"])
        self.remote = from_table(RemoteConfig, sections["remote"])
        self.exhibit = from_table(ExhibitConfig, sections["exhibit"])
        self.voice = from_table(VoiceConfig, sections["voice"])

    def __getitem__(self, section: str) -> Mapping[str, Any]:
        return self._sections[section]

    def __iter__(self) -> Any:
        return iter(self._sections)

    def __len__(self) -> int:
        return len(self._sections)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """A plain copy (for `settings.get` and logs; the API token is masked)."""
        out = {name: dict(values) for name, values in self._sections.items()}
        if out["api"].get("token"):
            out["api"]["token"] = "***"
        return out


_SECRETS = frozenset({"token", "staff_pin"})


def validate(data: Mapping[str, Any], source: str = "<defaults>") -> Config:
    """Check a decoded TOML document against SCHEMA and fill in defaults."""
    sections: dict[str, dict[str, Any]] = {}
    for name in data:
        if name not in SCHEMA:
            raise ConfigError(
                f"{source}: unknown section [{name}]; expected one of {', '.join(SCHEMA)}"
            )
        if not isinstance(data[name], Mapping):
            raise ConfigError(f"{source}: [{name}] must be a table")
    for name, keys in SCHEMA.items():
        given = data.get(name, {})
        values: dict[str, Any] = {}
        for key in given:
            if (name, key) in REMOVED:
                raise ConfigError(f"{source}: {name}.{key} {REMOVED[(name, key)]}")
            if key not in keys:
                raise ConfigError(
                    f"{source}: unknown key {name}.{key}; expected one of {', '.join(keys)}"
                )
        for key, spec in keys.items():
            if key not in given:
                values[key] = spec.default
                continue
            value = given[key]
            ok_type = isinstance(value, spec.types) and not (
                isinstance(value, bool) and bool not in spec.types
            )
            if not ok_type:
                want = " or ".join(t.__name__ for t in spec.types)
                raise ConfigError(f"{source}: {name}.{key} = {value!r}: must be {want}")
            if spec.check is not None:
                reason = spec.check(value)
                if reason:
                    shown = "(hidden)" if key in _SECRETS else repr(value)
                    raise ConfigError(f"{source}: {name}.{key} = {shown}: {reason}")
            values[key] = value
        sections[name] = values
    board = sections["board"]
    if board["languages"] and board["language"] not in board["languages"]:
        raise ConfigError(
            f"{source}: board.languages = {board['languages']!r}: must include board.language "
            f"({board['language']!r}), the venue's default"
        )
    return Config(sections, source)


def load(path: str | os.PathLike[str] | None) -> Config:
    """Read and validate a TOML file; None gives the built-in defaults."""
    if path is None:
        return validate({})
    source = str(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{source}: not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
        ) from exc
    except RecursionError:  # tomllib recurses per nesting level: `a = [[[[…` thousands deep
        raise ConfigError(f"{source}: not a config: values nested too deeply") from None
    return validate(data, source)
