"""The board's pin maps: which GPIO each pit and control button is wired to, read from TOML.

`kiothi_board/hardware/maps/*.toml` (package data) is the single source of the wirings:
the config defaults, the GPIO driver defaults, the tables in hardware/README.md and the
wiring diagram are made from it. `check_map` finds what would go wrong on the bench: a pin
used twice, a pin on the LED bus, the UART or the ID EEPROM, a pin the board lacks.
Pure Python, no hardware library: the config and the CLI import it on any machine.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from kiothi_board.errors import ConfigError

__all__ = [
    "BOARDS",
    "MAP_NAMES",
    "PIT_NAMES",
    "PinMap",
    "Problem",
    "check_map",
    "load_map",
    "parse_pin",
]

PIT_NAMES: tuple[str, ...] = tuple(f"S{i}" for i in range(1, 11)) + tuple(
    f"N{i}" for i in range(1, 11)
)
"""Pit names in index order 0…19 (RULES.md R1)."""

MAP_NAMES = ("direct", "coprocessor")
"""The packaged maps (kiothi_board/hardware/maps/NAME.toml)."""

_PI_HEADER: dict[int, int] = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32,
    13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16,
    24: 18, 25: 22, 26: 37, 27: 13,
}  # fmt: skip
_PI_POWER: dict[int, str] = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"} | {
    n: "GND" for n in (6, 9, 14, 20, 25, 30, 34, 39)
}
_PICO_HEADER: dict[int, int] = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip
_PICO_POWER: dict[int, str] = (
    {30: "RUN", 35: "ADC_VREF", 36: "3V3", 37: "3V3_EN"}
    | {39: "VSYS", 40: "VBUS"}
    | {n: "GND" for n in (3, 8, 13, 18, 23, 28, 33, 38)}
)


@dataclass(frozen=True, slots=True)
class HostBoard:
    """A board's header: GPIO → physical pin, the other pins, its models and its buses."""

    label: str
    gpio_prefix: str
    header: Mapping[int, int]
    power: Mapping[int, str]
    models: tuple[str, ...]
    reserved: Mapping[str, Mapping[int, str]]
    """Bus name → GPIO → what it carries; which buses count depends on the map."""
    fixed_pull_up: tuple[int, ...] = ()
    """GPIOs with a resistor to 3.3 V on the board: fine only for active-low buttons."""


BOARDS: dict[str, HostBoard] = {
    "pi": HostBoard(
        "Raspberry Pi 40-pin header",
        "GPIO",
        _PI_HEADER,
        _PI_POWER,
        ("pi3", "pi4", "pi5", "zero2w"),
        {
            "spi": {9: "SPI0 MISO", 10: "SPI0 MOSI (LED data)", 11: "SPI0 SCLK"},
            "pwm": {18: "PWM0 (LED data)"},
            "uart": {14: "UART TX", 15: "UART RX"},
            "id": {0: "ID EEPROM SDA", 1: "ID EEPROM SCL"},
        },
        fixed_pull_up=(2, 3),
    ),
    "pico": HostBoard(
        "Raspberry Pi Pico (RP2040)",
        "GP",
        _PICO_HEADER,
        _PICO_POWER,
        ("pico",),
        {"uart": {0: "UART0 TX (debug)", 1: "UART0 RX (debug)"}},
    ),
}

LED_BUSES = ("spi", "pwm", "none")


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a map: the key it is about and why."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


@dataclass(frozen=True, slots=True)
class PinMap:
    """A wiring: 20 pit pins (index order S1…N10), up to 4 control pins, the LED bus."""

    name: str
    title: str
    board: str
    models: tuple[str, ...]
    leds: str
    uart: bool
    pits: tuple[int, ...]
    controls: tuple[int, ...]
    source: str = ""
    pull_up: bool = True
    """Inputs use the internal pull-up (buttons to ground); False: external pulls/sensors."""
    config_keys: bool = False
    """Name pins by config key (`board.pins[3] (S4)`) instead of map key (`pits.S4`)."""

    @property
    def header(self) -> HostBoard:
        """The board this map is for."""
        return BOARDS[self.board]

    def assignments(self) -> list[tuple[str, int]]:
        """(key, GPIO) for every pin the map uses: `pits.S1`…, `controls.0`…."""
        if self.config_keys:
            pits = [
                (f"board.pins[{i}] ({n})", p)
                for i, (n, p) in enumerate(zip(PIT_NAMES, self.pits, strict=False))
            ]
            return pits + [(f"board.control_pins[{i}]", p) for i, p in enumerate(self.controls)]
        pits = [(f"pits.{name}", pin) for name, pin in zip(PIT_NAMES, self.pits, strict=False)]
        return pits + [(f"controls.{i}", pin) for i, pin in enumerate(self.controls)]

    def reserved(self) -> dict[int, str]:
        """GPIO → what it is kept for, by the buses this map uses."""
        buses = self.header.reserved
        out: dict[int, str] = dict(buses.get("id", {}))
        if self.leds in buses:
            out.update(buses[self.leds])
        if self.uart:
            out.update(buses.get("uart", {}))
        return out


