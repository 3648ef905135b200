"""The 20 NeoPixel rings on one data line, through adafruit-circuitpython-neopixel.

`neopixel` and `board` (Adafruit Blinka) are imported lazily, or injected: tests pass tiny
fake modules, so nothing here needs a Pi. The frame is mapped to the chain by a
`RingLayout`, scaled by the current limiter so the estimated draw fits the LED supply, and
written with `auto_write=False` + one `show()` per frame (one transmission per frame).
"""

from __future__ import annotations

import importlib
import logging
import threading
from itertools import permutations
from types import ModuleType
from typing import Any

from kiothi_board.errors import ConfigError, LinkError
from kiothi_board.hardware.chain import LimitedChain
from kiothi_board.hardware.layout import RingLayout
from kiothi_board.hardware.protocols import Frame

__all__ = ["PIXEL_ORDERS", "NeoPixelRings"]

log = logging.getLogger(__name__)

PIXEL_ORDERS = tuple("".join(p) for p in permutations("RGB"))
"""Colour orders of 3-channel rings (most WS2812B rings are GRB)."""


class NeoPixelRings(LimitedChain):
    """A `PixelSink` over a chain of NeoPixel rings."""

    def __init__(
        self,
        layout: RingLayout,
        *,
        pin_name: str = "D18",
        brightness: float = 0.3,
        max_brightness: float = 0.5,
        pixel_order: str = "GRB",
        supply_milliamps: float | None = 3000.0,
        neopixel_module: Any = None,
        board_module: Any = None,
    ) -> None:
        """Open the chain.

        `brightness` (0…1) is capped at `max_brightness`, the limit the supply and the
        players' eyes were planned for. `supply_milliamps` is the current available to the
        LEDs (None: no limit). Raises ConfigError for bad values, LinkError if the LED
        driver cannot be opened (not a Pi, no permission, no such pin).
        """
        if pixel_order not in PIXEL_ORDERS:
            raise ConfigError(f"pixel_order must be one of {PIXEL_ORDERS}, got {pixel_order!r}")
        super().__init__(
            layout,
            brightness=brightness,
            max_brightness=max_brightness,
            supply_milliamps=supply_milliamps,
        )
        self._lock = threading.Lock()
        self._closed = False
        try:
            neopixel = neopixel_module or importlib.import_module("neopixel")
            board: ModuleType | Any = board_module or importlib.import_module("board")
            pin = getattr(board, pin_name)
        except AttributeError as exc:
            raise ConfigError(f"no pin {pin_name!r} on this board: {exc}") from exc
        except Exception as exc:  # ImportError, or Blinka refusing an unknown board
            raise LinkError(f"cannot load the NeoPixel driver for {pin_name!r}: {exc}") from exc
        try:
            self._pixels = neopixel.NeoPixel(
                pin,
                layout.total_leds,
                brightness=self._brightness,
                auto_write=False,
                pixel_order=pixel_order,
            )
        except Exception as exc:  # e.g. RuntimeError without root for the PWM/DMA driver
            raise LinkError(f"cannot open NeoPixels on {pin_name!r}: {exc}") from exc

    def set_brightness(self, value: float) -> None:
        """Change the global brightness (capped at `max_brightness`); applies on next show."""
        checked = self._check_brightness(value)
        with self._lock:
            self._brightness = checked
            if not self._closed:
                self._pixels.brightness = checked

    def show(self, frame: Frame) -> None:
        """Map, current-limit and transmit one frame; ignored once closed."""
        with self._lock:
            if self._closed:
                return
            self._write(self._chain(frame))

    def _write(self, chain: list[tuple[int, int, int]]) -> None:
        try:
            for i, colour in enumerate(chain):
                self._pixels[i] = colour
            self._pixels.show()
        except Exception as exc:
            raise LinkError(f"writing {len(chain)} NeoPixels failed: {exc}") from exc

    def close(self) -> None:
        """Blank the chain and release the driver; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._write([(0, 0, 0)] * self.layout.total_leds)
            finally:
                deinit = getattr(self._pixels, "deinit", None)
                if deinit is not None:
                    deinit()

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._closed

    def __enter__(self) -> NeoPixelRings:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NeoPixelRings({self.layout!r}, brightness={self._brightness!r})"
