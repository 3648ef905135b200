"""The daemon picks the LED bus from `leds.output`: SPI by default, PWM as an option."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.errors import LinkError
from kiothi_board.hardware.neopixel import NeoPixelRings


class _Pixels:
    def __init__(self, where: object, n: int, **kwargs: Any) -> None:
        self.where, self.n, self.kwargs = where, n, kwargs
        self.shown = 0

    def __setitem__(self, i: int, colour: object) -> None:
        pass

    def show(self) -> None:
        self.shown += 1


@pytest.fixture
def fake_blinka(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    board = SimpleNamespace(SPI=lambda: "spi0", D18="pin-18")
    monkeypatch.setitem(sys.modules, "board", board)
    monkeypatch.setitem(sys.modules, "neopixel_spi", SimpleNamespace(NeoPixel_SPI=_Pixels))
    monkeypatch.setitem(sys.modules, "neopixel", None)  # PWM driver not installed
    # spidev as the installer leaves it (bufsiz=32768: one SPI transfer per frame)
    monkeypatch.setattr("kiothi_board.hardware.neopixel.read_bufsiz", lambda root: 32768)
    return board


def test_neopixel_output_drives_spi(tmp_path: Path, fake_blinka: SimpleNamespace) -> None:
    config = validate({"board": {"input": "sim"}, "leds": {"output": "neopixel"}})
    with Daemon(config, state_dir=str(tmp_path), api=False) as daemon:
        assert isinstance(daemon.sink, NeoPixelRings) and daemon.sink.bus == "spi"
        assert daemon.sink._pixels.where == "spi0" and daemon.sink._pixels.n == 320


def test_pwm_output_is_required_when_asked_for(
    tmp_path: Path, fake_blinka: SimpleNamespace
) -> None:
    config = validate({"board": {"input": "sim"}, "leds": {"output": "neopixel-pwm"}})
    with pytest.raises(LinkError, match=r"leds.output = 'neopixel-pwm'.*'D18'"):
        Daemon(config, state_dir=str(tmp_path), api=False)
