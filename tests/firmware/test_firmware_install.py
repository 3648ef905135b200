"""`kiothi-board firmware install`: what it copies, and a clear error without a Pico."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.cli import main as cli_main
from kiothi_board.tools import firmware
from kiothi_board.tools.firmware import FirmwareError, install

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "firmware" / "kiothi_io"
MPREMOTE = ["mpremote"]
PICO = "/dev/ttyACM0 e66038b7133d2c2f 2e8a:0005 MicroPython Board in FS mode\n"
UART = "/dev/ttyAMA0 None 0000:0000 None None\n"  # the Pi's own UART: not a board


class FakeMpremote:
    """Records mpremote invocations and answers like mpremote would."""

    def __init__(self, listing: str = PICO, copy_status: int = 0, copy_error: str = "") -> None:
        self.calls: list[list[str]] = []
        self.listing, self.copy_status, self.copy_error = listing, copy_status, copy_error

    def __call__(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        self.calls.append(argv)
        if argv[1:3] == ["connect", "list"]:
            return subprocess.CompletedProcess(argv, 0, self.listing, "")
        return subprocess.CompletedProcess(argv, self.copy_status, "", self.copy_error)


def test_install_copies_the_four_files_main_last_then_resets() -> None:
    fake, said = FakeMpremote(), []
    install(SOURCE, runner=fake, mpremote=MPREMOTE, say=said.append, leds_per_ring=16)
    listing, copy = fake.calls
    assert listing == ["mpremote", "connect", "list"]
    assert copy[:3] == ["mpremote", "connect", "auto"]
    pairs = [(Path(copy[i + 1]).name, copy[i + 2]) for i, a in enumerate(copy) if a == "cp"]
    assert pairs == [
        ("frames.py", ":frames.py"),
        ("device.py", ":device.py"),
        ("config.py", ":config.py"),
        ("main.py", ":main.py"),
    ]
    assert copy[-1] == "reset"
    assert said[-2] == f"board: {PICO.strip()}"


@pytest.mark.parametrize("listing", ["", UART])
def test_no_board_attached_is_a_clear_error(listing: str) -> None:
    fake = FakeMpremote(listing)
    with pytest.raises(FirmwareError, match="no MicroPython board found on USB"):
        install(SOURCE, runner=fake, mpremote=MPREMOTE, say=lambda _: None)
    assert len(fake.calls) == 1  # nothing was copied


def test_a_named_port_that_fails_says_so() -> None:
    fake = FakeMpremote(copy_status=1, copy_error="mpremote: failed to access /dev/ttyACM3")
    with pytest.raises(FirmwareError, match=r"failed to access /dev/ttyACM3 \(is the Pico on"):
        install(SOURCE, device="/dev/ttyACM3", runner=fake, mpremote=MPREMOTE, say=print)
    assert fake.calls[0][:3] == ["mpremote", "connect", "/dev/ttyACM3"]


def test_led_count_mismatch_and_missing_files_change_nothing(tmp_path: Path) -> None:
    fake = FakeMpremote()
    with pytest.raises(FirmwareError, match=r"LEDS_PER_RING = 16 but the config.s .* = 24"):
        install(SOURCE, runner=fake, mpremote=MPREMOTE, leds_per_ring=24, say=print)
    (tmp_path / "frames.py").write_text("", encoding="utf-8")
    with pytest.raises(
        FirmwareError, match=r"missing firmware file.*device\.py, config\.py, main\.py"
    ):
        install(tmp_path, runner=fake, mpremote=MPREMOTE, say=print)
    assert fake.calls == []


def test_cli_without_mpremote_or_board(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setattr(
        firmware,
        "mpremote_command",
        lambda: (_ for _ in ()).throw(
            FirmwareError("mpremote is not installed: pip install mpremote (the pi extra has it)")
        ),
    )
    assert cli_main(["firmware", "install"]) == 1
    assert "mpremote is not installed" in capsys.readouterr().err
    assert cli_main(["firmware", "install", "--dry-run"]) == 0  # lists without mpremote
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("frames.py -> :frames.py") and "would run: mpremote" in out
    monkeypatch.setattr(firmware, "mpremote_command", lambda: ["mpremote"])
    monkeypatch.setattr(firmware, "_run", FakeMpremote(listing=""))
    monkeypatch.setattr(
        firmware.install,
        "__kwdefaults__",
        {**firmware.install.__kwdefaults__, "runner": firmware._run},
    )
    assert cli_main(["firmware", "install"]) == 1
    assert "no MicroPython board found on USB" in capsys.readouterr().err
