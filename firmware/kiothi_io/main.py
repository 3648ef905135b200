# kiothi-io firmware entry point (MicroPython on an RP2040, e.g. a Raspberry Pi Pico).
#
# Talks to the Pi over the USB CDC serial port that MicroPython's REPL normally uses: frames
# are binary, so Ctrl-C is switched off and a watchdog restarts a hung loop. Neither can be
# undone from outside (the rp2 watchdog cannot be stopped), so mpremote cannot break in.
# Updates take the maintenance path instead (firmware/README.md): the Pi sends MAINTENANCE,
# the firmware writes the flag file and hard-resets (which stops the watchdog); at the next
# boot the flag is deleted and main.py returns at once, leaving MicroPython's REPL, with
# Ctrl-C, to mpremote. BOOTSEL pressed as main.py starts does the same; BOOTSEL held at the
# reset itself starts the boot ROM's USB drive (RPI-RP2) instead, before MicroPython runs.

import os
import select
import sys
import time

import config
import machine
import micropython
from device import Device
from machine import WDT, Pin


def _maintenance_requested():
    try:
        os.remove(config.MAINTENANCE_FLAG)
        return True
    except OSError:
        pass
    try:
        import rp2

        return bool(rp2.bootsel_button())
    except (ImportError, AttributeError):
        return False


def _restart_for_update():
    with open(config.MAINTENANCE_FLAG, "w") as flag:
        flag.write("update\n")
    time.sleep_ms(50)  # let USB send the MAINTENANCE answer
    machine.reset()  # a hard reset: the watchdog stops, the flag survives


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


def main():
    if _maintenance_requested():
        return  # to the REPL: no watchdog, Ctrl-C works, mpremote can copy files
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
        maintenance=_restart_for_update,
        pits=len(config.PIT_PINS),
        controls=len(config.CONTROL_PINS[:4]),
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
        if not busy:  # drain a burst at full speed, otherwise scan every SCAN_MS
            time.sleep_ms(config.SCAN_MS)


main()
