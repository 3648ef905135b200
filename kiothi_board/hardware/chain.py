"""What every real LED sink shares: the ring layout, a capped brightness, the current limiter."""

from __future__ import annotations

import logging

from kiothi_board.errors import ConfigError
from kiothi_board.hardware.layout import RingLayout, estimate_milliamps, limit_current
from kiothi_board.hardware.protocols import RGB, Frame

__all__ = ["LimitedChain"]

log = logging.getLogger(__name__)


class LimitedChain:
    """Base of `NeoPixelRings` and `LinkPixelSink`.

    `brightness` (0…1) is capped at `max_brightness`, the limit the supply and the players'
    eyes were planned for; `supply_milliamps` is the current available to the LEDs (None:
    no limit), and any frame estimated to draw more is scaled down.
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
