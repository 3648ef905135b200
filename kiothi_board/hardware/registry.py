"""The one registry of pit-input, LED-output and voice drivers: name → factory and a line.

`board.input`, `leds.output` and `voice.output` may name any driver listed here, or `auto`.
The config takes its allowed values from the registries' `choices()`, `kiothi_board.drivers`
opens them, `kiothi-board doctor` lists their packages: adding a driver touches this file only.
Hardware libraries are imported inside the factories, so this module imports anywhere.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from kiothi_board.clock import Clock
from kiothi_board.hardware.pinmap import BOARDS, PIT_NAMES, PinMap, Problem, load_map, parse_pin
from kiothi_board.hardware.protocols import PitInput, PixelSink, VoiceOutput

if TYPE_CHECKING:
    from kiothi_board.config_tables import BoardConfig, LedConfig, VoiceConfig
    from kiothi_board.hardware.layout import RingLayout
    from kiothi_board.hardware.link import CoprocessorLink

__all__ = [
    "LED_OUTPUTS",
    "PIT_INPUTS",
    "VOICE_OUTPUTS",
    "Driver",
    "DriverContext",
    "Registry",
    "map_from_config",
]

T = TypeVar("T")


class DriverContext(Protocol):
    """What a factory may use: the config's tables, the clocks, the shared link, the root."""

    board: BoardConfig
    leds: LedConfig
    voice: VoiceConfig
    clock: Clock
    device_clock: Clock
    root: Path

    def coprocessor(self, key: str) -> CoprocessorLink:
        """The co-processor link, opened once (`key` names who asked, for the error)."""
        ...

    def layout(self) -> RingLayout:
        """The ring layout `leds.*` describes."""
        ...


@dataclass(frozen=True, slots=True)
class Driver(Generic[T]):
    """One driver: how to open it, what it is, what it needs."""

    description: str
    """One line for the config's help and `doctor`."""
    what: str
    """How a missing driver is named: `leds.output = 'neopixel': <what> not available: …`."""
    open: Callable[[DriverContext], T]
    packages: tuple[str, ...] = ()
    """The pip distributions it needs (the `pi` extra), for `doctor`'s versions check."""
    led_bus: str = "none"
    """LED outputs: the Pi pins the data line takes (`pinmap` bus: spi, pwm or none)."""


@dataclass(frozen=True, slots=True)
class Registry(Generic[T]):
    """The drivers of one config key; `auto` tries `auto[0]` and falls back to `auto[1]`."""

    key: str
    drivers: Mapping[str, Driver[T]]
    auto: tuple[str, str]

    def choices(self) -> tuple[str, ...]:
        """The values the config accepts: `auto`, then every driver."""
        return ("auto", *self.drivers)

    def __getitem__(self, name: str) -> Driver[T]:
        return self.drivers[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.drivers)


# -- pit inputs ---------------------------------------------------------------------------------


def _timing(ctx: DriverContext, clock: Clock) -> dict[str, Any]:
    board = ctx.board
    return {
        "clock": clock,
        "debounce": board.debounce_ms / 1000,
        "hold_time": board.hold_s,
        "stuck_time": board.stuck_s,
        "sensor": board.sensor,
    }


def _gpio_input(ctx: DriverContext) -> PitInput:
    from kiothi_board.hardware.gpio import GpioPitInput

    with warnings.catch_warnings():
        # gpiozero warns once per pin library it tries; the caller's one warning suffices.
        warnings.simplefilter("ignore")
        return GpioPitInput(
            ctx.board.pins,
            control_pins=ctx.board.control_pins,
            pull_up=ctx.board.pull_up,
            **_timing(ctx, ctx.clock),
        )


def _coprocessor_input(ctx: DriverContext) -> PitInput:
    from kiothi_board.hardware.link_devices import LinkPitInput

    return LinkPitInput(ctx.coprocessor("board.input"), **_timing(ctx, ctx.device_clock))


def _fake_input(ctx: DriverContext) -> PitInput:
    from kiothi_board.hardware.fakes import FakePitInput

    return FakePitInput(ctx.clock)


PIT_INPUTS: Registry[PitInput] = Registry(
    "board.input",
    {
        "gpio": Driver(
            "the Pi's GPIO pins (gpiozero with lgpio), board.pins",
            "GPIO pit input",
            _gpio_input,
            ("gpiozero", "lgpio"),
        ),
        "coprocessor": Driver(
            "a Raspberry Pi Pico on USB (firmware/kiothi_io) at board.port",
            "co-processor pit input",
            _coprocessor_input,
            ("pyserial", "mpremote"),
        ),
        "sim": Driver("simulated: keys, the web page, the API", "simulated pit input", _fake_input),
    },
    auto=("gpio", "sim"),
)

