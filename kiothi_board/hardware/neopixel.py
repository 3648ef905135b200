"""The 20 NeoPixel rings on one data line: SPI0 MOSI (default) or PWM.

`bus="spi"` (the default) drives the chain from SPI0 MOSI (GPIO10) with
adafruit-circuitpython-neopixel-spi: no root, no audio conflict, the same on a Pi 3, 4, 5 and
Zero 2 W. `bus="pwm"` uses adafruit-circuitpython-neopixel (rpi_ws281x) on `pin_name`: root,
analog audio off, no Pi 5. `neopixel_spi` / `neopixel` and `board` (Adafruit Blinka) are
imported lazily, or injected: tests pass tiny fake modules, so nothing here needs a Pi.
The frame is mapped to the chain by a `RingLayout`, scaled by the current limiter so the
estimated draw fits the LED supply, and written with `auto_write=False` + one `show()` per
frame. On SPI that `show()` is one `ioctl(SPI_IOC_MESSAGE)`: the chunk Adafruit_PureIO splits
at is set to `spidev.bufsiz`, and a chain too long for it is refused with the fix
(`spi_transfer`; tests/hardware/test_spi_transfers.py records the ioctls).
"""

from __future__ import annotations

import importlib
import logging
from itertools import permutations
from pathlib import Path
from typing import Any

from kiothi_board.errors import ConfigError, LinkError
from kiothi_board.hardware.chain import LimitedChain
from kiothi_board.hardware.layout import RingLayout
from kiothi_board.hardware.spi_transfer import TransferPlan, plan, read_bufsiz, set_chunk

__all__ = ["BUSES", "PIXEL_ORDERS", "NeoPixelRings"]

log = logging.getLogger(__name__)

PIXEL_ORDERS = tuple("".join(p) for p in permutations("RGB"))
"""Colour orders of 3-channel rings (most WS2812B rings are GRB)."""

BUSES = ("spi", "pwm")
"""How the data line is driven: SPI0 MOSI (neopixel_spi) or PWM on a pin (rpi_ws281x)."""


