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
    "bufsiz_fix",
    "cmdline_bufsiz",
    "frame_bytes",
    "needed_bufsiz",
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
CMDLINES = ("boot/firmware/cmdline.txt", "boot/cmdline.txt")  # Bookworm, then older
BUFSIZ_FIX = (
    f"add spidev.bufsiz={RECOMMENDED_BUFSIZ} to the single line of /boot/firmware/cmdline.txt "
    "and reboot (sudo scripts/install.sh does it)"
)


def frame_bytes(leds: int) -> int:
    """The SPI bytes neopixel_spi writes for one frame of `leds` LEDs, reset padding included."""
    return SPI_BYTES_PER_LED * leds + 2 * RESET_BYTES


def needed_bufsiz(leds: int) -> int:
    """The `spidev.bufsiz` scripts/install.sh sets for `leds` LEDs (0: the default will do):
    the recommended one, or a frame rounded up to 4 KiB when rings need more."""
    frame = frame_bytes(leds)
    if frame <= SPIDEV_DEFAULT_BUFSIZ:
        return 0
    return max(RECOMMENDED_BUFSIZ, -(-frame // 4096) * 4096)


def cmdline_bufsiz(root: Path = Path("/")) -> tuple[str, int | None] | None:
    """(the cmdline.txt under `root`, the `spidev.bufsiz` it sets or None); None without one."""
    for name in CMDLINES:
        try:
            words = (root / name).read_text(errors="replace").split()
        except OSError:
            continue
        values = [w.split("=", 1)[1] for w in words if w.startswith("spidev.bufsiz=")]
        if not values:
            return f"/{name}", None
        value = values[-1]  # the kernel takes the last one
        return f"/{name}", int(value) if value.isdigit() else None
    return None


def bufsiz_fix(leds: int, root: Path | None) -> str:
    """What to do when spidev.bufsiz is too small for `leds` LEDs, said for what cmdline.txt
    under `root` has: nothing (add it), a smaller value (the installer raises it), or enough
    (the running kernel has not read it yet: reboot)."""
    need = needed_bufsiz(leds) or RECOMMENDED_BUFSIZ
    found = cmdline_bufsiz(root) if root is not None else None
    if found is None or found[1] is None:
        name = found[0] if found else "/boot/firmware/cmdline.txt"
        return (
            f"add spidev.bufsiz={need} to the single line of {name} and reboot "
            "(sudo scripts/install.sh does it)"
        )
    name, value = found[0], found[1]
    if value >= need:
        return f"{name} has spidev.bufsiz={value}, which the running kernel did not read: reboot"
    return (
        f"{name} sets spidev.bufsiz={value}, too small: sudo scripts/install.sh raises it to "
        f"{need} (or change it to spidev.bufsiz={need} yourself), then reboot"
    )


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
    root: Path | None = None
    """Where cmdline.txt is read for the fix (None: the generic fix)."""

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
            f"from LED {first_late} on could latch the gap as a new frame; "
            f"{bufsiz_fix(self.leds, self.root)}"
        )


def plan(leds: int, bufsiz: int | None, root: Path | None = None) -> TransferPlan:
    """The plan for `leds` LEDs; `bufsiz=None` (unknown) counts as the kernel's default;
    `root` is where the fix looks for cmdline.txt."""
    known = bufsiz is not None
    return TransferPlan(leds, frame_bytes(leds), bufsiz or SPIDEV_DEFAULT_BUFSIZ, known, root)


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
