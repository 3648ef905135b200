"""The parts of `kiothi-board doctor` that need no state: versions, model, SPI, LED sink,
the waits of the press test and its verdict."""

from __future__ import annotations

import platform
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from kiothi_board import __version__
from kiothi_board.clock import Clock
from kiothi_board.config import Config
from kiothi_board.hardware.protocols import PixelSink
from kiothi_board.hardware.registry import LED_OUTPUTS, PIT_INPUTS
from kiothi_board.hardware.spi_transfer import plan, read_bufsiz
from kiothi_board.tools import bom
from kiothi_board.tools.doctor_io import RawInputs

Status = Literal["ok", "warn", "fail", "skip"]

PACKAGES = (
    "gpiozero",
    "lgpio",
    "adafruit-blinka",
    "adafruit-circuitpython-neopixel-spi",
    "adafruit-circuitpython-neopixel",
    "gpiod",
    "pyserial",
    "mpremote",
)
MODELS = (  # /proc/device-tree/model text → pin-map model
    ("Raspberry Pi 5", "pi5"),
    ("Raspberry Pi Zero 2", "zero2w"),
    ("Raspberry Pi 4", "pi4"),
    ("Raspberry Pi 400", "pi4"),
    ("Raspberry Pi Compute Module 4", "pi4"),
    ("Raspberry Pi 3", "pi3"),
)


@dataclass(slots=True)
class Check:
    """One line of the summary."""

    name: str
    status: Status
    detail: str
    data: dict[str, Any] = field(default_factory=dict)


def detect_model(root: Path) -> str | None:
    """The Pi model from the device tree under `root`, None when not a (known) Pi."""
    try:
        text = (root / "proc/device-tree/model").read_bytes().decode(errors="replace")
    except OSError:
        return None
    for prefix, model in MODELS:
        if text.startswith(prefix):
            return model
    return None


