"""What every real LED sink shares: the ring layout, a capped brightness, the current limiter,
and `show`/`set_brightness`/`close` over one `_transmit(bytes)` a frame, as Adafruit's
Pixelbuf builds its drivers: a new LED output implements `_transmit` (and, if its hardware
scales, `_hardware_brightness`; `_release`), nothing else."""

from __future__ import annotations

import logging
import threading

from kiothi_board.errors import ConfigError
from kiothi_board.hardware.layout import RingLayout, estimate_milliamps, limit_current
from kiothi_board.hardware.protocols import RGB, Frame

__all__ = ["LimitedChain"]

log = logging.getLogger(__name__)


class LimitedChain:
    """Base of `NeoPixelRings` (a `PixelSink`): subclasses transmit, this class decides.

    `brightness` (0…1) is capped at `max_brightness`, the limit the supply and the players'
    eyes were planned for; `supply_milliamps` is the current available to the LEDs (None:
    no limit), and any frame estimated to draw more is scaled down. `show` maps a frame to
    the chain and hands it to `_transmit` as 3 bytes a LED (R, G, B) in chain order, once a
    frame; `close` transmits one dark frame and then `_release`s the hardware.
    """

    def __init__(
        self,
        layout: RingLayout,
        *,
        brightness: float,
        max_brightness: float,
        supply_milliamps: float | None,
    ) -> None:
        """Check the limits; ConfigError for bad values."""
        if not (0.0 < max_brightness <= 1.0):
            raise ConfigError(f"max_brightness must be in (0, 1], got {max_brightness!r}")
        if supply_milliamps is not None:
            idle = estimate_milliamps([(0, 0, 0)] * layout.total_leds)
            if not supply_milliamps > idle:
                raise ConfigError(
                    f"supply_milliamps {supply_milliamps!r} cannot even power "
                    f"{layout.total_leds} dark LEDs (~{idle:.0f} mA)"
                )
        self.layout = layout
        self.max_brightness = float(max_brightness)
        self.supply_milliamps = supply_milliamps
        self._brightness = self._check_brightness(brightness)
        self.limited_frames = 0
        self._lock = threading.Lock()
        self._closed = False

    # ------------------------------------------------------------ what subclasses implement
    def _transmit(self, data: bytes) -> None:
        """Send one frame: 3 bytes a LED (R, G, B, before brightness) in chain order."""
        raise NotImplementedError

    def _hardware_brightness(self, value: float) -> None:
        """The brightness changed (already checked and capped): tell the hardware, if it
        scales by itself (default: nothing; the limiter's estimate uses it either way)."""

    def _release(self) -> None:
        """Release the hardware after the last frame (default: nothing)."""

    # ------------------------------------------------------------ the PixelSink
    def show(self, frame: Frame) -> None:
        """Map, current-limit and transmit one frame; ignored once closed."""
        with self._lock:
            if self._closed:
                return
            self._transmit(bytes(c for rgb in self._chain(frame) for c in rgb))

    def set_brightness(self, value: float) -> None:
        """Change the global brightness (capped at `max_brightness`); applies on next show."""
        checked = self._check_brightness(value)
        with self._lock:
            self._brightness = checked
            if not self._closed:
                self._hardware_brightness(checked)

    def close(self) -> None:
        """Transmit one dark frame and release the hardware; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._transmit(bytes(3 * self.layout.total_leds))
            finally:
                self._release()

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._closed

    def _check_brightness(self, value: float) -> float:
        if not (isinstance(value, int | float) and 0.0 <= value <= 1.0):
            raise ConfigError(f"brightness must be in [0, 1], got {value!r}")
        if value > self.max_brightness:
            log.warning("brightness %r capped at max_brightness %r", value, self.max_brightness)
        return min(float(value), self.max_brightness)

    def _chain(self, frame: Frame) -> list[RGB]:
        """The frame in chain order, scaled down if it would draw more than the supply."""
        chain: list[RGB] = self.layout.to_chain(frame)
        if self.supply_milliamps is None:
            return chain
        limited = limit_current(chain, self.supply_milliamps, brightness=self._brightness)
        if limited != chain:
            self.limited_frames += 1
        return limited

    @property
    def leds_per_ring(self) -> int:
        """LEDs in each ring."""
        return self.layout.leds_per_ring

    @property
    def brightness(self) -> float:
        """The global brightness in effect (after the cap)."""
        return self._brightness
