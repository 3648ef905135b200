"""The import graph, every import counted (lazy ones in functions, type-only ones too): no
module imports itself round a circle, and no room imports a room on a higher floor
(the floors of docs/architecture.md)."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kiothi_board"
DOC = ROOT / "docs" / "architecture.md"

# The floors, lowest first: a module may import its own floor and the floors below.
FLOORS: dict[str, int] = {
    "kiothi_board": 0,  # the package's face
    "kiothi_board.config_tables": 0,
    "kiothi_board.config_checks": 0,
    "kiothi_board.helptext": 0,
    "kiothi_board.errors": 0,
    "kiothi_board.clock": 0,
    "kiothi_board.frame": 0,
    "kiothi_board.listeners": 0,
    "kiothi_board.i18n": 0,  # the words: message values and catalogs (stdlib gettext only)
    "kiothi_board.rules": 0,
    "kiothi_board.native": 0,
    "kiothi_board.ai": 1,
    "kiothi_board.guide": 1,
    "kiothi_board.hardware.protocols": 1,
    "kiothi_board.hardware": 2,
    "kiothi_board.store": 2,
    "kiothi_board.sdnotify": 2,
    "kiothi_board.controller": 3,
    "kiothi_board.config": 3,
    "kiothi_board.players": 3,
    "kiothi_board.remote": 3,  # the match's actions, checker and opponent (pure)
    "kiothi_board.exhibit": 4,
    "kiothi_board.board": 5,
    "kiothi_board.exhibition": 5,
    "kiothi_board.drivers": 5,
    "kiothi_board.startup": 5,
    "kiothi_board.fake_time": 5,
    "kiothi_board.sim": 5,
    "kiothi_board.api": 6,
    "kiothi_board.fleet": 6,
    "kiothi_board.remote.wire": 6,  # the match on the broker (paho-mqtt)
    "kiothi_board.remote.doors": 6,  # its commands in the API
    "kiothi_board.daemon": 7,
    "kiothi_board.daemon_cli": 8,
    "kiothi_board.tools": 8,
    "kiothi_board.cli": 9,
    "kiothi_board.__main__": 9,
}


@functools.cache
def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str) -> set[str]:
    """The package's modules `name` imports, anywhere in it (relative imports resolved)."""
    mods = _modules()
    path = mods[name]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            targets = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        for target in targets:
            while target not in mods and "." in target:
                target = target.rpartition(".")[0]
            if target in mods and target != name:
                found.add(target)
    return found


def _floor(name: str) -> int:
    prefix = max((p for p in FLOORS if name == p or name.startswith(p + ".")), key=len)
    return FLOORS[prefix]


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return circles


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{name} (floor {_floor(name)}) imports {target} (floor {_floor(target)})"
        for name, targets in graph.items()
        for target in targets
        if _floor(target) > _floor(name)
    )


def test_no_module_imports_itself_round_a_circle() -> None:
    assert _circles({name: _imports(name) for name in _modules()}) == []


def test_no_room_imports_a_higher_floor() -> None:
    assert _upward({name: _imports(name) for name in _modules()}) == []


def test_every_module_has_a_floor() -> None:
    assert all(any(n == p or n.startswith(p + ".") for p in FLOORS) for n in _modules())


def test_the_checks_find_the_circles_and_the_upward_import_main_had() -> None:
    """Before the board loop: daemon <-> daemon_cli <-> fake_time, and fake_time (a floor
    below the daemon) importing it."""
    old = {
        "kiothi_board.daemon": {"kiothi_board.daemon_cli", "kiothi_board.fake_time"},
        "kiothi_board.daemon_cli": {"kiothi_board.daemon"},
        "kiothi_board.fake_time": {"kiothi_board.daemon"},
    }
    assert len(_circles(old)) == 2
    assert _upward(old) == [
        "kiothi_board.daemon (floor 7) imports kiothi_board.daemon_cli (floor 8)",
        "kiothi_board.fake_time (floor 5) imports kiothi_board.daemon (floor 7)",
    ]


def documented_floors() -> dict[str, int]:
    """The rooms docs/architecture.md's floor table names (every `name` in a row), as
    module names with their floor."""
    section = DOC.read_text("utf-8").split("## The floors", 1)[1].split("\n## ", 1)[0]
    out: dict[str, int] = {}
    for floor, rooms in re.findall(r"(?m)^\| (\d+) \| (.*) \|$", section):
        for room in re.findall(r"`([a-z_][a-z0-9_]*(?:/[a-z0-9_]+)*(?:\.py|/))`", rooms):
            out["kiothi_board." + room.removesuffix("/").removesuffix(".py").replace("/", ".")] = (
                int(floor)
            )
    return out


def test_the_doc_names_every_floor_as_the_test_holds_it() -> None:
    """Every room of FLOORS is in the doc's table on the same floor, the doc names no other,
    and no module takes its floor from the package face unnamed (a new top-level module
    must be given a floor here and in the doc)."""
    named = {k: v for k, v in FLOORS.items() if k != "kiothi_board"}
    assert documented_floors() == named
    unnamed = [
        n
        for n in _modules()
        if n != "kiothi_board" and not any(n == p or n.startswith(p + ".") for p in named)
    ]
    assert unnamed == []
