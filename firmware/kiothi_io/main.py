# kiothi-io firmware entry point (MicroPython on an RP2040, e.g. a Raspberry Pi Pico).
#
# Talks to the Pi over the USB CDC serial port that MicroPython's REPL normally uses: frames
# are binary, so Ctrl-C handling is switched off for as long as this runs. To get the REPL
# back, `mpremote` interrupts with a soft reset, or flash with the BOOTSEL button.

import select
import sys
import time

import config
import micropython
from device import Device
from machine import WDT, Pin


def _pins():
    pins = []
    for n in tuple(config.PIT_PINS) + tuple(config.CONTROL_PINS[:4]):
        pins.append(Pin(n, Pin.IN, Pin.PULL_UP))
    return pins


def _reader(pins):
    def read_levels():
        mask = 0
        for i in range(len(pins)):
            if not pins[i].value():  # pressed shorts the pin to GND
                mask |= 1 << i
        return mask

    return read_levels


def _chain():
    if config.LED_PIN is None:
        return None
    import neopixel  # the rp2 port's PIO-driven WS2812 driver

    count = len(config.PIT_PINS) * config.LEDS_PER_RING
    np = neopixel.NeoPixel(Pin(config.LED_PIN, Pin.OUT), count)
    order = config.PIXEL_ORDER
    np.ORDER = (order.index("R"), order.index("G"), order.index("B"), 3)

    def show(rgb, brightness):
        # Global brightness is applied here, like the NeoPixel library's on the Pi; the Pi's
        # current limiter already planned for it.
        for i in range(count):
            j = 3 * i
            np[i] = (
                (rgb[j] * brightness) >> 8,
                (rgb[j + 1] * brightness) >> 8,
                (rgb[j + 2] * brightness) >> 8,
            )
        np.write()

    show(bytearray(3 * count), 0)  # dark at boot, whatever the chain held
    return show


def main():
    micropython.kbd_intr(-1)  # a 0x03 byte in a frame must not raise KeyboardInterrupt
    pins = _pins()
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    device = Device(
        write=stdout.write,
        read_levels=_reader(pins),
        ticks_ms=time.ticks_ms,
        ticks_diff=time.ticks_diff,
        show=_chain(),
        pits=len(config.PIT_PINS),
        controls=len(config.CONTROL_PINS[:4]),
        leds_per_ring=config.LEDS_PER_RING,
        firmware=config.FIRMWARE_VERSION,
        status_ms=config.STATUS_MS,
        error_gap_ms=config.ERROR_GAP_MS,
    )
    wdt = WDT(timeout=config.WATCHDOG_MS) if config.WATCHDOG_MS else None
    buf = bytearray()
    while True:
        # USB CDC stdin reads block, so take only what poll() says is there.
        while len(buf) < 256 and poller.poll(0):
            buf.extend(stdin.read(1))
        busy = bool(buf)
        if busy:
            device.feed(bytes(buf))
            buf = bytearray()
        device.tick()
        if wdt is not None:
            wdt.feed()
        if not busy:  # drain a burst (an LED frame) at full speed, otherwise scan every SCAN_MS
            time.sleep_ms(config.SCAN_MS)


main()
