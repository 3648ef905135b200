"""How much the suite checks: tests collected (in `make test` and in `make soak`) and the
assertions written in tests/ (issue 32: a faster suite must not check less).

    .venv/bin/python scripts/suite_counts.py            # the counts, one per line
    .venv/bin/python scripts/suite_counts.py --no-collect

Assertions are counted by AST: `assert` statements, `pytest.raises`/`pytest.warns` (each
checks that something fails as it should), and the waits that fail a test when what they
wait for never comes (`poll_until`, `wait_js`).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


WAITS = ("poll_until", "wait_js")
"""Calls that fail the test when what they wait for never comes (an assertion with a
deadline): `poll_until` took over the `assert time.monotonic() < deadline` loops."""


def _called(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        return f"{f.value.id}.{f.attr}"
    return f.id if isinstance(f, ast.Name) else ""


def assertions(tests: Path) -> dict[str, int]:
    """What tests/ checks, counted by AST: `assert` statements, `pytest.raises`/`warns`,
    failing waits (WAITS), and test functions."""
    counts = dict.fromkeys(("assert statements", "pytest.raises/warns", "failing waits"), 0)
    counts["test functions"] = 0
    for path in sorted(tests.rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Assert):
                counts["assert statements"] += 1
            elif isinstance(node, ast.Call) and _called(node) in ("pytest.raises", "pytest.warns"):
                counts["pytest.raises/warns"] += 1
            elif isinstance(node, ast.Call) and _called(node) in WAITS:
                counts["failing waits"] += 1
            elif isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                counts["test functions"] += 1
    return counts


def collected(*args: str) -> int:
    """How many tests pytest collects (and keeps) with `args`."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    counts = re.findall(r"^\S+\.py: (\d+)$", out, re.MULTILINE)  # the -qq form: "file: n"
    if not counts:
        raise SystemExit(f"no count in pytest's output:\n{out[-2000:]}")
    return sum(int(n) for n in counts)


def main() -> None:
    for name, n in assertions(ROOT / "tests").items():
        print(f"{name}: {n}")
    if "--no-collect" not in sys.argv:
        print(f"collected (make test): {collected()}")
        print(f"collected (make soak): {collected('--soak')}")
        core = collected("tests/rules", "tests/ai", "tests/test_players.py")
        print(f"collected (the Python-core rerun): {core}")


if __name__ == "__main__":
    main()
