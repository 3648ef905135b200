"""Choosing drivers (L4, for the daemon): one rule for every concern.

Each concern — pit input (`board.input`), LED output (`leds.output`), the co-processor link
(`board.port`) and the game store (`store.backend`) — is resolved on its own; the pit inputs
and LED outputs are the drivers of `kiothi_board.hardware.registry`:

- a driver named in the config is required: if it cannot be opened, `DriverUnavailableError`
  says which key asked for it and why it is missing;
- `auto` tries the real driver and, when it is missing, uses the simulator's fake with a
  `DriverFallback` warning and a log line — never a silent switch;
- `sim` (or the daemon's `--sim`) uses the fake.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kiothi_board.clock import Clock
from kiothi_board.config import Config
from kiothi_board.config_tables import LedConfig, from_table
from kiothi_board.errors import (
    AudioError,
    ConfigError,
    DriverFallback,
    DriverUnavailableError,
    LinkError,
    StoreError,
)
from kiothi_board.hardware.protocols import PitInput, PixelSink, VoiceOutput
from kiothi_board.hardware.registry import LED_OUTPUTS, PIT_INPUTS, VOICE_OUTPUTS, Registry
from kiothi_board.store.base import GameStore

if TYPE_CHECKING:
    from kiothi_board.hardware.layout import RingLayout
    from kiothi_board.hardware.link import CoprocessorLink

__all__ = ["NO_BOARD", "Drivers", "fall_back", "require"]

log = logging.getLogger("kiothi_board.drivers")

T = TypeVar("T")

# How a missing driver shows itself: our wrapped link/store errors, or a library not installed.
# A ConfigError (a bad pin list, say) is not "missing" and always propagates.
_MISSING = (LinkError, StoreError, AudioError, ImportError)


def require(key: str, choice: str, what: str, open_driver: Callable[[], T]) -> T:
    """Open a driver the config names; its absence is an error naming `key = "choice"`."""
    try:
        return open_driver()
    except DriverUnavailableError:
        raise
    except _MISSING as exc:
        raise DriverUnavailableError(f"{key} = {choice!r}: {what} not available: {exc}") from exc


def fall_back(
    key: str,
    what: str,
    open_driver: Callable[[], T],
    open_fake: Callable[[], T],
    said: Callable[[str], None] | None = None,
) -> tuple[T, bool]:
    """For `key = "auto"`: the real driver, else the fake with a warning; (driver, fell back).

    The warning's line goes to the log, or to `said` (a caller that sums several up)."""
    try:
        return open_driver(), False
    except _MISSING as exc:
        message = f"{key} = 'auto': {what} not available ({exc}); using the simulator's fake"
        if said is None:
            log.warning("%s", message)
        else:
            said(message)
        warnings.warn(message, DriverFallback, stacklevel=3)
        return open_fake(), True