class NeoPixelRings(LimitedChain):
    """A `PixelSink` over a chain of NeoPixel rings."""

    def __init__(
        self,
        layout: RingLayout,
        *,
        bus: str = "spi",
        pin_name: str = "D18",
        brightness: float = 0.3,
        max_brightness: float = 0.5,
        pixel_order: str = "GRB",
        supply_milliamps: float | None = 3000.0,
        neopixel_module: Any = None,
        board_module: Any = None,
        spidev_bufsiz: int | None = None,
        root: Path = Path("/"),
    ) -> None:
        """Open the chain.

        `bus` is "spi" (SPI0 MOSI; `neopixel_module` is then the `neopixel_spi` module) or
        "pwm" (`pin_name`, e.g. "D18"; `neopixel_module` is `neopixel`). `brightness` (0…1)
        is capped at `max_brightness`, the limit the supply and the players' eyes were planned
        for. `supply_milliamps` is the current available to the
        LEDs (None: no limit). `spidev_bufsiz` (default: read under `root`/sys) is the
        largest SPI transfer the kernel takes. Raises ConfigError for bad values, LinkError
        if the LED driver cannot be opened (not a Pi, no permission, no such pin) or a frame
        would not fit one SPI transfer (the message names the fix).
        """
        if bus not in BUSES:
            raise ConfigError(f"bus must be one of {BUSES}, got {bus!r}")
        if pixel_order not in PIXEL_ORDERS:
            raise ConfigError(f"pixel_order must be one of {PIXEL_ORDERS}, got {pixel_order!r}")
        super().__init__(
            layout,
            brightness=brightness,
            max_brightness=max_brightness,
            supply_milliamps=supply_milliamps,
        )
        self.bus = bus
        self.transfer: TransferPlan | None = None
        """SPI only: the frame's bytes, spidev.bufsiz and transfers per frame (one)."""
        self.spi_chunk: int | None = None
        """SPI only: the chunk Adafruit_PureIO splits a write at (None: no PureIO to ask)."""
        if bus == "spi":
            bufsiz = spidev_bufsiz if spidev_bufsiz is not None else read_bufsiz(root)
            if bufsiz is None and not (root / "dev" / "spidev0.0").exists():
                # A laptop, or a Pi with SPI off: the kernel's bufsiz is not the problem.
                raise LinkError(
                    "NeoPixels on SPI0: no SPI device here (/dev/spidev0.0): not a Raspberry "
                    "Pi, or SPI is off (on a Pi, sudo scripts/install.sh turns it on)"
                )
            self.transfer = plan(layout.total_leds, bufsiz, root)
            if self.transfer.problem:
                raise LinkError(f"NeoPixels on SPI0: {self.transfer.problem}")
            self._pixels = self._open_spi(neopixel_module, board_module, pixel_order)
        else:
            self._pixels = self._open_pwm(neopixel_module, board_module, pin_name, pixel_order)

    def _open_spi(self, neopixel_spi: Any, board: Any, pixel_order: str) -> Any:
        assert self.transfer is not None
        try:
            neopixel_spi = neopixel_spi or importlib.import_module("neopixel_spi")
            board = board or importlib.import_module("board")
            spi, self.spi_chunk = set_chunk(board.SPI, self.transfer.bufsiz)
        except Exception as exc:  # ImportError, no SPI on this board, /dev/spidev0.0 missing
            raise LinkError(f"cannot open SPI0 for the NeoPixels: {exc}") from exc
        if self.spi_chunk is None:
            log.warning("cannot see Adafruit_PureIO's SPI chunk: one transfer per frame unchecked")
        try:
            return neopixel_spi.NeoPixel_SPI(
                spi,
                self.layout.total_leds,
                brightness=self._brightness,
                auto_write=False,
                pixel_order=pixel_order,
            )
        except Exception as exc:
            raise LinkError(f"cannot open NeoPixels on SPI0 MOSI: {exc}") from exc

    def _open_pwm(self, neopixel: Any, board: Any, pin_name: str, pixel_order: str) -> Any:
        try:
            neopixel = neopixel or importlib.import_module("neopixel")
            board = board or importlib.import_module("board")
            pin = getattr(board, pin_name)
        except AttributeError as exc:
            raise ConfigError(f"no pin {pin_name!r} on this board: {exc}") from exc
        except Exception as exc:  # ImportError, or Blinka refusing an unknown board
            raise LinkError(f"cannot load the NeoPixel driver for {pin_name!r}: {exc}") from exc
        try:
            return neopixel.NeoPixel(
                pin,
                self.layout.total_leds,
                brightness=self._brightness,
                auto_write=False,
                pixel_order=pixel_order,
            )
        except Exception as exc:  # e.g. RuntimeError without root for the PWM/DMA driver
            raise LinkError(f"cannot open NeoPixels on {pin_name!r}: {exc}") from exc

    def _hardware_brightness(self, value: float) -> None:
        self._pixels.brightness = value  # the driver scales as it writes its buffer

    def _transmit(self, data: bytes) -> None:
        """The frame into the driver's buffer, then one `show()`: one SPI transfer."""
        try:
            pixels = self._pixels
            for i in range(len(data) // 3):
                pixels[i] = (data[3 * i], data[3 * i + 1], data[3 * i + 2])
            pixels.show()
        except Exception as exc:
            raise LinkError(f"writing {len(data) // 3} NeoPixels failed: {exc}") from exc

    def _release(self) -> None:
        deinit = getattr(self._pixels, "deinit", None)
        if deinit is not None:
            deinit()

    def __enter__(self) -> NeoPixelRings:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NeoPixelRings({self.layout!r}, bus={self.bus!r}, brightness={self._brightness!r})"
