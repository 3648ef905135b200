"""`kiothi-board doctor`: a self-test for the person who just wired 20 buttons and 320 LEDs.

Checks, in order: versions; the config; the pin map; the pin library (and, on a Pi 5, the
gpiochip it opens); I2C off when inputs use GPIO2/GPIO3; the SPI setup; the game store
(`PRAGMA integrity_check`, the service's own when installed); the co-processor link (hello,
firmware version) when one is configured; an LED walk (each ring in turn, then all rings at
the brightness cap, with the estimated current); "press each pit" and each control button in
turn, reporting stuck, dead, crossed and shorted inputs with their pins. `DESCRIPTION` is
the help the person at the keyboard reads. Clock, pin factory, link, LED sink, prompts,
waits and the file-system root are injected, so tests run it through gpiozero's MockFactory,
the co-processor simulator and fake /proc, /sys, /dev and /boot trees without sleeping.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kiothi_board.clock import Clock
from kiothi_board.config import Config, load
from kiothi_board.errors import ConfigError, KiothiError
from kiothi_board.hardware.layout import RingLayout, estimate_milliamps, limit_current
from kiothi_board.hardware.link import CoprocessorLink
from kiothi_board.hardware.pinmap import PIT_NAMES, check_map
from kiothi_board.hardware.protocols import PixelSink
from kiothi_board.hardware.registry import map_from_config
from kiothi_board.helptext import RawDefaultsFormatter
from kiothi_board.tools import bom, doctor_checks, doctor_system, doctor_usb, doctor_voice
from kiothi_board.tools.doctor_checks import Check
from kiothi_board.tools.doctor_io import GpioLevels, LinkLevels, RawInputs

__all__ = ["Check", "Doctor", "main", "report"]

PIT_MASK = (1 << len(PIT_NAMES)) - 1
WHITE = (255, 255, 255)
SUDO = doctor_system.SUDO
BUSY = " (is the service running? sudo systemctl stop kiothi-board)"


class Doctor:
    """Runs the checks against one config; see the module docstring."""

    def __init__(
        self,
        config: Config,
        *,
        clock: Clock,
        prompt: Callable[[str], None],
        wait: Callable[[float], None] | None = None,
        pause: Callable[[float], None] | None = None,
        say: Callable[[str], None] = lambda _: None,
        pin_factory: Any = None,
        link_factory: Callable[[str], CoprocessorLink] | None = None,
        sink_factory: Callable[[Config], PixelSink] | None = None,
        press_timeout: float = 10.0,
        link_timeout: float = 3.0,
        led_step: float = 0.4,
        root: Path = Path("/"),
        state_dir: str | None = None,
    ) -> None:
        """`prompt(text)` asks the person to act; `wait(s)` blocks for input or s seconds
        (default: the input source's event); `pause(s)` holds an LED step on show."""
        self.config = config
        self.clock = clock
        self.prompt = prompt
        self._wait = wait
        self._pause = pause or _real_pause
        self.say = say
        self.pin_factory = pin_factory
        self.link_factory = link_factory or self._open_link
        self.sink_factory = sink_factory or (lambda c: doctor_checks.open_sink(c, root))
        self.press_timeout = press_timeout
        self.link_timeout = link_timeout
        self.led_step = led_step
        self.root = root
        self.state_dir = state_dir
        self.link: CoprocessorLink | None = None
        self.inputs: RawInputs | None = None
        self.model = doctor_checks.detect_model(root)

    # ------------------------------------------------------------------ the run
    def run(self, *, leds: bool = True, press: bool = True) -> list[Check]:
        """Every check, in order; hardware is released at the end."""
        try:
            checks = [
                doctor_checks.versions(self.config),
                Check("config", "ok", f"{self.config.source}: valid"),
                self.pin_map(),
                doctor_checks.pin_factory(self.config, self.model, self.pin_factory),
                *self.gpio_setup(),
                doctor_checks.spi(self.config, self.root, self.model),
                self.store(),
                self.link_check(),
                doctor_checks.ai_core(),
                doctor_voice.audio(self.config, self.root),
            ]
            if leds:
                checks.append(self.led_walk())
            if press:
                checks.append(self.press_each_pit())
            return checks
        finally:
            self.close()

    def close(self) -> None:
        """Release the inputs and the link."""
        if self.inputs is not None:
            self.inputs.close()
            self.inputs = None
        if self.link is not None:
            self.link.close()
            self.link = None

    # ------------------------------------------------------------------ checks
    def pin_map(self) -> Check:
        """The config's wiring, checked for the detected model."""
        pin_map, problems = map_from_config(self.config["board"], self.config["leds"])
        model = self.model if self.model in pin_map.header.models else None
        problems = problems or check_map(pin_map, model)
        where = f"{pin_map.name} map on {model or 'any model'}"
        if problems:
            return Check("pin map", "fail", f"{where}: " + "; ".join(map(str, problems)))
        return Check("pin map", "ok", f"{where}: no pin used twice or on a bus")

    def gpio_setup(self) -> list[Check]:
        """The Pi 5's gpiochip and I2C, when the inputs are on the Pi's GPIO."""
        if self.config["board"]["input"] not in ("gpio", "auto"):
            return []
        pin_map, _ = map_from_config(self.config["board"], self.config["leds"])
        version = doctor_checks.package_version("gpiozero")
        return [
            doctor_system.gpiochip(self.root, self.model, version),
            doctor_system.i2c(pin_map, self.root, self.model),
        ]

    def store(self) -> Check:
        """The game store the daemon with this config opens, checked read-only."""
        return doctor_system.store(self.config, self.root, self.state_dir)

    def _open_link(self, port: str) -> CoprocessorLink:
        return CoprocessorLink(
            port, clock=self.clock, heartbeat_timeout=self.config["board"]["heartbeat_timeout"]
        )

    def link_check(self) -> Check:
        """Hello and firmware version, when a co-processor is configured."""
        board = self.config["board"]
        if board["input"] != "coprocessor":
            return Check("link", "skip", "no co-processor configured")
        # Which device is (or is not) behind the port: its USB id and path, or the Picos on USB.
        usb, usb_data = doctor_usb.found(self.root, board["port"])
        there = doctor_usb.of_port(self.root, board["port"]) is not None
        try:
            self.link = self.link_factory(board["port"])
        except KiothiError as exc:
            return Check("link", "fail", f"{_busy(str(exc))}; {usb}", usb_data)
        if not self.link.wait_up(self.link_timeout):
            why = self.link.error or "no HELLO_ACK"
            usb = f"; {usb}" if there else ""
            return Check("link", "fail", f"{board['port']}: no answer: {why}{usb}", usb_data)
        info = self.link.device
        assert info is not None
        version = ".".join(map(str, info.firmware))
        detail = (
            f"{board['port']}: firmware {version}, protocol {info.protocol}, {info.pits} pits, "
            f"{info.controls} controls"
        )
        if there:
            detail += f"; {usb}"
        data = {"firmware": version, "pits": info.pits, "controls": info.controls, **usb_data}
        if not info.updatable:
            detail += "; no update mode: kiothi-board firmware install explains the recovery"
            return Check("link", "warn", detail, data)
        return Check("link", "ok", detail, data)

    def led_walk(self) -> Check:
        """Each ring in turn, then all rings at the brightness cap; the estimated current."""
        leds = self.config["leds"]
        if leds["output"] == "sim":
            return Check("leds", "skip", "leds.output = sim")
        try:
            sink = self.sink_factory(self.config)
        except KiothiError as exc:
            return Check("leds", "fail", _busy(str(exc)))
        n = sink.leds_per_ring
        cap = float(leds["max_brightness"])
        dark = [[(0, 0, 0)] * n for _ in PIT_NAMES]
        try:
            for pit, name in enumerate(PIT_NAMES):
                self.say(f"LED walk: ring {name} lit (white); every other ring dark")
                sink.show([[WHITE] * n if p == pit else dark[p] for p in range(len(PIT_NAMES))])
                self._pause(self.led_step)
            self.say(f"LED walk: all rings white at the brightness cap {cap}")
            full = [[WHITE] * n for _ in PIT_NAMES]
            sink.show(full)
            self._pause(self.led_step * 3)
            sink.show(dark)
        except KiothiError as exc:
            return Check("leds", "fail", f"showing a frame failed: {exc}")
        finally:
            sink.close()
        chain = RingLayout(n).to_chain(full)
        asked = estimate_milliamps(chain, brightness=cap)
        supply = float(leds["supply_milliamps"])
        drawn = estimate_milliamps(limit_current(chain, supply, brightness=cap), brightness=cap)
        ring = estimate_milliamps([WHITE] * n, brightness=cap)
        data = {"ring_ma": round(ring), "all_ma": round(asked), "limited_ma": round(drawn)}
        detail = (
            f"{len(PIT_NAMES)} rings walked (one ring ≈ {ring / 1000:.2f} A); all rings at the "
            f"cap {cap}: {asked / 1000:.2f} A estimated, {drawn / 1000:.2f} A after the limiter "
            f"(supply_milliamps {supply:.0f}). Look for a ring that stayed dark or lit out of turn"
        )
        return Check("leds", "ok", detail, data | {"budget": bom.budget(self.config).limit_ma})

    def _source(self) -> RawInputs | Check:
        board = self.config["board"]
        if board["input"] == "sim":
            return Check("pits", "skip", "board.input = sim")
        if board["input"] == "auto" and self.model is None and self.pin_factory is None:
            # As the gpio check: no pins to press here, and the daemon runs the simulator.
            return Check(
                "pits", "skip", "not a Raspberry Pi: board.input = 'auto' runs the simulator"
            )
        try:
            if board["input"] == "coprocessor":
                if self.link is None or not self.link.is_up:
                    return Check("pits", "fail", "no co-processor link for the pits")
                source = LinkLevels(self.link)
                self.inputs = source
                if not source.status_seen.wait(self.link_timeout):
                    return Check("pits", "fail", "the co-processor sends no STATUS")
                return source
            self.inputs = GpioLevels(
                [*board["pins"], *board["control_pins"]],
                pull_up=board["pull_up"],
                pin_factory=self.pin_factory,
            )
            return self.inputs
        except KiothiError as exc:
            return Check("pits", "fail", _busy(str(exc)))

    def press_each_pit(self) -> Check:
        """Prompt for each pit, then each control button; stuck, dead, crossed and shorted
        inputs fail, each named with its GPIO and header pin."""
        source = self._source()
        if isinstance(source, Check):
            return source
        wait = self._wait or source.wait
        names, where = self._inputs()
        stuck = source.levels() & ((1 << len(names)) - 1)
        results: dict[str, str] = {}
        for slot, name in enumerate(names):
            if stuck >> slot & 1:
                results[name] = "stuck"
                continue
            mark = source.mark()
            self.prompt(f"press {name}")
            deadline = self.clock.now() + self.press_timeout
            seen = doctor_checks.press_window(source, mark, stuck, self.clock, wait, deadline)
            results[name] = doctor_checks.verdict(slot, seen, names)
        return doctor_checks.pits_check(results, where)

    def _inputs(self) -> tuple[list[str], dict[str, str]]:
        """Input names by slot (pits, then `control 0`…) and where each is wired."""
        pin_map, _ = map_from_config(self.config["board"], self.config["leds"])
        controls = pin_map.controls
        if self.link is not None and self.link.device is not None:
            controls = controls[: self.link.device.controls]
        names = [*PIT_NAMES, *(f"control {i}" for i in range(len(controls)))]
        header, prefix = pin_map.header.header, pin_map.header.gpio_prefix
        where = {
            name: f"{prefix}{gpio}, header pin {header.get(gpio, '?')}"
            for name, gpio in zip(names, (*pin_map.pits, *controls), strict=False)
        }
        return names, where


def _busy(error: str) -> str:
    """A device another process holds is most often the service's."""
    return error + BUSY if "busy" in error.lower() else error


def _real_pause(seconds: float) -> None:
    threading.Event().wait(seconds)  # the LED step stays on show for the person to see


def report(checks: Sequence[Check]) -> str:
    """The summary table."""
    width = max(len(c.name) for c in checks)
    lines = [f"{'check':{width}}  status  detail", f"{'-' * width}  ------  ------"]
    lines += [f"{c.name:{width}}  {c.status:6}  {c.detail}" for c in checks]
    failed = [c.name for c in checks if c.status == "fail"]
    lines.append("\n" + (f"FAILED: {', '.join(failed)}" if failed else "all checks passed"))
    return "\n".join(lines)


DESCRIPTION = """\
Check a kiothi board after wiring it, after flashing the co-processor and after any change,
in the order things go wrong:

  - the installed versions and the configuration;
  - the pin map for the Pi model found here (no pin used twice or on the LED bus);
  - the Pi's setup: gpiozero's pin library (on a Pi 5, the /dev/gpiochip it opens), I2C off
    when pits are wired to GPIO2/GPIO3, SPI on with one LED frame per transfer;
  - the game store's integrity (the service's own, /var/lib/kiothi-board, when installed);
  - the co-processor link and its firmware version, when the config uses one;
  - an LED walk: each ring lights white in turn, then all rings at the brightness cap;
  - press each pit, then each control button, when asked: an input active before its turn
    is stuck, one not pressed in time dead, one that another input answers crossed, two
    that answer together shorted; each is named with its GPIO and header pin.

It needs the board to itself and the rights the service has: stop the service first, run
it with sudo (the installed config and the game store are the service's), start the
service again afterwards. Without --config it checks /etc/kiothi-board/config.toml when the
board is installed, else the built-in defaults. It prints a summary table, or --json.
Exit status: 0 all checks passed (warnings allowed), 1 a check failed, 2 the config could
not be read.
"""
EXAMPLES = """\
examples:
  sudo systemctl stop kiothi-board
  sudo /opt/kiothi-board/venv/bin/kiothi-board doctor
  sudo systemctl start kiothi-board

  kiothi-board doctor --no-leds --no-press      the checks that need nobody at the board
  kiothi-board doctor --config my.toml --timeout 20
  kiothi-board doctor --json > doctor.json
"""


def main(argv: Sequence[str], *, root: Path = Path("/")) -> int:
    """`kiothi-board doctor [--config FILE] [--json] [--no-leds] [--no-press] [--timeout S]
    [--state-dir DIR]`; `root` is where the Pi's files are (tests give a fake tree)."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board doctor",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=RawDefaultsFormatter,
    )
    installed = root / doctor_system.SERVICE_CONFIG.lstrip("/")
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the configuration to check (default: the installed one, else the built-in defaults)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--no-leds", action="store_true", help="skip the LED walk")
    parser.add_argument("--no-press", action="store_true", help="skip 'press each pit'")
    parser.add_argument(
        "--timeout", type=float, default=10.0, metavar="S", help="seconds per press (10)"
    )
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where the game store is (default: the service's when installed, else as "
        "kiothi-board run)",
    )
    args = parser.parse_args(argv)
    path = args.config or (str(installed) if installed.exists() else None)
    try:
        config = load(path)
    except ConfigError as exc:
        unreadable = path is not None and os.path.exists(path) and not os.access(path, os.R_OK)
        print(f"kiothi-board doctor: {exc}{SUDO if unreadable else ''}", file=sys.stderr)
        return 2
    from kiothi_board.clock import SystemClock

    def tell(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    doctor = Doctor(
        config,
        clock=SystemClock(),
        prompt=lambda text: tell(f"{text.capitalize()} now (within {args.timeout:g} s) …"),
        say=tell,
        press_timeout=args.timeout,
        root=root,
        state_dir=args.state_dir,
    )
    checks = doctor.run(leds=not args.no_leds, press=not args.no_press)
    if args.json:
        rows = [{"name": c.name, "status": c.status, "detail": c.detail, **c.data} for c in checks]
        ok = all(c.status != "fail" for c in checks)
        print(json.dumps({"ok": ok, "checks": rows}, indent=2))
    else:
        print(report(checks))
    return 1 if any(c.status == "fail" for c in checks) else 0