NO_BOARD = (
    "no board found here (no pit inputs, no LED rings): running the simulator; "
    "`kiothi-board doctor` says what a board needs"
)
"""The one line of a laptop run (`make run`): both `auto` drivers fell back."""


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
        leds: Mapping[str, Any] | None = None,
        root: Path = Path("/"),
        quiet: bool = False,
    ) -> None:
        """`device_clock` times the co-processor link and its inputs (default `clock`; on
        fake time the daemon gives it the system clock: a wire's heartbeat is real time).
        `leds` replaces the `[leds]` table (the doctor's walk runs at the brightness cap);
        `root` is where /sys is (spidev's bufsiz); `quiet` keeps the fallbacks' lines
        until `say_fallbacks` (the daemon says "no board found" once for both)."""
        self.config = config
        self.board = config.board
        self.leds = (
            config.leds if leds is None else from_table(LedConfig, {**config["leds"], **leds})
        )
        self.voice = config.voice
        self.root = root
        self.clock = clock
        self.device_clock = device_clock or clock
        self.resources = resources
        self.sim = sim
        self.link: CoprocessorLink | None = None
        self.fell_back: list[str] = []
        self.quiet = quiet
        self.fallbacks: list[str] = []  # the lines kept by `quiet`

    def _keep(self, driver: T) -> T:
        self.resources.append(driver)
        return driver

    # -- the co-processor link --------------------------------------------------------------
    def coprocessor(self, key: str) -> CoprocessorLink:
        """The link, opened once and shared by its inputs and its LEDs (`key` asked for it)."""
        if self.link is None:
            board = self.board

            def open_link() -> CoprocessorLink:
                from kiothi_board.hardware.link import CoprocessorLink

                return CoprocessorLink(
                    board.port,
                    clock=self.device_clock,
                    heartbeat_timeout=board.heartbeat_timeout,
                )

            what = f"co-processor link on board.port = {board.port!r}"
            self.link = self._keep(require(key, "coprocessor", what, open_link))
        return self.link

    # -- pit input and LED output: the registry's drivers --------------------------------------
    def open(self, registry: Registry[T], choice: str) -> T:
        """The driver `choice` of `registry` (named: required; `auto`: real, else the fake)."""
        if choice == "auto":
            real, fake = registry.auto
            driver, fell = fall_back(
                registry.key,
                registry[real].what,
                lambda: registry[real].open(self),
                lambda: registry[fake].open(self),
                self.fallbacks.append if self.quiet else None,
            )
            if fell:
                self.fell_back.append(registry.key)
            return self._keep(driver)
        entry = registry[choice]
        return self._keep(require(registry.key, choice, entry.what, lambda: entry.open(self)))

    def say_fallbacks(self) -> None:
        """The kept fallback lines: one "no board found" when neither inputs nor LEDs were
        found (their causes at debug level), else each on its own."""
        if {"board.input", "leds.output"} <= set(self.fell_back):
            log.warning("%s", NO_BOARD)
            for line in self.fallbacks:
                log.debug("%s", line)
        else:
            for line in self.fallbacks:
                log.warning("%s", line)
        self.fallbacks.clear()

    def pit_input(self) -> PitInput:
        """The pit input `board.input` names (`--sim`: the fake)."""
        return self.open(PIT_INPUTS, "sim" if self.sim else self.board.input)

    def pixel_sink(self) -> PixelSink:
        """The LED output `leds.output` names (`--sim`: the fake), whatever the inputs did.

        The `[leds]` layout is checked whichever output is used: a chain a simulator run
        accepted must not fail on the board."""
        self.layout()
        return self.open(LED_OUTPUTS, "sim" if self.sim else self.leds.output)

    def voice_output(self) -> VoiceOutput | None:
        """The voice `voice.output` names (`--sim`: the terminal's), None with `[voice]` off."""
        if not self.voice.enabled:
            return None
        return self.open(VOICE_OUTPUTS, "sim" if self.sim else self.voice.output)

    def layout(self) -> RingLayout:
        """The ring layout `leds.*` describes."""
        from kiothi_board.hardware.layout import RingLayout

        leds = self.leds
        layout_keys: dict[str, Any] = {
            "leds_per_ring": leds.leds_per_ring,
            "offset": leds.offset,
            "direction": leds.direction,
        }
        if leds.chain:
            layout_keys["chain"] = list(leds.chain)
        try:
            return RingLayout.from_config(layout_keys)
        except ConfigError as exc:
            text = str(exc)
            named = text.startswith(("chain", "offset", "direction", "leds_per_ring"))
            raise ConfigError(f"leds.{text}" if named else f"[leds]: {text}") from None

    # -- the game store -----------------------------------------------------------------------
    def store(self, state_dir: Path) -> GameStore:
        """The store `store.backend` names (both backends are named: no fallback)."""
        cfg = self.config.store
        backend = cfg.backend
        if backend == "redis":

            def open_redis() -> GameStore:
                from kiothi_board.store.redis_store import RedisStore

                return RedisStore.from_url(cfg.redis_url, clock=self.clock)

            what = f"Redis store at store.redis_url = {cfg.redis_url!r}"
            return self._keep(require("store.backend", backend, what, open_redis))

        def open_sqlite() -> GameStore:
            from kiothi_board.controller.saved import saved_settings_problem
            from kiothi_board.store.sqlite import SqliteStore

            path = Path(cfg.path) if cfg.path else state_dir / "games.sqlite3"
            _make_parent(path, f"store.path = {cfg.path!r}" if cfg.path else "state dir")
            sqlite = SqliteStore(path, clock=self.clock, settings_check=saved_settings_problem)
            if sqlite.report is not None:
                log.warning("%s", sqlite.report)
            return sqlite

        return self._keep(require("store.backend", backend, "SQLite store", open_sqlite))
