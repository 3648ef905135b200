"""House rules checked over the source: one clock, tools in their own room, static imports."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from kiothi_board.clock import FAKE_EPOCH, Clock, FakeClock, SystemClock

PACKAGE = Path(__file__).resolve().parents[1] / "kiothi_board"
CLOCK_READS = {("time", "time"), ("time", "monotonic"), ("time", "perf_counter")}
# The clock driver, the simulated co-processor (a device with its own clock), the daemon,
# and the tools (benchmarks measure with perf_counter).
MAY_READ_THE_CLOCK = {"clock.py", "hardware/link_sim.py", "daemon.py"}


@functools.cache
def _sources() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text("utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def _clock_reads(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in CLOCK_READS:
                found.append(f"{node.value.id}.{node.attr}")
            if node.attr in ("now", "utcnow") and node.value.id == "datetime":
                found.append(f"datetime.{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module == "time":
            found += [f"from time import {a.name}" for a in node.names]
    return found


def test_only_drivers_daemon_and_tools_read_the_system_clock() -> None:
    offenders = {
        name: reads
        for name, tree in _sources()
        if not name.startswith("tools/") and name not in MAY_READ_THE_CLOCK
        if (reads := _clock_reads(tree))
    }
    assert offenders == {}


def test_the_library_never_imports_tools_and_cli_imports_statically() -> None:
    for name, tree in _sources():
        for node in ast.walk(tree):
            library = not (name.startswith("tools/") or name == "cli.py")
            if library and isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("kiothi_board.tools"), name
            if isinstance(node, ast.Import | ast.ImportFrom) and name == "cli.py":
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                assert "importlib" not in modules and getattr(node, "module", "") != "importlib"


def test_guide_render_is_only_a_function() -> None:
    import kiothi_board.tools.guide_pictures  # noqa: F401  (importing it changes nothing)
    from kiothi_board.guide import render

    assert callable(render) and not hasattr(render, "__path__")
    assert not (PACKAGE / "guide" / "render.py").exists()


def test_clocks_have_monotonic_and_wall_time() -> None:
    clock = FakeClock(5.0)
    assert isinstance(clock, Clock) and isinstance(SystemClock(), Clock)
    assert (clock.now(), clock.wall()) == (5.0, FAKE_EPOCH)
    clock.advance(2.5)
    assert (clock.now(), clock.wall()) == (7.5, FAKE_EPOCH + 2.5)
    clock.set(10.0)
    assert clock.wall() == FAKE_EPOCH + 5.0
    assert FakeClock(wall_start=1000.0).wall() == 1000.0
    system = SystemClock()
    assert system.wall() > FAKE_EPOCH - 86400 * 365 * 10 and system.now() > 0


def test_no_two_classes_share_a_name() -> None:
    """House rule 10: a class name says one thing in the whole package."""
    where: dict[str, list[str]] = {}
    for name, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(name)
    assert {n: files for n, files in where.items() if len(files) > 1} == {}


def test_one_clock_protocol() -> None:
    protocols = [
        name
        for name, tree in _sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.name == "Clock"
    ]
    assert protocols == ["clock.py"]
