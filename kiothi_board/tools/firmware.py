"""`kiothi-board firmware install`: put the kiothi-io firmware on the Pico, fresh or running.

A running kiothi-io firmware has Ctrl-C switched off and a watchdog on, so mpremote cannot
break in. The update therefore asks first, over the link: HELLO, then MAINTENANCE, which the
firmware answers before it restarts into its update mode (MicroPython's REPL, no watchdog).
A Pico that does not answer HELLO runs plain MicroPython (a fresh one, or one already in the
update mode) and gets the files at once. mpremote copies frames.py, device.py, config.py and
main.py (last) and resets the board; then the tool shakes hands again and checks that the
board restarted into the version it copied. The firmware files come from the checkout
(firmware/kiothi_io) or the installed package (`<prefix>/share/kiothi-board/firmware`).
mpremote, the link, the clock and the waits are injectable: tests run real mpremote against
the simulated co-processor (`link_sim`) on a pseudo-terminal.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from kiothi_board.clock import Clock, SystemClock
from kiothi_board.errors import ConfigError, KiothiError
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.link import CoprocessorLink, LinkMessage
from kiothi_board.hardware.link_sim import firmware_setting as _setting
from kiothi_board.helptext import RawDefaultsFormatter

__all__ = ["FILES", "FirmwareError", "firmware_dir", "firmware_setting", "install", "main"]

FILES = ("frames.py", "device.py", "config.py", "main.py")
"""Copied in this order: main.py last, so a half-finished copy never boots new code."""
RECOVERY = (
    "hold BOOTSEL while plugging the Pico in, copy flash_nuke.uf2 to the RPI-RP2 drive (it "
    "erases the files), then the MicroPython UF2, then run this again (firmware/README.md)"
)

Runner = Callable[[list[str]], subprocess.CompletedProcess[str]]
LinkFactory = Callable[[str], CoprocessorLink]


class FirmwareError(KiothiError):
    """The firmware cannot be installed: no mpremote, no board, a copy failed."""


def firmware_dir() -> Path:
    """Where the firmware files are: the source checkout, else the installed data files."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (
        package.parent / "firmware" / "kiothi_io",
        Path(sys.prefix) / "share" / "kiothi-board" / "firmware" / "kiothi_io",
    ):
        if (candidate / "main.py").exists():
            return candidate
    raise FirmwareError("cannot find the firmware files (firmware/kiothi_io); pass --source DIR")


def plan(source: Path) -> list[tuple[Path, str]]:
    """(local file, path on the Pico) for every file to copy; FirmwareError if one is missing."""
    missing = [name for name in FILES if not (source / name).is_file()]
    if missing:
        raise FirmwareError(f"{source}: missing firmware file(s) {', '.join(missing)}")
    return [(source / name, f":{name}") for name in FILES]


def firmware_setting(source: Path, name: str) -> object:
    """A constant from the firmware's config.py (read, not run: it is MicroPython code)."""
    try:
        return _setting(source, name)
    except ConfigError as exc:
        raise FirmwareError(str(exc)) from exc


def mpremote_command() -> list[str]:
    """How to run mpremote here; FirmwareError if it is not installed."""
    if importlib.util.find_spec("mpremote") is not None:
        return [sys.executable, "-m", "mpremote"]
    found = shutil.which("mpremote")
    if found:
        return [found]
    raise FirmwareError("mpremote is not installed: pip install mpremote (the pi extra has it)")


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)


def _service_running(run: Runner) -> bool:
    if shutil.which("systemctl") is None:
        return False
    return run(["systemctl", "is-active", "--quiet", "kiothi-board.service"]).returncode == 0


