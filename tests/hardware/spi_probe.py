"""Record the SPI transfers of one LED frame through the real driver stack (run as a script).

    BLINKA_FORCEBOARD=RASPBERRY_PI_5 BLINKA_FORCECHIP=BCM2XXX python spi_probe.py BUFSIZ N...

Blinka is told which Pi it runs on; `/dev/spidev0.0` is a scratch file and Adafruit_PureIO's
`ioctl` a recorder, so NeoPixelRings → neopixel_spi → adafruit_bus_device → busio →
Blinka's generic_linux SPI → Adafruit_PureIO run as installed. For each ring size N it
prints one JSON line: the lengths of the SPI_IOC_MESSAGE transfers of one `show()` and the
chunk PureIO used; `raw` does the same with neopixel_spi on `board.SPI()` alone (the chunk
left to PureIO). With the installed venv's python this is the by-hand check of an install.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import tempfile
from typing import Any

import Adafruit_PureIO.spi as pureio

DEVICE = "/dev/spidev0.0"
transfers: list[int] = []


def _record(fd: int, op: int, arg: Any, mutate: bool = False) -> int:
    if op == pureio.SPI._IOC_MESSAGE:
        transfers.append(struct.unpack(pureio.SPI._IOC_TRANSFER_FORMAT, arg)[2])
    return 0  # mode, speed, bits: accepted (reads leave the zeroed array)


def main(argv: list[str]) -> None:
    handle, scratch = tempfile.mkstemp(prefix="spidev0.0-")
    os.close(handle)
    exists, open_ = os.path.exists, os.open
    os.path.exists = lambda p: p == DEVICE or exists(p)  # type: ignore[assignment]
    os.open = lambda p, *a, **k: open_(scratch if p == DEVICE else p, *a, **k)  # type: ignore[assignment]
    pureio.ioctl = _record  # type: ignore[assignment]

    import board
    import neopixel_spi

    from kiothi_board.errors import LinkError
    from kiothi_board.hardware.layout import RingLayout
    from kiothi_board.hardware.neopixel import NeoPixelRings

    bufsiz = int(argv[0])
    for leds in map(int, argv[1:]):
        frame = [[(pit, k, 9) for k in range(leds)] for pit in range(20)]
        out: dict[str, Any] = {"leds_per_ring": leds, "board": board.board_id}
        transfers.clear()
        try:
            rings = NeoPixelRings(RingLayout(leds), spidev_bufsiz=bufsiz, brightness=0.3)
        except LinkError as exc:
            out["refused"] = str(exc)
        else:
            transfers.clear()
            rings.show(frame)
            out |= {"transfers": list(transfers), "chunk": rings.spi_chunk}
        transfers.clear()
        raw = neopixel_spi.NeoPixel_SPI(board.SPI(), 20 * leds, auto_write=False)
        raw.fill((1, 2, 3))
        transfers.clear()
        raw.show()
        out["raw"] = list(transfers)
        print(json.dumps(out), flush=True)
    os.unlink(scratch)


if __name__ == "__main__":
    main(sys.argv[1:])
