"""`kiothi-board firmware install` end to end: real mpremote, a simulated Pico on a pty.

The simulated co-processor boots what its flash holds, like a Pico: the kiothi-io firmware
(Ctrl-C off, watchdog on) or MicroPython's REPL. The update must reach the REPL without
Ctrl-C, copy the files with mpremote and leave the board running the new version.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.clock import FakeClock, SystemClock
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.link import CoprocessorLink
from kiothi_board.hardware.link_sim import FdPort, SimulatedCoprocessor
from kiothi_board.tools.firmware import FILES, FirmwareError, install
from tests.conftest import PtyPair

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "firmware" / "kiothi_io"
MPREMOTE = [sys.executable, "-m", "mpremote"]
WAIT = 10.0


def flash_with(tmp_path: Path, version: tuple[int, int, int] | None) -> Path:
    """A Pico's flash holding the shipped firmware as `version` (None: empty, fresh)."""
    flash = tmp_path / "flash"
    flash.mkdir()
    if version is not None:
        for name in FILES:
            shutil.copy(SOURCE / name, flash / name)
        config = (flash / "config.py").read_text(encoding="utf-8")
        shipped = "FIRMWARE_VERSION = (0, 2, 0)"
        assert shipped in config
        (flash / "config.py").write_text(config.replace(shipped, f"FIRMWARE_VERSION = {version}"))
    return flash


@pytest.fixture
def pico(tmp_path: Path, pty_pair: PtyPair, request: pytest.FixtureRequest) -> Iterator[Any]:
    version = getattr(request, "param", (0, 1, 5))
    device = SimulatedCoprocessor(FdPort(pty_pair.master), flash=flash_with(tmp_path, version))
    try:
        yield device
    finally:
        device.close()


def run_install(port: str, said: list[str]) -> list[str]:
    clock = FakeClock()
    return install(
        SOURCE,
        device=port,
        mpremote=MPREMOTE,
        link_factory=lambda p: CoprocessorLink(p, clock=SystemClock()),
        clock=clock,
        pause=clock.advance,  # the pty never leaves USB: no real wait for it
        service_running=lambda: False,
        say=said.append,
    )


def test_a_running_firmware_is_updated_without_ctrl_c(
    pico: SimulatedCoprocessor, pty_pair: PtyPair
) -> None:
    assert (pico.mode, pico.firmware, pico.watchdog) == ("firmware", (0, 1, 5), 2.0)
    # mpremote's way in does nothing here: Ctrl-C and Ctrl-A are frame bytes to the firmware.
    garbled = pico.garbled
    with open(pty_pair.path, "wb", buffering=0) as host:
        host.write(b"\r\x03\r\x01\x00")
    assert pico.wait_for(lambda: pico.garbled > garbled, WAIT)
    assert pico.mode == "firmware"

    said: list[str] = []
    boots = pico.boots
    command = run_install(pty_pair.path, said)
    assert command[-1] == "reset" and command[len(MPREMOTE) : len(MPREMOTE) + 3] == [
        "connect",
        pty_pair.path,
        "cp",
    ]
    assert "kiothi-io 0.1.5 restarts into its update mode" in said
    # the new files arrived, main.py last, and the board restarted into them
    for name in FILES:
        assert (pico.flash / name).read_bytes() == (SOURCE / name).read_bytes(), name
    assert not (pico.flash / "maintenance").exists()
    assert (pico.mode, pico.firmware) == ("firmware", (0, 2, 0))
    assert pico.boots == boots + 2  # into the update mode, then into the new firmware
    assert said[-1] == "firmware installed: the Pico runs kiothi-io 0.2.0"


@pytest.mark.parametrize("pico", [None], indirect=True)
def test_a_fresh_pico_gets_the_files_at_once(pico: SimulatedCoprocessor, pty_pair: PtyPair) -> None:
    assert pico.mode == "repl"
    said: list[str] = []
    run_install(pty_pair.path, said)
    assert f"{pty_pair.path}: no kiothi-io firmware answers: copying to MicroPython" in said
    assert (pico.mode, pico.firmware) == ("firmware", (0, 2, 0))


def test_firmware_0_1_is_refused_with_the_recovery(tmp_path: Path, pty_pair: PtyPair) -> None:
    with SimulatedCoprocessor(FdPort(pty_pair.master), firmware=(0, 1, 0), features=0) as old:
        with pytest.raises(
            FirmwareError, match=r"kiothi-io 0\.1\.0, which has no update mode.*flash_nuke\.uf2"
        ):
            run_install(pty_pair.path, [])
        assert old.mode == "firmware" and old.boots == 1


def test_the_watchdog_restarts_a_hung_loop_and_maintenance_needs_its_magic(
    pty_pair: PtyPair,
) -> None:
    # A watchdog of 1 s: at 0.2 s a loaded machine starved the simulated loop long enough to
    # restart it once more (boots 3, in a suite run with four workers on two cores).
    with SimulatedCoprocessor(FdPort(pty_pair.master), watchdog=1.0) as device:
        device.hang()
        assert device.wait_for(lambda: device.boots == 2, WAIT)  # the watchdog bit
        with CoprocessorLink(pty_pair.path, clock=SystemClock()) as link:
            assert link.wait_up(WAIT)
            link.send(cf.MAINTENANCE, b"please")  # noise that passed the CRC: refused
            assert link.wait_for(lambda: link.stats.device_errors >= 1, WAIT)
            assert device.boots == 2


def test_the_service_must_be_stopped_first(pty_pair: PtyPair) -> None:
    with pytest.raises(FirmwareError, match="sudo systemctl stop kiothi-board"):
        install(SOURCE, device=pty_pair.path, mpremote=MPREMOTE, service_running=lambda: True)
