"""`kiothi-board leds off`: blank the LED rings with the driver the daemon would use.

The service runs it as `ExecStopPost=`, so the rings go dark however the daemon ended: a
clean stop, a crash, or a watchdog kill (a daemon that died cannot blank them itself). The
driver is chosen exactly as `kiothi-board run` chooses it (`kiothi_board.drivers`), from the
same configuration file.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from kiothi_board.clock import Clock, SystemClock
from kiothi_board.config import Config, load
from kiothi_board.drivers import Drivers
from kiothi_board.errors import ConfigError, DriverFallback, KiothiError
from kiothi_board.helptext import DefaultsFormatter

__all__ = ["blank", "main"]

log = logging.getLogger(__name__)


def blank(config: Config, *, clock: Clock | None = None) -> str:
    """Open the LED output the daemon would open, show a dark frame, release it.

    Only the LEDs (the Pi's own, in every wiring): no pit input, no link, no store, so
    blanking the rings changes no game. Raises LinkError (DriverUnavailableError) when the
    named output cannot be opened, since the rings may still be lit. Returns what was done.
    """
    resources: list[Any] = []
    drivers = Drivers(config, clock=clock or SystemClock(), resources=resources)
    try:
        sink = drivers.pixel_sink()
        if drivers.fell_back or config["leds"]["output"] == "sim":
            return "no LED hardware in use (simulator): nothing to blank"
        what = repr(sink)
    finally:
        # Every sink's close() writes one dark frame, then releases the driver; the link last.
        for resource in reversed(resources):
            try:
                resource.close()
            except Exception:  # a failing link close must not hide the sink's result
                log.exception("closing %r failed", resource)
    return f"LEDs dark: {what}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `kiothi-board leds`."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board leds",
        description="Blank the LED rings with the configured driver (the service runs "
        "`leds off` after the daemon stops or fails).",
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("action", choices=["off"], help="off: one dark frame on every LED")
    parser.add_argument("--config", help="TOML configuration file (default: built-in)")
    args = parser.parse_args(argv)
    try:
        config = load(args.config)
    except ConfigError as exc:
        print(f"kiothi-board leds: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level="WARNING", format="%(levelname)s %(name)s: %(message)s")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DriverFallback)  # the log line says it once
            print(f"kiothi-board leds: {blank(config)}")
    except (KiothiError, OSError) as exc:
        print(f"kiothi-board leds: {exc}", file=sys.stderr)
        return 1
    return 0