class Updater:
    """One `firmware install`: find the board, bring it to its REPL, copy, check."""

    def __init__(
        self,
        source: Path,
        *,
        device: str | None = None,
        runner: Runner | None = None,
        mpremote: Sequence[str] | None = None,
        link_factory: LinkFactory | None = None,
        clock: Clock | None = None,
        pause: Callable[[float], None] | None = None,
        service_running: Callable[[], bool] | None = None,
        say: Callable[[str], None] = print,
        hello_timeout: float = 2.0,
    ) -> None:
        self.source = source
        self.files = plan(source)
        self.device = device
        self.run = runner or _run
        self.base = list(mpremote) if mpremote is not None else None
        self.clock = clock or SystemClock()
        self.link_factory = link_factory or (lambda port: CoprocessorLink(port, clock=self.clock))
        self.pause = pause or (lambda s: threading.Event().wait(s))
        self.service_running = service_running or (lambda: _service_running(self.run))
        self.say = say
        self.hello_timeout = hello_timeout

    def command(self, port: str) -> list[str]:
        """The mpremote command that copies the files and resets the board."""
        command = [*(self.base or ["mpremote"]), "connect", port]
        for local, remote in self.files:
            command += ["cp", str(local), remote, "+"]
        return [*command, "reset"]

    def install(self) -> list[str]:
        """Everything, in order; returns the mpremote command it ran."""
        if self.service_running():
            raise FirmwareError(
                "the kiothi-board service is running and holds the Pico's port: "
                "sudo systemctl stop kiothi-board, run this again, then start it"
            )
        base = self.base = self.base or mpremote_command()
        port = self.device or self._find_board(base)
        wanted = firmware_setting(self.source, "FIRMWARE_VERSION")
        self._to_repl(port)
        for local, remote in self.files:  # said once the Pico is found, never before
            self.say(f"{local} -> {remote}")
        command = self.command(port)
        done = self.run(command)
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
            if "failed to access" in why or "could not" in why.lower() or "no device" in why:
                why += f" (is the Pico on {port}? if it runs kiothi-io 0.1: {RECOVERY})"
            raise FirmwareError(f"mpremote failed: {why}")
        self._check_restart(port, tuple(wanted))  # type: ignore[arg-type]
        return command

    def _find_board(self, base: list[str]) -> str:
        listed = self.run([*base, "connect", "list"])
        boards = [line for line in listed.stdout.splitlines() if _usb(line)]
        if listed.returncode != 0 or not boards:
            raise FirmwareError(
                "no MicroPython board found on USB: plug the Pico in (flash the MicroPython "
                "UF2 first: firmware/README.md) or pass --device PORT"
            )
        self.say(f"board: {boards[0]}")
        return boards[0].split()[0]

    def _to_repl(self, port: str) -> None:
        """A running kiothi-io is asked to restart into its update mode; others are left."""
        answered = threading.Event()

        def on_message(message: LinkMessage) -> None:
            if message.type == cf.MAINTENANCE:
                answered.set()

        try:
            link = self.link_factory(port)
        except KiothiError as exc:
            raise FirmwareError(f"cannot open {port}: {exc}") from exc
        try:
            if not link.wait_up(self.hello_timeout):
                self.say(f"{port}: no kiothi-io firmware answers: copying to MicroPython")
                return
            info = link.device
            assert info is not None
            version = ".".join(map(str, info.firmware))
            if not info.updatable:
                raise FirmwareError(
                    f"the Pico runs kiothi-io {version}, which has no update mode and cannot be "
                    f"reached over USB: {RECOVERY}"
                )
            link.add_listener(on_message)
            link.request_maintenance()
            if not link.wait_for(answered.is_set, self.hello_timeout):
                raise FirmwareError(f"kiothi-io {version} on {port} did not answer MAINTENANCE")
            self.say(f"kiothi-io {version} restarts into its update mode")
        finally:
            link.close()
        self._await_port(port)

    def _await_port(self, port: str, gone: float = 2.0, back: float = 15.0) -> None:
        """A real Pico leaves USB and comes back: wait for that (a pty never leaves)."""
        deadline = self.clock.now() + gone
        while os.path.exists(port) and self.clock.now() < deadline:
            self.pause(0.1)
        deadline = self.clock.now() + back
        while not os.path.exists(port):
            if self.clock.now() >= deadline:
                raise FirmwareError(f"{port} did not come back after the restart")
            self.pause(0.1)

    def _check_restart(self, port: str, wanted: tuple[int, int, int]) -> None:
        self._await_port(port)
        link = self.link_factory(port)
        try:
            up = link.wait_up(self.hello_timeout * 3)
            running = link.device.firmware if up and link.device else None
        finally:
            link.close()
        want = ".".join(map(str, wanted))
        if running != wanted:
            got = ".".join(map(str, running)) if running else "no answer"
            raise FirmwareError(f"the Pico did not restart into kiothi-io {want} ({got})")
        self.say(f"firmware installed: the Pico runs kiothi-io {want}")


def install(
    source: Path,
    *,
    dry_run: bool = False,
    say: Callable[[str], None] = print,
    **options: object,
) -> list[str]:
    """Copy the firmware (see `Updater`); with `dry_run`, only list what would be done."""
    updater = Updater(source, say=say, **options)  # type: ignore[arg-type]
    if dry_run:
        for local, remote in updater.files:
            say(f"{local} -> {remote}")
        say("would run: " + " ".join(updater.command(updater.device or "auto")))
        return updater.command(updater.device or "auto")
    return updater.install()


def _usb(line: str) -> bool:
    """A `mpremote connect list` line for a USB device (not a UART such as /dev/ttyAMA0)."""
    fields = line.split()
    return (
        len(fields) >= 3
        and re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{4}", fields[2]) is not None
        and fields[2] != "0000:0000"
    )


DESCRIPTION = """\
Put the co-processor firmware (firmware/kiothi_io) on the Raspberry Pi Pico that reads the
buttons. Works on a fresh Pico with MicroPython and on one already running kiothi-io (it is
asked to restart into its update mode first). Stop the service before, start it after:

  sudo systemctl stop kiothi-board
  kiothi-board firmware install
  sudo systemctl start kiothi-board
"""


def main(argv: Sequence[str]) -> int:
    """`kiothi-board firmware install [--device PORT] [--source DIR] [--dry-run]`."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board firmware",
        description=DESCRIPTION,
        formatter_class=RawDefaultsFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser(
        "install",
        help="copy the firmware to the Pico and restart it",
        description=DESCRIPTION,
        formatter_class=RawDefaultsFormatter,
    )
    inst.add_argument("--device", help="the Pico's serial port (default: the first one on USB)")
    inst.add_argument("--source", help="another firmware folder (default: the bundled one)")
    inst.add_argument("--dry-run", action="store_true", help="list what would be copied")
    args = parser.parse_args(argv)
    try:
        source = Path(args.source) if args.source else firmware_dir()
        install(source, device=args.device, dry_run=args.dry_run)
    except FirmwareError as exc:
        print(f"kiothi-board firmware: {exc}", file=sys.stderr)
        return 1
    return 0