def _int_pin(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key}: must be a GPIO number, got {value!r}")
    return value


def _table(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {key} must be a table, got {value!r}")
    return value


def parse_map(data: Mapping[str, Any], source: str) -> PinMap:
    """Build a `PinMap` from parsed TOML; ConfigError names the file and the key."""
    known = {"name", "title", "board", "models", "leds", "uart", "pits", "controls"}
    for key in data:
        if key not in known:
            raise ConfigError(f"{source}: unknown key {key!r} (known: {', '.join(sorted(known))})")
    board = data.get("board", "pi")
    if board not in BOARDS:
        raise ConfigError(f"{source}: board must be one of {', '.join(BOARDS)}, got {board!r}")
    leds = data.get("leds", "spi")
    if leds not in LED_BUSES:
        raise ConfigError(f"{source}: leds must be one of {', '.join(LED_BUSES)}, got {leds!r}")
    pits_table = _table(data, "pits", source)
    for key in pits_table:
        if key not in PIT_NAMES:
            raise ConfigError(f"{source}: pits.{key}: not a pit name (S1…S10, N1…N10)")
    missing = [name for name in PIT_NAMES if name not in pits_table]
    if missing:
        raise ConfigError(f"{source}: pits: no pin for {', '.join(missing)}")
    pits = tuple(_int_pin(pits_table[n], f"{source}: pits.{n}") for n in PIT_NAMES)
    controls_table = _table(data, "controls", source)
    if set(controls_table) - {str(i) for i in range(4)}:
        raise ConfigError(f"{source}: controls: keys must be 0…3, got {sorted(controls_table)}")
    if sorted(controls_table) != [str(i) for i in range(len(controls_table))]:
        raise ConfigError(f"{source}: controls: indexes must run 0, 1, … without gaps")
    controls = tuple(
        _int_pin(controls_table[str(i)], f"{source}: controls.{i}")
        for i in range(len(controls_table))
    )
    models = data.get("models", list(BOARDS[board].models))
    if not isinstance(models, list) or not all(m in BOARDS[board].models for m in models):
        raise ConfigError(
            f"{source}: models must be a list from {', '.join(BOARDS[board].models)}, "
            f"got {models!r}"
        )
    return PinMap(
        name=str(data.get("name", Path(source).stem)),
        title=str(data.get("title", "")),
        board=board,
        models=tuple(models),
        leds=leds,
        uart=bool(data.get("uart", True)),
        pits=pits,
        controls=controls,
        source=source,
    )


def load_map(name_or_path: str = "direct") -> PinMap:
    """A packaged map by name (`direct`, `coprocessor`) or a TOML file by path."""
    if name_or_path in MAP_NAMES:
        source = f"kiothi_board/hardware/maps/{name_or_path}.toml"
        text = resources.files("kiothi_board.hardware").joinpath("maps", f"{name_or_path}.toml")
        raw = text.read_text(encoding="utf-8")
    else:
        source = name_or_path
        try:
            raw = Path(name_or_path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(
                f"{source}: no such map (packaged maps: {', '.join(MAP_NAMES)})"
            ) from None
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read: {exc.strerror}") from exc
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from exc
    return parse_map(data, source)


def parse_pin(value: object, board: str = "pi") -> int | None:
    """A config pin (17, "17", "GPIO17", "BCM17", "BOARD11") as a GPIO number, None if unknown."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip().upper()
    if text.startswith("BOARD") and text[5:].isdigit():
        by_header = {phys: gpio for gpio, phys in BOARDS[board].header.items()}
        return by_header.get(int(text[5:]))
    for prefix in ("GPIO", "BCM", "GP", ""):
        rest = text[len(prefix) :]
        if text.startswith(prefix) and rest.isdigit():
            return int(rest)
    return None


def check_map(pin_map: PinMap, model: str | None = None) -> list[Problem]:
    """Everything wrong with `pin_map` on `model` (default: every model it lists)."""
    problems: list[Problem] = []
    board = pin_map.header
    models = (model,) if model else pin_map.models
    for m in models:
        if m not in board.models:
            problems.append(Problem("models", f"{m!r} is not a {board.label} model"))
    reserved = pin_map.reserved()
    first: dict[int, str] = {}
    prefix = board.gpio_prefix
    for key, pin in pin_map.assignments():
        if pin in first:
            problems.append(Problem(key, f"{prefix}{pin} is already used by {first[pin]}"))
        else:
            first[pin] = key
        if pin not in board.header:
            problems.append(
                Problem(key, f"{prefix}{pin}: the {'/'.join(models)} has no such header pin")
            )
        elif pin in reserved:
            problems.append(Problem(key, f"{prefix}{pin} collides with {reserved[pin]}"))
        elif pin in board.fixed_pull_up and not pin_map.pull_up:
            problems.append(
                Problem(
                    key,
                    f"{prefix}{pin} has a fixed 1.8 kΩ pull-up: only for active-low buttons "
                    "(board.pull_up = true)",
                )
            )
    return problems
