"""`kiothi-board bom`: the bill of materials and the LED power budget, from a pin map and a config.

The budget uses the current model of `kiothi_board.hardware.layout` (~20 mA per colour channel
at full value, ~1 mA idle per LED, scaled by brightness): full white at the brightness cap is
what the rings could draw; `leds.supply_milliamps` is what the driver's limiter lets them draw.
The supply is chosen for that limit at 75 % of its rating.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from kiothi_board.config import Config, load
from kiothi_board.errors import ConfigError
from kiothi_board.hardware.layout import estimate_milliamps
from kiothi_board.hardware.pinmap import PIT_NAMES, PinMap, load_map
from kiothi_board.hardware.registry import map_from_config
from kiothi_board.hardware.spi_transfer import frame_bytes, needed_bufsiz
from kiothi_board.helptext import DefaultsFormatter

RINGS = {  # LEDs per ring → (part, part number, outer diameter)
    12: ("WS2812B ring, 12 LEDs", "Adafruit 1643", "37 mm"),
    16: ("WS2812B ring, 16 LEDs", "Adafruit 1463", "45 mm"),
    24: ("WS2812B ring, 24 LEDs", "Adafruit 1586", "66 mm"),
}
SUPPLIES = (  # (rated amps at 5 V, part, part number), smallest first
    (3.0, "5 V 3 A (15 W) LED supply", "Mean Well RS-15-5"),
    (4.0, "5 V 4 A (20 W) LED supply", "Mean Well GST25E05-P1J"),
    (7.0, "5 V 7 A (35 W) LED supply", "Mean Well LRS-35-5"),
    (10.0, "5 V 10 A (50 W) LED supply", "Mean Well LRS-50-5"),
    (18.0, "5 V 18 A (90 W) LED supply", "Mean Well LRS-100-5"),
)
LEDS_PER_FEED = 160
"""One power injection point at the chain start, then one after about every 160 LEDs."""


@dataclass(frozen=True, slots=True)
class Budget:
    """The LED power budget of one board."""

    rings: int
    leds_per_ring: int
    leds: int
    max_brightness: float
    ma_per_led_white: float
    """One LED at full white at the brightness cap, idle current included."""
    full_white_ma: float
    idle_ma: float
    limit_ma: float
    supply_amps: float
    supply: str
    supply_part: str
    injection_after_rings: tuple[int, ...]
    """Feed points: 0 = before the first ring, k = after ring k (chain order)."""
    spi_bytes: int
    """What neopixel_spi writes for one frame: 24 bytes a LED and 2 × 64 reset bytes."""
    spidev_bufsiz: int
    """The `spidev.bufsiz` the installer sets for one transfer a frame (0: 4096 is enough)."""


def budget(config: Config) -> Budget:
    """The power budget for the config's `[leds]` table."""
    leds = config["leds"]
    per_ring = int(leds["leds_per_ring"])
    cap = float(leds["max_brightness"])
    count = len(PIT_NAMES) * per_ring
    white = estimate_milliamps([(255, 255, 255)] * count, brightness=cap)
    idle = estimate_milliamps([(0, 0, 0)] * count)
    limit = min(float(leds["supply_milliamps"]), white)
    need = limit / 1000 / 0.75
    amps, name, part = next((s for s in SUPPLIES if s[0] >= need), SUPPLIES[-1])
    feeds = 1 + math.ceil(count / LEDS_PER_FEED)
    rings = len(PIT_NAMES)
    after = tuple(round(i * rings / (feeds - 1)) for i in range(feeds))
    spi_bytes = frame_bytes(count)
    bufsiz = needed_bufsiz(count)
    return Budget(
        rings=rings,
        leds_per_ring=per_ring,
        leds=count,
        max_brightness=cap,
        ma_per_led_white=round(white / count, 2),
        full_white_ma=round(white, 1),
        idle_ma=round(idle, 1),
        limit_ma=round(limit, 1),
        supply_amps=amps,
        supply=name,
        supply_part=part,
        injection_after_rings=after,
        spi_bytes=spi_bytes,
        spidev_bufsiz=bufsiz,
    )


