"""Choosing drivers (L4, for the daemon): one rule for every concern.

Each concern — pit input (`board.input`), LED output (`leds.output`), the co-processor link
(`board.port`) and the game store (`store.backend`) — is resolved on its own:

- a driver named in the config is required: if it cannot be opened, `DriverUnavailableError`
  says which key asked for it and why it is missing;
- `auto` tries the real driver and, when it is missing, uses the simulator's fake with a
  `DriverFallback` warning and a log line — never a silent switch;
- `sim` (or the daemon's `--sim`) uses the fake.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kiothi_board.clock import Clock
from kiothi_board.config import Config
from kiothi_board.errors import (
    ConfigError,
    DriverFallback,
    DriverUnavailableError,
    LinkError,
    StoreError,
)
from kiothi_board.hardware.fakes import FakePitInput, FakePixelSink
from kiothi_board.hardware.protocols import PitInput, PixelSink
from kiothi_board.store.base import GameStore

if TYPE_CHECKING:
    from kiothi_board.hardware.layout import RingLayout
    from kiothi_board.hardware.link import CoprocessorLink

__all__ = ["Drivers", "fall_back", "require"]

log = logging.getLogger("kiothi_board.drivers")

T = TypeVar("T")

# How a missing driver shows itself: our wrapped link/store errors, or a library not installed.
# A ConfigError (a bad pin list, say) is not "missing" and always propagates.
_MISSING = (LinkError, StoreError, ImportError)


def require(key: str, choice: str, what: str, open_driver: Callable[[], T]) -> T:
    """Open a driver the config names; its absence is an error naming `key = "choice"`."""
    try:
        return open_driver()
    except DriverUnavailableError:
        raise
    except _MISSING as exc:
        raise DriverUnavailableError(f"{key} = {choice!r}: {what} not available: {exc}") from exc


def fall_back(
    key: str, what: str, open_driver: Callable[[], T], open_fake: Callable[[], T]
) -> tuple[T, bool]:
    """For `key = "auto"`: the real driver, else the fake with a warning; (driver, fell back)."""
    try:
        return open_driver(), False
    except _MISSING as exc:
        message = f"{key} = 'auto': {what} not available ({exc}); using the simulator's fake"
        log.warning("%s", message)
        warnings.warn(message, DriverFallback, stacklevel=3)
        return open_fake(), True


def _make_parent(path: Path, key: str) -> None:
    """The store's directory, or one line naming the key when it cannot be made."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ConfigError(
            f"{key}: {path.parent} is not a directory (a file is in the way)"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{key}: cannot make {path.parent}: {exc.strerror}") from exc


