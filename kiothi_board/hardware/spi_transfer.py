"""How one LED frame leaves through Linux spidev, and the two limits that would split it.

neopixel_spi turns every data bit into one SPI byte at 6.4 MHz (24 bytes a LED) and pads the
frame with 64 zero bytes of reset on each side (80 µs at 6.4 MHz): 320 LEDs are 7808 bytes.
Adafruit_PureIO, Blinka's SPI on Linux, hands them to the kernel in `ioctl(SPI_IOC_MESSAGE)`
chunks of its `chunk_size` (4096 unless `SPI_BUFSIZE` says otherwise), and spidev refuses one
transfer longer than `spidev.bufsiz` (4096 by default). Between two chunks MOSI idles low; if
the pause outlasts the LEDs' latch time, the LEDs after the break take the rest as a new
frame — from LED 168 on, the ninth LED of N1 (PureIO PR #20, neopixel_spi #16 and #18).
So a frame must be one transfer: chunk ≥ frame and bufsiz ≥ frame. `NeoPixelRings` sets the
chunk to `spidev.bufsiz` and refuses a chain that does not fit, naming the fix.

No hardware library here: `pureio_device` only walks the attributes of an opened bus.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "BUFSIZ_FIX",
    "RECOMMENDED_BUFSIZ",
    "SPIDEV_DEFAULT_BUFSIZ",
    "TransferPlan",
    "frame_bytes",
    "plan",
    "pureio_device",
    "read_bufsiz",
    "set_chunk",
]

SPI_BYTES_PER_LED = 24
"""neopixel_spi sends each data bit as one SPI byte at 6.4 MHz: 3 × 8 bytes per LED."""
RESET_BYTES = 64
"""neopixel_spi's reset padding before and after the data: round(6.4 MHz × 80 µs / 8)."""
SPIDEV_DEFAULT_BUFSIZ = 4096
PUREIO_DEFAULT_CHUNK = 4096
RECOMMENDED_BUFSIZ = 32768
"""What scripts/install.sh puts in cmdline.txt: room for 24-LED rings (11,648 bytes) and more."""
BUFSIZ_FILE = "sys/module/spidev/parameters/bufsiz"
BUFSIZ_FIX = (
    f"add spidev.bufsiz={RECOMMENDED_BUFSIZ} to the single line of /boot/firmware/cmdline.txt "
    "and reboot (sudo scripts/install.sh does it)"
)


def frame_bytes(leds: int) -> int:
    """The SPI bytes neopixel_spi writes for one frame of `leds` LEDs, reset padding included."""
    return SPI_BYTES_PER_LED * leds + 2 * RESET_BYTES


def read_bufsiz(root: Path = Path("/")) -> int | None:
    """spidev's `bufsiz` parameter under `root`, None when the module is not loaded."""
    try:
        return int((root / BUFSIZ_FILE).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class TransferPlan:
    """How a frame of `leds` LEDs goes out with spidev's `bufsiz` as the chunk."""

    leds: int
    frame_bytes: int
    bufsiz: int
    bufsiz_known: bool

    @property
    def transfers(self) -> int:
        """ioctl(SPI_IOC_MESSAGE) calls per frame with the chunk at `bufsiz`."""
        return -(-self.frame_bytes // self.bufsiz)

    @property
    def problem(self) -> str | None:
        """Why the frame cannot go out in one transfer (with the fix), or None."""
        if self.transfers == 1:
            return None
        first_late = (self.bufsiz - RESET_BYTES) // SPI_BYTES_PER_LED
        where = "" if self.bufsiz_known else " (the kernel default: spidev's bufsiz not found)"
        return (
            f"a frame of {self.leds} LEDs is {self.frame_bytes} SPI bytes but spidev.bufsiz is "
            f"{self.bufsiz}{where}: it would go out as {self.transfers} transfers and the LEDs "
            f"from LED {first_late} on could latch the gap as a new frame; {BUFSIZ_FIX}"
        )


def plan(leds: int, bufsiz: int | None) -> TransferPlan:
    """The plan for `leds` LEDs; `bufsiz=None` (unknown) counts as the kernel's default."""
    known = bufsiz is not None
    return TransferPlan(leds, frame_bytes(leds), bufsiz or SPIDEV_DEFAULT_BUFSIZ, known)


def pureio_device(bus: Any) -> Any | None:
    """The Adafruit_PureIO SPI object under a Blinka bus (`busio.SPI._spi._spi`), if any."""
    for _ in range(3):
        if hasattr(bus, "writebytes") and hasattr(bus, "chunk_size"):
            return bus
        bus = getattr(bus, "_spi", None)
        if bus is None:
            return None
    return bus if hasattr(bus, "chunk_size") else None


def set_chunk(open_bus: Any, chunk: int) -> tuple[Any, int | None]:
    """`open_bus()` (e.g. `board.SPI`) with PureIO's chunk set to `chunk`: (bus, chunk in use).

    PureIO reads `SPI_BUFSIZE` when it opens the device, so it is set around the call (and
    restored: a command run by hand gets the same chunk as the service); then the chunk is
    set on the device object itself, whatever the environment said. The chunk in use is
    None when the bus has no PureIO device to ask.
    """
    previous = os.environ.get("SPI_BUFSIZE")
    os.environ["SPI_BUFSIZE"] = str(chunk)
    try:
        bus = open_bus()
    finally:
        if previous is None:
            del os.environ["SPI_BUFSIZE"]
        else:
            os.environ["SPI_BUFSIZE"] = previous
    device = pureio_device(bus)
    if device is None:
        return bus, None
    device.chunk_size = chunk
    return bus, int(device.chunk_size)
