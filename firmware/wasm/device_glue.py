# MicroPython side of device.mjs: the firmware's Device wired to the Node host instead of
# machine.Pin and USB CDC (main.py's job on an RP2040). `host.maintenance` stands for main.py's
# flag file and hard reset.
import binascii
import time

import config
import host
from device import Device

_levels = [0]


def _write(data):
    host.write(binascii.hexlify(data).decode())


_device = Device(
    write=_write,
    read_levels=lambda: _levels[0],
    ticks_ms=time.ticks_ms,
    ticks_diff=time.ticks_diff,
    maintenance=host.maintenance,
    pits=len(config.PIT_PINS),
    controls=len(config.CONTROL_PINS[:4]),
    firmware=config.FIRMWARE_VERSION,
    status_ms=config.STATUS_MS,
    error_gap_ms=config.ERROR_GAP_MS,
)


def feed(hex_bytes):
    _device.feed(binascii.unhexlify(hex_bytes))


def tick():
    _device.tick()


def set_levels(mask):
    _levels[0] = int(mask)
