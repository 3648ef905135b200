"""`kiothi-board leds off` (the service's ExecStopPost) blanks the rings the daemon lit."""

from __future__ import annotations

import os
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiothi_board.cli import main as cli_main
from kiothi_board.hardware.link_sim import FdPort, SimulatedCoprocessor

WAIT = 30.0


@pytest.fixture
def device() -> Iterator[tuple[SimulatedCoprocessor, str]]:
    """A simulated co-processor on a real pseudo-terminal, and the tty the host opens."""
    master, slave = os.openpty()
    tty.setraw(slave)
    sim = SimulatedCoprocessor(FdPort(master), leds_per_ring=16)
    try:
        yield sim, os.ttyname(slave)
    finally:
        sim.close()
        os.close(master)
        os.close(slave)


def write_config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_leds_off_sends_one_dark_frame_to_the_coprocessor(
    tmp_path: Path,
    device: tuple[SimulatedCoprocessor, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, port = device
    config = write_config(tmp_path, f'[board]\nport = "{port}"\n[leds]\noutput = "coprocessor"\n')
    assert cli_main(["leds", "off", "--config", config]) == 0
    assert sim.wait_for(lambda: len(sim.frames) > 0, WAIT)
    assert len(sim.frames[-1]) == 320
    assert not any(any(colour) for colour in sim.frames[-1])
    assert "LEDs dark" in capsys.readouterr().out
    # No store was opened or game started: blanking touches nothing but the LEDs.
    assert list(tmp_path.iterdir()) == [tmp_path / "config.toml"]


def test_leds_off_fails_loudly_when_the_coprocessor_stays_silent(
    tmp_path: Path,
    device: tuple[SimulatedCoprocessor, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, port = device
    sim.go_silent()
    config = write_config(tmp_path, f'[board]\nport = "{port}"\n[leds]\noutput = "coprocessor"\n')
    assert cli_main(["leds", "off", "--config", config, "--timeout", "0.3"]) == 1
    err = capsys.readouterr().err
    assert port in err and "did not answer" in err and "may still be lit" in err


def test_leds_off_names_a_port_that_cannot_be_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-tty"
    config = write_config(
        tmp_path, f'[board]\nport = "{missing}"\n[leds]\noutput = "coprocessor"\n'
    )
    assert cli_main(["leds", "off", "--config", config]) == 1
    assert str(missing) in capsys.readouterr().err


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
