"""The native core's C computes the same on 32- and 64-bit ARM (Raspberry Pi OS Bookworm's
armhf and arm64) as here: Debian's cross compilers build it warning-free and qemu runs it to
the same checksum of millions of sowings, playouts and searches. `soak`: it needs
gcc-arm-linux-gnueabihf, gcc-aarch64-linux-gnu and qemu-user (skipped without them)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

NATIVE = Path(__file__).parents[2] / "kiothi_board" / "native"
HARNESS = Path(__file__).parent / "native_harness.c"
TARGETS = [  # compiler, emulator (None: runs here)
    ("gcc", None),
    ("arm-linux-gnueabihf-gcc", "qemu-arm"),
    ("aarch64-linux-gnu-gcc", "qemu-aarch64"),
]


@pytest.mark.soak
def test_the_same_checksum_on_every_architecture(tmp_path: Path) -> None:
    missing = [t for pair in TARGETS for t in pair if t and shutil.which(t) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    sums = {}
    for cc, emulator in TARGETS:
        exe = tmp_path / cc
        build = subprocess.run(
            [cc, "-O2", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror",
             "-static", f"-I{NATIVE}", str(HARNESS), str(NATIVE / "sow.c"),
             str(NATIVE / "tree.c"), "-o", str(exe)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert build.returncode == 0, build.stderr
        run = subprocess.run(
            [emulator, str(exe)] if emulator else [str(exe)],
            capture_output=True, text=True, check=True, timeout=900,
        )  # fmt: skip
        sums[cc] = run.stdout.split("checksum ")[1].strip()
    assert len(set(sums.values())) == 1, sums
