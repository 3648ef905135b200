"""`kiothi-board leds off`: blank the LED rings with the driver the daemon would use.

The service runs it as `ExecStopPost=`, so the rings go dark however the daemon ended: a
clean stop, a crash, or a watchdog kill (a daemon that died cannot blank them itself). The
driver is chosen exactly as `kiothi-board run` chooses it, by the daemon's own construction
code, from the same configuration file.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

from kiothi_board.config import Config, load
from kiothi_board.daemon import Daemon
from kiothi_board.errors import ConfigError, KiothiError, LinkError
from kiothi_board.hardware.clock import SystemClock
from kiothi_board.hardware.protocols import Clock, PixelSink

__all__ = ["LedDriver", "main"]

log = logging.getLogger(__name__)


class LedDriver(Daemon):
    """Only the daemon's LED driver (and the co-processor link it may need): no inputs,
    store, controller or API, so blanking the rings changes no game."""

    def __init__(self, config: Config, *, clock: Clock | None = None) -> None:
        # Deliberately not Daemon.__init__: that would open the pit inputs and the store and
        # resume the game. These are the attributes the daemon's driver construction reads.
        self.config = config
        self.clock = clock or SystemClock()
        self.simulated = False
        self.link: Any = None
        self._resources: list[Any] = []
        self._closed = False
        try:
            self.sink: PixelSink = self._make_sink()
        except BaseException:
            self.close()
            raise

    def blank(self, timeout: float) -> str:
        """Show a dark frame on the rings and release them; returns what was done.

        A co-processor gets `timeout` seconds to answer the link's hello; raises LinkError
        (quoting the port) when it does not, since the rings may still be lit.
        """
        if self.simulated or self.config["leds"]["output"] == "sim":
            self.close()
            return "no LED hardware in use (simulator): nothing to blank"
        if self.link is not None and not self.link.wait_up(timeout):
            error = self.link.error
            self.close()
            raise LinkError(
                f"the co-processor on {self.config['board']['port']!r} did not answer within "
                f"{timeout:g} s ({error}): the LEDs may still be lit"
            )
        what = repr(self.sink)
        self.close()  # every sink's close() writes one dark frame, then releases the driver
        return f"LEDs dark: {what}"

    def close(self) -> None:
        """Release the sink (dark frame first), then the link; idempotent."""
        if self._closed:
            return
        self._closed = True
        for resource in reversed(self._resources):
            try:
                resource.close()
            except Exception:  # a failing link close must not hide the sink's result
                log.exception("closing %r failed", resource)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `kiothi-board leds`."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board leds",
        description="Blank the LED rings with the configured driver (the service runs "
        "`leds off` after the daemon stops or fails).",
    )
    parser.add_argument("action", choices=["off"], help="off: one dark frame on every LED")
    parser.add_argument("--config", help="TOML configuration file (default: built-in)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="how long a co-processor may take to answer (default: 3)",
    )
    args = parser.parse_args(argv)
    try:
        config = load(args.config)
    except ConfigError as exc:
        print(f"kiothi-board leds: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level="WARNING", format="%(levelname)s %(name)s: %(message)s")
    try:
        print(f"kiothi-board leds: {LedDriver(config).blank(args.timeout)}")
    except (KiothiError, OSError) as exc:
        print(f"kiothi-board leds: {exc}", file=sys.stderr)
        return 1
    return 0