def parts(pin_map: PinMap, config: Config) -> list[tuple[str, str, str, str]]:
    """(quantity, part, part number, note) rows for the board the map and config describe."""
    b = budget(config)
    ring, ring_part, size = RINGS[b.leds_per_ring]
    sensor = bool(config["board"]["sensor"])
    rows = [
        ("1", "Raspberry Pi 4 (2 GB), 3B+, 5 or Zero 2 W + 16 GB microSD", "", "any of them"),
        (
            "1",
            "Official Pi power supply: 5.1 V 3 A USB-C (Pi 4), 5.1 V 5 A USB-C (Pi 5), "
            "5.1 V 2.5 A micro-USB (3B+, Zero 2 W)",
            "",
            "the Pi only",
        ),
        ("20", ring, ring_part, f"{size}; all rings the same size"),
        (
            "20",
            "IR break-beam sensor, open collector" if sensor else "Push button, normally open",
            "Adafruit 2167 (5 mm) / 2168 (3 mm)"
            if sensor
            else "12 mm tactile, e.g. Omron B3F-4055",
            "board.sensor = true" if sensor else "one per pit",
        ),
    ]
    if pin_map.controls:
        rows.append((str(len(pin_map.controls)), "Panel push button", "16 mm, NO", "controls"))
    if pin_map.board == "pico":
        rows.append(("1", "Raspberry Pi Pico (RP2040) + USB cable", "SC0915", "co-processor"))
    rows += [
        ("1", b.supply, b.supply_part, f"the LEDs; limiter at {b.limit_ma / 1000:.1f} A"),
        (
            "1",
            "Level shifter 3.3 V → 5 V, quad buffer",
            "SN74AHCT125N",
            "+ 100 nF on its VCC; tie the used buffer's active-low 1OE (pin 1) to GND",
        ),
        ("1", "Fuse holder + fuse, slow-blow", f"{b.supply_amps:g} A", "in the LED supply's +5 V"),
        ("1", "Resistor 330 Ω, ¼ W", "", "in the data line at the first ring"),
        ("1", "Capacitor 1000 µF 10 V electrolytic", "", "across the LED supply"),
        (str(len(b.injection_after_rings)), "Power feed, 18 AWG pair", "", "injection points"),
        ("—", "24–26 AWG hook-up wire, 40-pin IDC ribbon", "", "signals"),
    ]
    return rows + voice_parts(config.voice.enabled)


def voice_parts(enabled: bool) -> list[tuple[str, str, str, str]]:
    """The voice's parts (docs/install.md, "A voice"): counted with `[voice]` on, else
    listed as the option they are."""
    qty = "1" if enabled else "(1)"
    note = "the voice" if enabled else "only with `[voice]` on"
    return [
        (
            qty,
            "USB speaker (USB audio, powered by the port), or a 3.5 mm jack's amplifier "
            "+ speaker (PAM8302 2.5 W mono + 4 Ω 3 W)",
            "e.g. Adafruit 3369 (USB) / Adafruit 2130 + 1314",
            f"{note}; the Pi 5 and Zero 2 W have no 3.5 mm jack: USB (or HDMI audio)",
        ),
    ]


def markdown(pin_map: PinMap, config: Config) -> str:
    """The generated "bill of materials and power budget" section of hardware/README.md."""
    b = budget(config)
    lines = [
        "| Qty | Part | Part number | Note |",
        "|-----|------|-------------|------|",
        *(f"| {q} | {p} | {n} | {note} |" for q, p, n, note in parts(pin_map, config)),
        "",
        f"Power budget ({b.rings} rings × {b.leds_per_ring} LEDs = {b.leds} LEDs, "
        f"`leds.max_brightness = {b.max_brightness}`):",
        "",
        "| Quantity | Value |",
        "|----------|-------|",
        f"| One LED, full white at the cap | {b.ma_per_led_white} mA |",
        f"| All rings full white at the cap | {b.full_white_ma / 1000:.2f} A |",
        f"| All rings dark (idle) | {b.idle_ma / 1000:.2f} A |",
        f"| The limiter's budget (`leds.supply_milliamps`) | {b.limit_ma / 1000:.2f} A |",
        f"| LED supply (limit ≤ 75 % of its rating) | {b.supply} ({b.supply_part}) |",
        "| Power injection | "
        + ", ".join("chain start" if k == 0 else f"after ring {k}" for k in b.injection_after_rings)
        + " |",
        f"| SPI bytes per frame | {b.spi_bytes}"
        + (
            f" (one transfer: `spidev.bufsiz={b.spidev_bufsiz}` in cmdline.txt; the installer)"
            if b.spidev_bufsiz
            else ""
        )
        + " |",
    ]
    return "\n".join(lines) + "\n"


def _config(path: str | None) -> Config:
    return load(path) if path else load(None)


def main(argv: Sequence[str]) -> int:
    """`kiothi-board bom [--map MAP] [--config FILE] [--json]`."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board bom",
        description="Bill of materials and LED power budget.",
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("--map", help="a pin map name or file (default: the config's wiring)")
    parser.add_argument("--config", help="TOML configuration file (default: built-in)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    try:
        config = _config(args.config)
        pin_map = load_map(args.map) if args.map else map_from_config(*_tables(config))[0]
    except ConfigError as exc:
        print(f"kiothi-board bom: {exc}", file=sys.stderr)
        return 2
    if args.json:
        rows = [
            dict(zip(("qty", "part", "number", "note"), r, strict=True))
            for r in parts(pin_map, config)
        ]
        print(json.dumps({"parts": rows, "budget": asdict(budget(config))}, indent=2))
    else:
        print(markdown(pin_map, config), end="")
    return 0


def _tables(config: Config) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    return config["board"], config["leds"]
