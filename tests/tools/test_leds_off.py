"""`kiothi-board leds off` (the service's ExecStopPost) blanks the rings the daemon lit."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import pytest

from kiothi_board.cli import main as cli_main
from kiothi_board.hardware import neopixel, spi_transfer


def write_config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_leds_off_sends_one_dark_frame_through_the_spi_driver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Pixels:
        shown: ClassVar[list[list[tuple[int, int, int]]]] = []

        def __init__(self, spi: object, n: int, **kwargs: object) -> None:
            self.buffer = [(9, 9, 9)] * n  # whatever the daemon left lit

        def __setitem__(self, i: int, colour: tuple[int, int, int]) -> None:
            self.buffer[i] = colour

        def show(self) -> None:
            self.shown.append(list(self.buffer))

    monkeypatch.setitem(sys.modules, "neopixel_spi", SimpleNamespace(NeoPixel_SPI=Pixels))
    monkeypatch.setitem(sys.modules, "board", SimpleNamespace(SPI=lambda: "spi0"))
    monkeypatch.setattr(spi_transfer, "read_bufsiz", lambda root: 32768)
    monkeypatch.setattr(neopixel, "read_bufsiz", lambda root: 32768)
    config = write_config(tmp_path, '[leds]\noutput = "neopixel"\n')
    assert cli_main(["leds", "off", "--config", config]) == 0
    assert Pixels.shown == [[(0, 0, 0)] * 320]
    assert "LEDs dark" in capsys.readouterr().out
    # No store was opened or game started: blanking touches nothing but the LEDs.
    assert list(tmp_path.iterdir()) == [tmp_path / "config.toml"]


def test_leds_off_names_the_spi_fix_when_a_frame_would_not_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(neopixel, "read_bufsiz", lambda root: 4096)
    config = write_config(tmp_path, '[leds]\noutput = "neopixel"\n')
    assert cli_main(["leds", "off", "--config", config]) == 1
    err = capsys.readouterr().err
    assert "spidev.bufsiz is 4096" in err and "spidev.bufsiz=32768" in err


def test_leds_off_with_the_simulator_has_nothing_to_blank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, '[leds]\noutput = "sim"\n')
    assert cli_main(["leds", "off", "--config", config]) == 0
    assert "nothing to blank" in capsys.readouterr().out


def test_leds_off_auto_without_led_hardware_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    # No LED library on this machine: `auto` fell back, as the daemon's did, so nothing is lit.
    assert cli_main(["leds", "off"]) == 0
    assert "nothing to blank" in capsys.readouterr().out
    assert "leds.output = 'auto'" in caplog.text


def test_leds_off_rejects_a_bad_config_and_a_bad_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, '[leds]\noutput = "lasers"\n')
    assert cli_main(["leds", "off", "--config", config]) == 2
    assert "lasers" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli_main(["leds", "on"])
    assert exc.value.code == 2
