"""CPU seconds per test (issue 32): a pytest plugin, and the ranking of what it wrote.

On a shared 2-core machine wall seconds are noise, but CPU seconds are not: the suite's wall
time is at least its CPU seconds over the cores. With `--cpu-times DIR` every test's setup,
call and teardown are charged with the CPU the worker used (user + system), the CPU of the
processes it started and waited for (`getrusage(RUSAGE_CHILDREN)`), and the CPU that its
live descendants (a daemon, a broker, the worker's Chromium) used meanwhile, read from /proc.
Each worker appends JSON lines to DIR/<worker>.jsonl; then

    .venv/bin/python -m tests.cpu_times DIR [--top 40]

ranks the tests, sums the files and names the costliest modules.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TICK = os.sysconf("SC_CLK_TCK")


def _descendants_cpu(root: int) -> float:
    """CPU seconds (with their reaped children's) of every live process below `root`."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (name) "
        pid = int(entry)
        parent[pid] = int(fields[1])
        cpu[pid] = sum(int(f) for f in fields[11:15]) / TICK  # utime stime cutime cstime
    total = 0.0
    for pid in cpu:
        up = parent.get(pid)
        while up is not None and up not in (0, 1):
            if up == root:
                total += cpu[pid]
                break
            up = parent.get(up)
    return total


def _sample() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        own.ru_utime + own.ru_stime,
        kids.ru_utime + kids.ru_stime + _descendants_cpu(os.getpid()),
        time.monotonic(),
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-times",
        metavar="DIR",
        default=None,
        help="write each test's CPU seconds (its own and its processes') to DIR/<worker>.jsonl",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    out = item.config.getoption("--cpu-times")
    if out is None:
        yield
        return
    before = _sample()
    yield
    after = _sample()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    row = {
        "test": item.nodeid,
        "self": round(after[0] - before[0], 3),
        "children": round(after[1] - before[1], 3),
        "wall": round(after[2] - before[2], 3),
        "worker": worker,
    }
    Path(out).mkdir(parents=True, exist_ok=True)
    with open(Path(out) / f"{worker}.jsonl", "a") as f:
        f.write(json.dumps(row) + "\n")


def _rows(folder: Path) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text().splitlines() if line]
    return rows


def report(folder: Path, top: int) -> str:
    """The ranking: the `top` costliest tests, the costliest modules, the sums."""
    rows = _rows(folder)
    for row in rows:
        row["cpu"] = row["self"] + row["children"]
    rows.sort(key=lambda r: -r["cpu"])
    lines = [f"{'cpu s':>7} {'self':>7} {'child':>7} {'wall':>7}  test"]
    for r in rows[:top]:
        lines.append(
            f"{r['cpu']:7.2f} {r['self']:7.2f} {r['children']:7.2f} {r['wall']:7.2f}  {r['test']}"
        )
    modules: dict[str, float] = defaultdict(float)
    for r in rows:
        modules[r["test"].split("::")[0]] += r["cpu"]
    lines.append("")
    lines.append(f"{'cpu s':>7}  module")
    for name, cpu in sorted(modules.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"{cpu:7.2f}  {name}")
    total = sum(r["cpu"] for r in rows)
    own = sum(r["self"] for r in rows)
    lines.append("")
    lines.append(
        f"{len(rows)} tests: {total:.1f} CPU s ({own:.1f} in the workers, "
        f"{total - own:.1f} in their processes); on 2 cores at least {total / 2:.0f} s wall"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="rank the tests by CPU seconds")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    print(report(args.folder, args.top))


if __name__ == "__main__":
    main()
