"""`kiothi-board firmware install`: what it copies, and clear errors without a Pico (the update
itself, end to end: test_firmware_update.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.cli import main as cli_main
from kiothi_board.tools import firmware
from kiothi_board.tools.firmware import FILES, FirmwareError, install

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


def test_dry_run_lists_the_four_files_main_last(capsys: Any) -> None:
    said: list[str] = []
    command = install(SOURCE, dry_run=True, mpremote=MPREMOTE, say=said.append)
    assert [line.split(" -> ")[1] for line in said[:4]] == [f":{n}" for n in FILES]
    assert FILES[-1] == "main.py" and command[:3] == ["mpremote", "connect", "auto"]
    assert command[-1] == "reset" and said[-1].startswith("would run: mpremote connect auto cp")


@pytest.mark.parametrize("listing", ["", UART])
def test_no_board_attached_is_a_clear_error(listing: str) -> None:
    fake = FakeMpremote(listing)
    said: list[str] = []
    with pytest.raises(FirmwareError, match="no MicroPython board found on USB"):
        install(SOURCE, runner=fake, mpremote=MPREMOTE, service_running=lambda: False,
                say=said.append)  # fmt: skip
    assert len(fake.calls) == 1  # nothing was copied
    assert said == [], "the Pico is looked for before any copy is announced"  # issue 31.17


def test_a_named_port_that_is_not_there_says_so(tmp_path: Path) -> None:
    fake = FakeMpremote()
    port = str(tmp_path / "ttyACM3")
    with pytest.raises(FirmwareError, match=f"cannot open {port}"):
        install(SOURCE, device=port, runner=fake, mpremote=MPREMOTE,
                service_running=lambda: False, say=print)  # fmt: skip
    assert fake.calls == []


def test_missing_files_change_nothing(tmp_path: Path) -> None:
    (tmp_path / "frames.py").write_text("", encoding="utf-8")
    with pytest.raises(
        FirmwareError, match=r"missing firmware file.*device\.py, config\.py, main\.py"
    ):
        install(tmp_path, runner=FakeMpremote(), mpremote=MPREMOTE, say=print)


def test_help_is_for_the_person_at_the_keyboard(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        cli_main(["firmware", "install", "--help"])
    text = capsys.readouterr().out
    assert "sudo systemctl stop kiothi-board" in text and "--dry-run" in text
    assert "runner" not in text and "injectable" not in text and "tests" not in text


def test_cli_without_mpremote_or_board(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setattr(
        firmware,
        "mpremote_command",
        lambda: (_ for _ in ()).throw(
            FirmwareError("mpremote is not installed: pip install mpremote (the pi extra has it)")
        ),
    )
    monkeypatch.setattr(firmware, "_service_running", lambda run: False)
    assert cli_main(["firmware", "install"]) == 1
    assert "mpremote is not installed" in capsys.readouterr().err
    assert cli_main(["firmware", "install", "--dry-run"]) == 0  # lists without mpremote
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("frames.py -> :frames.py") and "would run: mpremote" in out
    monkeypatch.setattr(firmware, "mpremote_command", lambda: ["mpremote"])
    monkeypatch.setattr(firmware, "_run", FakeMpremote(listing=""))
    assert cli_main(["firmware", "install"]) == 1
    got = capsys.readouterr()
    assert "no MicroPython board found on USB" in got.err
    assert " -> " not in got.out, got.out  # no copy line before the Pico is found
