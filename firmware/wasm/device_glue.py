# MicroPython side of device.mjs: the firmware's Device wired to the Node host instead of
# machine.Pin, USB CDC and the PIO NeoPixel driver (main.py's job on an RP2040).
import binascii
import time

import config
import host
from device import Device

_levels = [0]


def _write(data):
    host.write(binascii.hexlify(data).decode())


def _show(rgb, brightness):
    host.leds(binascii.hexlify(rgb).decode(), brightness)


_device = Device(
    write=_write,
    read_levels=lambda: _levels[0],
    ticks_ms=time.ticks_ms,
    ticks_diff=time.ticks_diff,
    show=_show,
    pits=len(config.PIT_PINS),
    controls=len(config.CONTROL_PINS[:4]),
    leds_per_ring=config.LEDS_PER_RING,
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
