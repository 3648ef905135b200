"""Which USB device the doctor found for the co-processor: the Pico behind `board.port`
(its USB id, its USB path and its tty), or the Picos on USB when the port is missing, read
from /dev and /sys under a root (`/` on the Pi, a fake tree in the tests).

A Raspberry Pi Pico shows 2e8a:0005 while MicroPython runs (the kiothi-io firmware's
port, which systemd/99-kiothi-board.rules links to /dev/kiothi-io) and 2e8a:0003 (RP2040)
or 2e8a:000f (RP2350) in BOOTSEL mode, its USB drive RPI-RP2, which has no serial port.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MICROPYTHON", "PICO_MODES", "RASPBERRY_PI", "UsbDevice", "found", "of_port", "picos"]

RASPBERRY_PI = "2e8a"  # Raspberry Pi's USB vendor id
MICROPYTHON = "0005"  # MicroPython's rp2 port (USB CDC): the id the udev rule matches
PICO_MODES = {
    MICROPYTHON: "MicroPython",
    "0003": "BOOTSEL mode (RP2040)",
    "000f": "BOOTSEL mode (RP2350)",
}


@dataclass(frozen=True, slots=True)
class UsbDevice:
    """A USB device as sysfs shows it: its id, its path on the bus (`1-1.2`) and its ttys."""

    vendor: str
    product: str
    path: str
    ttys: tuple[str, ...] = ()

    @property
    def usb_id(self) -> str:
        return f"{self.vendor}:{self.product}"

    @property
    def mode(self) -> str:
        if self.vendor != RASPBERRY_PI:
            return "not a Raspberry Pi device"
        return PICO_MODES.get(self.product, "a Raspberry Pi device, not MicroPython")

    def describe(self) -> str:
        ttys = f", {', '.join('/dev/' + t for t in self.ttys)}" if self.ttys else ""
        return f"USB {self.usb_id} ({self.mode}) at USB path {self.path}{ttys}"


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip().lower()
    except OSError:
        return None


def _device(directory: Path) -> UsbDevice | None:
    vendor, product = _read(directory / "idVendor"), _read(directory / "idProduct")
    if vendor is None or product is None:
        return None
    ttys = sorted(p.name for p in directory.glob("*/tty/*"))
    return UsbDevice(vendor, product, directory.name, tuple(ttys))


def of_port(root: Path, port: str) -> tuple[str, UsbDevice | None] | None:
    """The tty behind `port` (a link such as /dev/kiothi-io resolved) and the USB device it
    belongs to; None when the port is not there under `root`."""
    where = root / port.lstrip("/")
    if not where.exists():
        return None
    tty = Path(os.path.realpath(where)).name
    sysfs = root / "sys/class/tty" / tty / "device"
    if not sysfs.exists():
        return tty, None
    directory = Path(os.path.realpath(sysfs))
    top = Path(os.path.realpath(root / "sys"))
    while directory != top and top in directory.parents:
        device = _device(directory)
        if device is not None:
            return tty, device
        directory = directory.parent
    return tty, None


def picos(root: Path) -> list[UsbDevice]:
    """Every Raspberry Pi USB device on the bus (a Pico in either mode)."""
    found = []
    for entry in sorted((root / "sys/bus/usb/devices").glob("*")):
        device = _device(Path(os.path.realpath(entry)))
        if device is not None and device.vendor == RASPBERRY_PI:
            found.append(device)
    return found


def found(root: Path, port: str) -> tuple[str, dict[str, str]]:
    """A sentence for the link check on what is behind `port`, and its data for --json."""
    seen = of_port(root, port)
    if seen is not None:
        tty, device = seen
        via = f" → /dev/{tty}" if f"/dev/{tty}" != port else ""
        if device is None:
            return f"{port}{via}: not a USB device", {"tty": tty}
        data = {"tty": tty, "usb_id": device.usb_id, "usb_path": device.path}
        return f"{port}{via}: {device.describe()}", data
    boards = picos(root)
    if not boards:
        return f"no {port}, and no Raspberry Pi device (USB {RASPBERRY_PI}:*) on USB", {}
    parts = []
    for device in boards:
        if device.product == MICROPYTHON:
            hint = (
                f"MicroPython runs but {port} is missing: install the udev rule (sudo "
                "scripts/install.sh), or set board.port to its tty"
            )
        elif device.product in PICO_MODES:
            hint = (
                "the Pico is its USB drive RPI-RP2 (BOOTSEL held at reset): copy MicroPython's "
                "UF2 onto it, or unplug it and plug it in without holding BOOTSEL"
            )
        else:
            hint = "not MicroPython's id 2e8a:0005: flash MicroPython (firmware/README.md)"
        parts.append(f"{device.describe()}: {hint}")
    first = boards[0]
    data = {"usb_id": first.usb_id, "usb_path": first.path}
    return f"no {port}; found " + "; ".join(parts), data