def package_version(name: str) -> str | None:
    """The installed version of a pip distribution, None when it is not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def versions(config: Config) -> Check:
    """kiothi-board, Python and the hardware packages; warn when a needed one is missing."""
    found = {name: package_version(name) for name in PACKAGES}
    needed: list[str] = []
    for registry, choice in (
        (PIT_INPUTS, config["board"]["input"]),
        (LED_OUTPUTS, config["leds"]["output"]),
    ):
        real = registry.auto[0] if choice == "auto" else choice
        needed += [name for name in registry[real].packages if name not in needed]
    missing = [name for name in needed if found.get(name) is None]
    have = ", ".join(f"{n} {v}" for n, v in found.items() if v)
    detail = f"kiothi-board {__version__}, Python {platform.python_version()}; {have or 'none'}"
    if missing:
        detail += f"; missing for this config: {', '.join(missing)} (pip install '.[pi]')"
    return Check("versions", "warn" if missing else "ok", detail, {"packages": found})


def ai_core() -> Check:
    """Which core the rules and the AI run on: the native one, or the Python path (slower:
    a warning, unless KIOTHI_CORE=python asked for it)."""
    from kiothi_board import native

    why = native.describe()
    if native.default_core() == "native":
        return Check("ai core", "ok", f"runs {why}", {"core": "native"})
    status: Status = "ok" if native.ENV in why else "warn"
    hint = "" if status == "ok" else " (sudo apt install gcc python3-dev, then reinstall)"
    return Check("ai core", status, f"runs {why}{hint}", {"core": "python"})


def pin_factory(config: Config, model: str | None, injected: Any) -> Check:
    """Which gpiozero pin factory the GPIO inputs get (lgpio on Bookworm, Pi 5 included)."""
    if config["board"]["input"] not in ("gpio", "auto"):
        return Check("gpio", "skip", f"board.input = {config['board']['input']}")
    if injected is not None:
        return Check("gpio", "ok", f"pin factory {type(injected).__name__} (injected)")
    if model is None:
        return Check("gpio", "skip", "not a Raspberry Pi (no /proc/device-tree/model)")
    try:
        from gpiozero import Device  # type: ignore[import-untyped]  # lazy: a Pi library

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # one warning per library tried: the check says it
            factory = Device._default_pin_factory()
    except Exception as exc:  # ImportError, BadPinFactory
        return Check("gpio", "fail", f"no gpiozero pin factory: {exc} (pip install lgpio)")
    name = type(factory).__name__
    status: Status = "ok" if name == "LGPIOFactory" or model != "pi5" else "fail"
    return Check("gpio", status, f"pin factory {name} on {model}")


def spi(config: Config, root: Path, model: str | None) -> Check:
    """SPI0 enabled, one frame in one spidev transfer, the core clock fixed."""
    output = config["leds"]["output"]
    if output not in ("neopixel", "auto"):
        return Check("spi", "skip", f"leds.output = {output}: SPI not used")
    if not (root / "dev/spidev0.0").exists():
        status: Status = "fail" if output == "neopixel" else "warn"
        return Check(
            "spi",
            status,
            "no /dev/spidev0.0: add dtparam=spi=on and dtoverlay=spi0-0cs to "
            "/boot/firmware/config.txt and reboot",
        )
    transfer = plan(bom.budget(config).leds, read_bufsiz(root), root)
    if transfer.problem:
        return Check("spi", "fail", transfer.problem, {"transfers": transfer.transfers})
    problems = []
    if model in ("pi3", "pi4", "zero2w"):
        try:
            boot = (root / "boot/firmware/config.txt").read_text()
        except OSError:
            boot = ""
        if not re.search(r"^\s*core_freq(_min)?\s*=", boot, re.MULTILINE):
            want = "core_freq=500, core_freq_min=500" if model == "pi4" else "core_freq=250"
            problems.append(f"set {want} in /boot/firmware/config.txt (stable SPI timing)")
    detail = (
        f"/dev/spidev0.0; a frame is {transfer.frame_bytes} SPI bytes, spidev.bufsiz "
        f"{transfer.bufsiz}: 1 transfer per frame"
    )
    if problems:
        return Check("spi", "warn", f"{detail}; " + "; ".join(problems), {"transfers": 1})
    return Check("spi", "ok", detail, {"transfers": 1})


def open_sink(config: Config, root: Path = Path("/")) -> PixelSink:
    """The LED output the daemon would open, at the brightness cap (KiothiError if it cannot)."""
    from kiothi_board.clock import SystemClock
    from kiothi_board.drivers import Drivers

    leds = config["leds"]
    cap = leds["max_brightness"]
    drivers = Drivers(
        config, clock=SystemClock(), resources=[], leds={**leds, "brightness": cap}, root=root
    )
    choice = leds["output"]
    registry = LED_OUTPUTS
    entry = registry[registry.auto[0] if choice == "auto" else choice]
    return entry.open(drivers)


def press_window(
    source: RawInputs,
    mark: int,
    stuck: int,
    clock: Clock,
    wait: Callable[[float], None],
    deadline: float,
) -> list[int]:
    """Every slot (not stuck) activated from `mark` until all of them are released again.

    Empty when nothing answered by `deadline`. A short between two pit wires activates both
    in either order, so the whole window counts, not the first edge.
    """
    while True:
        source.changed.clear()
        fresh = [s for s in source.activations(mark) if not stuck >> s & 1]
        if fresh:
            break
        remaining = deadline - clock.now()
        if remaining <= 0:
            return []
        wait(remaining)
    release_by = clock.now() + max(deadline - clock.now(), 1.0)
    while True:
        source.changed.clear()
        seen = sorted({s for s in source.activations(mark) if not stuck >> s & 1})
        if not any(source.levels() >> s & 1 for s in seen) or clock.now() >= release_by:
            return seen
        wait(release_by - clock.now())


def verdict(slot: int, seen: list[int], names: list[str]) -> str:
    """ok / dead / crossed:OTHER / short:OTHER+… for one press of `slot`."""
    others = [names[s] for s in seen if s != slot]
    if not seen:
        return "dead"
    if slot not in seen:
        return "crossed:" + "+".join(others)
    return "short:" + "+".join(others) if others else "ok"


def pits_check(results: dict[str, str], where: dict[str, str] | None = None) -> Check:
    """The verdict of the press test: `results` is input → ok / stuck / dead / crossed:OTHER /
    short:OTHER; `where` names each input's pin ("GPIO4, header pin 7")."""
    where = where or {}

    def at(name: str) -> str:
        return f"{name} ({where[name]})" if name in where else name

    bad = {name: r for name, r in results.items() if r != "ok"}
    ok = len(results) - len(bad)
    parts = [f"{ok}/{len(results)} inputs ok"]
    for kind, label in (("stuck", "stuck (active at start)"), ("dead", "dead (never pressed)")):
        names = [at(n) for n, r in bad.items() if r == kind]
        if names:
            parts.append(f"{label}: {', '.join(names)}")
    crossed = [
        f"{at(n)} (pressing it, {r.split(':')[1]} answered)"
        for n, r in bad.items()
        if r.startswith("crossed:")
    ]
    if crossed:
        parts.append(f"crossed: {', '.join(crossed)}")
    shorts = [
        f"{at(n)} with {', '.join(at(o) for o in r.split(':')[1].split('+'))}"
        for n, r in bad.items()
        if r.startswith("short:")
    ]
    if shorts:
        parts.append(f"shorted (active together): {'; '.join(shorts)}")
    return Check("pits", "fail" if bad else "ok", "; ".join(parts), {"pits": results})