class Drivers:
    """Opens the drivers a config names, each concern on its own, recording what it opened.

    Everything opened is appended to `resources` (the caller closes them in reverse order);
    `fell_back` lists the keys whose `auto` fell back to a fake.
    """

    def __init__(
        self,
        config: Config,
        *,
        clock: Clock,
        resources: list[Any],
        sim: bool = False,
        device_clock: Clock | None = None,
    ) -> None:
        """`device_clock` times the co-processor link and its inputs (default `clock`; on
        fake time the daemon gives it the system clock: a wire's heartbeat is real time)."""
        self.config = config
        self.clock = clock
        self.device_clock = device_clock or clock
        self.resources = resources
        self.sim = sim
        self.link: CoprocessorLink | None = None
        self.fell_back: list[str] = []

    def _keep(self, driver: T) -> T:
        self.resources.append(driver)
        return driver

    # -- the co-processor link --------------------------------------------------------------
    def coprocessor(self, key: str) -> CoprocessorLink:
        """The link, opened once and shared by its inputs and its LEDs (`key` asked for it)."""
        if self.link is None:
            board = self.config["board"]

            def open_link() -> CoprocessorLink:
                from kiothi_board.hardware.link import CoprocessorLink

                return CoprocessorLink(
                    board["port"],
                    clock=self.device_clock,
                    heartbeat_timeout=board["heartbeat_timeout"],
                )

            what = f"co-processor link on board.port = {board['port']!r}"
            self.link = self._keep(require(key, "coprocessor", what, open_link))
        return self.link

    # -- pit input ----------------------------------------------------------------------------
    def pit_input(self) -> PitInput:
        """The pit input `board.input` names (`--sim`: the fake)."""
        board = self.config["board"]
        choice = "sim" if self.sim else board["input"]
        timing: dict[str, Any] = {
            "clock": self.clock,
            "debounce": board["debounce_ms"] / 1000,
            "hold_time": board["hold_s"],
            "stuck_time": board["stuck_s"],
            "sensor": board["sensor"],
        }
        if choice == "coprocessor":
            from kiothi_board.hardware.link import LinkPitInput

            link_timing = {**timing, "clock": self.device_clock}
            return self._keep(LinkPitInput(self.coprocessor("board.input"), **link_timing))

        def open_gpio() -> PitInput:
            from kiothi_board.hardware.gpio import GpioPitInput

            with warnings.catch_warnings():
                # gpiozero warns once per pin library it tries; our one warning suffices.
                warnings.simplefilter("ignore")
                return GpioPitInput(
                    board["pins"],
                    control_pins=board["control_pins"],
                    pull_up=board["pull_up"],
                    **timing,
                )

        def open_fake() -> PitInput:
            return FakePitInput(self.clock)

        if choice == "gpio":
            return self._keep(require("board.input", choice, "GPIO pit input", open_gpio))
        if choice == "auto":
            inputs, fell = fall_back("board.input", "GPIO pit input", open_gpio, open_fake)
            if fell:
                self.fell_back.append("board.input")
            return self._keep(inputs)
        return self._keep(open_fake())

    # -- LED output ---------------------------------------------------------------------------
    def layout(self) -> RingLayout:
        """The ring layout `leds.*` describes."""
        from kiothi_board.hardware.layout import RingLayout

        leds = self.config["leds"]
        layout_keys: dict[str, Any] = {
            "leds_per_ring": leds["leds_per_ring"],
            "offset": leds["offset"],
            "direction": leds["direction"],
        }
        if leds["chain"]:
            layout_keys["chain"] = leds["chain"]
        return RingLayout.from_config(layout_keys)

    def pixel_sink(self) -> PixelSink:
        """The LED output `leds.output` names (`--sim`: the fake), whatever the inputs did."""
        leds = self.config["leds"]
        choice = "sim" if self.sim else leds["output"]
        limits: dict[str, Any] = {
            "brightness": leds["brightness"],
            "max_brightness": leds["max_brightness"],
            "supply_milliamps": leds["supply_milliamps"],
        }
        if choice == "coprocessor":
            from kiothi_board.hardware.link import LinkPixelSink

            link = self.coprocessor("leds.output")
            return self._keep(LinkPixelSink(link, self.layout(), **limits))

        def open_rings() -> PixelSink:
            from kiothi_board.hardware.neopixel import NeoPixelRings

            return NeoPixelRings(
                self.layout(),
                bus="pwm" if choice == "neopixel-pwm" else "spi",  # SPI0 MOSI unless asked
                pin_name=leds["pin"],
                pixel_order=leds["pixel_order"],
                **limits,
            )

        def open_fake() -> PixelSink:
            return FakePixelSink(leds["leds_per_ring"], keep=4)

        if choice in ("neopixel", "neopixel-pwm"):
            return self._keep(require("leds.output", choice, "NeoPixel LED output", open_rings))
        if choice == "auto":
            sink, fell = fall_back("leds.output", "NeoPixel LED output", open_rings, open_fake)
            if fell:
                self.fell_back.append("leds.output")
            return self._keep(sink)
        return self._keep(open_fake())

    # -- the game store -----------------------------------------------------------------------
    def store(self, state_dir: Path) -> GameStore:
        """The store `store.backend` names (both backends are named: no fallback)."""
        cfg = self.config["store"]
        backend = cfg["backend"]
        if backend == "redis":

            def open_redis() -> GameStore:
                from kiothi_board.store.redis_store import RedisStore

                return RedisStore.from_url(cfg["redis_url"], clock=self.clock)

            what = f"Redis store at store.redis_url = {cfg['redis_url']!r}"
            return self._keep(require("store.backend", backend, what, open_redis))

        def open_sqlite() -> GameStore:
            from kiothi_board.store.sqlite import SqliteStore

            path = Path(cfg["path"]) if cfg["path"] else state_dir / "games.sqlite3"
            _make_parent(path, f"store.path = {cfg['path']!r}" if cfg["path"] else "state dir")
            sqlite = SqliteStore(path, clock=self.clock)
            if sqlite.report is not None:
                log.warning("%s", sqlite.report)
            return sqlite

        return self._keep(require("store.backend", backend, "SQLite store", open_sqlite))