# -- LED outputs --------------------------------------------------------------------------------


def _limits(ctx: DriverContext) -> dict[str, Any]:
    leds = ctx.leds
    return {
        "brightness": leds.brightness,
        "max_brightness": leds.max_brightness,
        "supply_milliamps": leds.supply_milliamps,
        "pixel_order": leds.pixel_order,
    }


def _spi_rings(ctx: DriverContext) -> PixelSink:
    from kiothi_board.hardware.neopixel import NeoPixelRings

    return NeoPixelRings(ctx.layout(), bus="spi", root=ctx.root, **_limits(ctx))


def _pwm_rings(ctx: DriverContext) -> PixelSink:
    from kiothi_board.hardware.neopixel import NeoPixelRings

    return NeoPixelRings(ctx.layout(), bus="pwm", pin_name=ctx.leds.pin, **_limits(ctx))


def _fake_rings(ctx: DriverContext) -> PixelSink:
    from kiothi_board.hardware.fakes import FakePixelSink

    return FakePixelSink(ctx.leds.leds_per_ring, keep=4)


LED_OUTPUTS: Registry[PixelSink] = Registry(
    "leds.output",
    {
        "neopixel": Driver(
            "NeoPixel rings on SPI0 MOSI (GPIO10; no root, every Pi)",
            "NeoPixel LED output",
            _spi_rings,
            ("adafruit-blinka", "adafruit-circuitpython-neopixel-spi", "gpiod"),
            led_bus="spi",
        ),
        "neopixel-pwm": Driver(
            "NeoPixel rings on leds.pin by PWM (rpi_ws281x; root, not a Pi 5)",
            "NeoPixel PWM LED output",
            _pwm_rings,
            ("adafruit-blinka", "adafruit-circuitpython-neopixel"),
            led_bus="pwm",
        ),
        "sim": Driver("simulated: the terminal and the web twin", "simulated LEDs", _fake_rings),
    },
    auto=("neopixel", "sim"),
)


# -- voice outputs ------------------------------------------------------------------------------


def _espeak_voice(ctx: DriverContext) -> VoiceOutput:
    from kiothi_board.hardware.voice import EspeakVoice

    v = ctx.voice
    return EspeakVoice(rate=v.rate, volume=v.volume, device=v.device, root=ctx.root)


def _sim_voice(ctx: DriverContext) -> VoiceOutput:
    from kiothi_board.hardware.voice import SimVoice

    return SimVoice()


VOICE_OUTPUTS: Registry[VoiceOutput] = Registry(
    "voice.output",
    {
        "espeak": Driver(
            "espeak-ng's voices (en, sw, fr, de) played by aplay on ALSA: jack, HDMI, USB",
            "espeak-ng voice output",
            _espeak_voice,
        ),
        "sim": Driver(
            "simulated: a \U0001f50a line in the terminal", "simulated voice", _sim_voice
        ),
    },
    auto=("espeak", "sim"),
)


def map_from_config(
    board: Mapping[str, Any], leds: Mapping[str, Any]
) -> tuple[PinMap, list[Problem]]:
    """The wiring a config describes (its `[board]` and `[leds]` tables), and pin-name problems.

    A co-processor board is the packaged `coprocessor` map (its pins live in the firmware's
    config); otherwise `board.pins` / `board.control_pins` on the Pi with the LED bus that
    `leds.output` drives.
    """
    output = leds.get("output", "auto")
    if board.get("input") == "coprocessor":
        return load_map("coprocessor"), []
    real = LED_OUTPUTS.auto[0] if output == "auto" else output
    bus = LED_OUTPUTS[real].led_bus if real in LED_OUTPUTS.drivers else "none"
    problems: list[Problem] = []

    def gpio(values: Any, key: str) -> tuple[int, ...]:
        out = []
        for i, value in enumerate(values):
            pin = parse_pin(value)
            if pin is None:
                problems.append(Problem(f"board.{key}[{i}]", f"unknown pin name {value!r}"))
            else:
                out.append(pin)
        return tuple(out)

    pits = gpio(board.get("pins", ()), "pins")
    controls = gpio(board.get("control_pins", ()), "control_pins")
    pin_map = PinMap(
        name="config",
        title=f"the config's board.pins, LEDs on {bus}",
        board="pi",
        models=BOARDS["pi"].models,
        leds=bus,
        uart=True,
        pits=pits,
        controls=controls,
        source="config",
        pull_up=board.get("pull_up", True) is True,
        config_keys=True,
    )
    if len(pits) != len(PIT_NAMES) and not problems:
        problems.append(Problem("board.pins", f"must list {len(PIT_NAMES)} pins, got {len(pits)}"))
    return pin_map, problems
