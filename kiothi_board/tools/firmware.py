"""`kiothi-board firmware install`: copy the kiothi-io firmware to a Pico with mpremote.

The Pico must already run MicroPython (hold BOOTSEL, copy the UF2: firmware/README.md).
The firmware files come from the source checkout (firmware/kiothi_io) or, in an installed
package, from `<prefix>/share/kiothi-board/firmware/kiothi_io`. mpremote is run as a
subprocess (`runner` is injectable, so tests need neither mpremote nor a Pico).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from kiothi_board.config import load
from kiothi_board.errors import ConfigError, KiothiError

__all__ = ["FILES", "FirmwareError", "firmware_dir", "install", "main", "plan"]

FILES = ("frames.py", "device.py", "config.py", "main.py")
"""Copied in this order: main.py last, so a half-finished copy never boots new code."""

Runner = Callable[[list[str]], subprocess.CompletedProcess[str]]


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
    tree = ast.parse((source / "config.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    return ast.literal_eval(node.value)
    raise FirmwareError(f"{source / 'config.py'}: no {name} setting")


def mpremote_command() -> list[str]:
    """How to run mpremote here; FirmwareError if it is not installed."""
    if importlib.util.find_spec("mpremote") is not None:
        return [sys.executable, "-m", "mpremote"]
    found = shutil.which("mpremote")
    if found:
        return [found]
    raise FirmwareError("mpremote is not installed: pip install mpremote (the pi extra has it)")


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def install(
    source: Path,
    *,
    device: str | None = None,
    leds_per_ring: int | None = None,
    runner: Runner | None = None,
    mpremote: Sequence[str] | None = None,
    dry_run: bool = False,
    say: Callable[[str], None] = print,
) -> list[str]:
    """Copy the firmware and reset the board; returns the mpremote command it ran.

    `leds_per_ring` (the Pi's `[leds]` setting) must match the firmware's LEDS_PER_RING.
    Raises FirmwareError with what to do when anything is missing or fails.
    """
    files = plan(source)
    run = runner or _run
    if leds_per_ring is not None:
        theirs = firmware_setting(source, "LEDS_PER_RING")
        if theirs != leds_per_ring:
            raise FirmwareError(
                f"{source / 'config.py'}: LEDS_PER_RING = {theirs!r} but the config's "
                f"leds.leds_per_ring = {leds_per_ring}: edit one of them"
            )
    if mpremote is not None:
        base = list(mpremote)
    else:
        try:
            base = mpremote_command()
        except FirmwareError:
            if not dry_run:
                raise
            base = ["mpremote"]
    command = [*base, "connect", device or "auto"]
    for local, remote in files:
        command += ["cp", str(local), remote, "+"]
    command += ["reset"]
    for local, remote in files:
        say(f"{local} -> {remote}")
    if dry_run:
        say("would run: " + " ".join(command))
        return command
    if device is None:
        listed = run([*base, "connect", "list"])
        boards = [line for line in listed.stdout.splitlines() if _usb(line)]
        if listed.returncode != 0 or not boards:
            raise FirmwareError(
                "no MicroPython board found on USB: plug the Pico in (flash the MicroPython "
                "UF2 first: firmware/README.md) or pass --device PORT"
            )
        say(f"board: {boards[0]}")
    done = run(command)
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
        if "no device found" in why or "failed to access" in why or "could not" in why.lower():
            why += f" (is the Pico on {device or 'USB'}?)"
        raise FirmwareError(f"mpremote failed: {why}")
    say("firmware installed; the board restarts into it")
    return command


def _usb(line: str) -> bool:
    """A `mpremote connect list` line for a USB device (not a UART such as /dev/ttyAMA0)."""
    fields = line.split()
    return (
        len(fields) >= 3
        and re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{4}", fields[2]) is not None
        and fields[2] != "0000:0000"
    )


def main(argv: Sequence[str]) -> int:
    """`kiothi-board firmware install [--device PORT] [--source DIR] [--config F] [--dry-run]`."""
    parser = argparse.ArgumentParser(prog="kiothi-board firmware", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help="copy firmware/kiothi_io to a Pico and reset it")
    inst.add_argument("--device", help="the Pico's serial port (default: the first one found)")
    inst.add_argument("--source", help="the firmware directory (default: the bundled one)")
    inst.add_argument("--config", help="check leds_per_ring against this config")
    inst.add_argument("--dry-run", action="store_true", help="list what would be copied")
    args = parser.parse_args(argv)
    try:
        source = Path(args.source) if args.source else firmware_dir()
        leds = load(args.config)["leds"]["leds_per_ring"] if args.config else None
        install(source, device=args.device, leds_per_ring=leds, dry_run=args.dry_run)
    except (FirmwareError, ConfigError) as exc:
        print(f"kiothi-board firmware: {exc}", file=sys.stderr)
        return 1
    return 0
