"""Which core runs: the native one when it loads, else the Python path, with a log line
saying why; `KIOTHI_CORE=python` forces the Python path, `KIOTHI_CORE=native` insists."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kiothi_board import native
from kiothi_board.rules import Position, Variant

REPORT = """
import logging, sys
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s", stream=sys.stdout)
{prelude}
from kiothi_board import native
from kiothi_board.rules import Position
pos = Position.initial()
print("legal", pos.open("pass").open("pass").legal_moves())
print("core", native.default_core(), type(pos.engine).__name__)
"""


def run(prelude: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != native.ENV} | env
    return subprocess.run(
        [sys.executable, "-c", REPORT.format(prelude=prelude)],
        capture_output=True,
        text=True,
        env=environ,
        check=False,
    )


def test_the_environment_forces_the_python_path() -> None:
    out = run(KIOTHI_CORE="python")
    assert out.returncode == 0, out.stderr
    assert "core python PyEngine" in out.stdout and "legal [5, 6, 7, 8, 9]" in out.stdout
    assert "INFO kiothi-board runs the Python path: KIOTHI_CORE=python" in out.stdout


def test_a_missing_extension_falls_back_with_a_warning() -> None:
    out = run("sys.modules['kiothi_board.native._core'] = None  # as if never built")
    assert out.returncode == 0, out.stderr
    assert "core python PyEngine" in out.stdout and "legal [5, 6, 7, 8, 9]" in out.stdout
    assert "WARNING kiothi-board runs the Python path: the native core is not built" in out.stdout


def test_a_stale_extension_falls_back_with_a_warning() -> None:
    stale = (
        "import types; old = types.ModuleType('kiothi_board.native._core'); old.ABI = 0; "
        "sys.modules[old.__name__] = old  # an extension built from older sources"
    )
    out = run(stale)
    assert out.returncode == 0, out.stderr
    assert "core python" in out.stdout and "stale" in out.stdout


def test_insisting_on_a_missing_native_core_is_an_error() -> None:
    out = run("sys.modules['kiothi_board.native._core'] = None", KIOTHI_CORE="native")
    assert out.returncode != 0 and "NativeCoreError" in out.stderr and "KIOTHI_CORE" in out.stderr


@pytest.mark.skipif(not native.native_available(), reason="no native core")
def test_the_native_core_runs_when_built() -> None:
    out = run()
    assert "core native NativeEngine" in out.stdout, out.stdout + out.stderr
    assert "INFO kiothi-board runs the native core" in out.stdout


def test_forced_switches_the_default_for_a_block() -> None:
    with native.forced("python"):
        assert type(Position.initial(Variant(V2=True)).engine).__name__ == "PyEngine"
    with pytest.raises(ValueError, match="bad core 'fast'"):
        native.resolve("fast")  # type: ignore[arg-type]


def test_doctor_says_which_core_runs() -> None:
    from kiothi_board.tools.doctor_checks import ai_core

    check = ai_core()
    assert check.name == "ai core" and check.data["core"] == native.default_core()
    assert native.describe() in check.detail
    with native.forced("python"):  # not asked for by KIOTHI_CORE: a slower board, a warning
        slow = ai_core()
    assert slow.data["core"] == "python"
