"""One LED frame is one SPI transfer, through the real driver stack on every supported Pi.

`spi_probe.py` runs NeoPixelRings over neopixel_spi, Blinka and Adafruit_PureIO as installed,
with Blinka told which Pi it is on and PureIO's `ioctl` replaced by a recorder. Left to
itself the stack splits a 320-LED frame at 4096 bytes (the `raw` figures, the bug of issue 22);
NeoPixelRings sets the chunk to spidev.bufsiz and sends one transfer, or refuses with the fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("spi_probe.py")
BOARDS = ["RASPBERRY_PI_3B_PLUS", "RASPBERRY_PI_4B", "RASPBERRY_PI_5", "RASPBERRY_PI_ZERO_2_W"]
FRAME = {12: 5888, 16: 7808, 24: 11648}  # 24 bytes a LED × 20 rings + 2 × 64 reset bytes


def probe(board: str, bufsiz: int) -> list[dict[str, object]]:
    env = {**os.environ, "BLINKA_FORCEBOARD": board, "BLINKA_FORCECHIP": "BCM2XXX"}
    env.pop("SPI_BUFSIZE", None)  # as a user at a fresh shell: nothing set
    done = subprocess.run(
        [sys.executable, str(PROBE), str(bufsiz), *map(str, FRAME)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("board", BOARDS)
def test_one_frame_is_one_spi_transfer(board: str) -> None:
    for result in probe(board, 32768):
        size = FRAME[int(result["leds_per_ring"])]  # type: ignore[call-overload]
        assert result["board"] == board
        assert result["transfers"] == [size], result
        assert result["chunk"] == 32768
        assert sum(result["raw"]) == size and len(result["raw"]) > 1  # type: ignore[arg-type]


def test_without_the_bufsiz_fix_the_rings_refuse_and_say_how() -> None:
    for result in probe("RASPBERRY_PI_5", 4096):
        refused = str(result["refused"])
        assert f"is {FRAME[int(result['leds_per_ring'])]} SPI bytes" in refused  # type: ignore[call-overload]
        assert "spidev.bufsiz is 4096" in refused and "spidev.bufsiz=32768" in refused
        assert "cmdline.txt" in refused
    assert probe("RASPBERRY_PI_4B", 4096)[1]["raw"] == [4096, 3712]  # the split the fix avoids
