"""`kiothi-board pinout [MAP]`: print and check a pin map; regenerate the docs made from the maps.

Without MAP it checks the wiring the config describes (`--config`, default the built-in
one). Exit status 1 when the map has problems (each names its key), 2 for a map or config
that cannot be read. `--write-docs DIR` rewrites the generated sections of DIR/README.md and
the wiring diagrams DIR/wiring-*.svg; `--check-docs DIR` fails if any of them is stale.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from kiothi_board.config import load
from kiothi_board.errors import ConfigError
from kiothi_board.hardware.pinmap import (
    MAP_NAMES,
    PIT_NAMES,
    PinMap,
    Problem,
    check_map,
    load_map,
)
from kiothi_board.hardware.registry import map_from_config
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.tools import bom
from kiothi_board.tools.wiring_svg import wiring_svg

COMMAND = "kiothi-board pinout --write-docs hardware"
_SECTION = re.compile(
    r"(<!-- BEGIN generated ([\w-]+) .*?-->\n)(.*?)(<!-- END generated \2 -->)", re.DOTALL
)


def describe(pin_map: PinMap) -> list[tuple[str, str, int, int | None]]:
    """(key, function, GPIO, header pin) for every pin the map uses."""
    header = pin_map.header.header
    rows = []
    pits = len(pin_map.pits)
    for i, (key, gpio) in enumerate(pin_map.assignments()):
        what = f"pit {PIT_NAMES[i]}" if i < pits else f"control {i - pits}"
        rows.append((key, what, gpio, header.get(gpio)))
    return rows


def pit_table(pin_map: PinMap) -> str:
    """Markdown: the pits side by side (S row | N row) with GPIO and header pin."""
    p = pin_map.header.gpio_prefix
    header = pin_map.header.header
    lines = [
        f"| Pit | {p} | Header pin | | Pit | {p} | Header pin |",
        "|-----|------|-----------|-|-----|------|-----------|",
    ]
    for i in range(10):
        s, n = pin_map.pits[i], pin_map.pits[i + 10]
        lines.append(
            f"| {PIT_NAMES[i]} | {s} | {header.get(s, '—')} | "
            f"| {PIT_NAMES[i + 10]} | {n} | {header.get(n, '—')} |"
        )
    return "\n".join(lines) + "\n"


def function_table(pin_map: PinMap) -> str:
    """Markdown: controls and the pins kept free, with why."""
    p = pin_map.header.gpio_prefix
    header = pin_map.header.header
    lines = ["| Function | " + p + " | Header pin |", "|----------|------|-----------|"]
    for i, gpio in enumerate(pin_map.controls):
        lines.append(f"| Control {i} | {gpio} | {header[gpio]} |")
    if not pin_map.controls:
        lines.append("| Controls | — | — (none in this map) |")
    for gpio, why in sorted(pin_map.reserved().items()):
        lines.append(f"| kept free: {why} | {gpio} | {header[gpio]} |")
    used = {gpio for _, gpio in pin_map.assignments()}
    if pin_map.leds != "pwm":
        for gpio in pin_map.header.reserved.get("pwm", {}):
            if gpio not in used:
                lines.append(
                    f"| free: the PWM LED option (`neopixel-pwm`) or one control | {gpio} "
                    f"| {header[gpio]} |"
                )
    grounds = ", ".join(str(n) for n, what in sorted(pin_map.header.power.items()) if what == "GND")
    lines.append(f"| Ground | — | {grounds} |")
    return "\n".join(lines) + "\n"


def sections() -> dict[str, str]:
    """Generated section name → its Markdown."""
    out = {}
    for name in MAP_NAMES:
        pin_map = load_map(name)
        out[f"{name}-pits"] = pit_table(pin_map)
        out[f"{name}-functions"] = function_table(pin_map)
    out["bom"] = bom.markdown(load_map("direct"), load(None))
    return out


def render_readme(text: str) -> str:
    """`text` with every generated section replaced; ConfigError for an unknown/missing one."""
    wanted = sections()
    seen: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in wanted:
            raise ConfigError(f"README section {name!r} is not one of {', '.join(wanted)}")
        seen.add(name)
        return match.group(1) + wanted[name] + match.group(4)

    out = _SECTION.sub(replace, text)
    missing = sorted(set(wanted) - seen)
    if missing:
        raise ConfigError(f"README lacks the generated sections {', '.join(missing)}")
    return out


def generated_files(docs: Path) -> dict[Path, str]:
    """Every file the maps generate under `docs`, with its current contents."""
    readme = docs / "README.md"
    out = {readme: render_readme(readme.read_text(encoding="utf-8"))}
    for name in MAP_NAMES:
        out[docs / f"wiring-{name}.svg"] = wiring_svg(load_map(name))
    return out


def stale_files(docs: Path) -> list[Path]:
    """The generated files under `docs` that differ from what the maps give."""
    stale = []
    for path, text in generated_files(docs).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
    return stale


def print_map(pin_map: PinMap, problems: Sequence[Problem]) -> None:
    """The human-readable report."""
    p = pin_map.header.gpio_prefix
    print(f"{pin_map.title or pin_map.name} ({pin_map.source}; {pin_map.header.label})")
    print(f"{'key':22} {'function':22} {p + ' #':>7} {'header pin':>10}")
    for key, what, gpio, phys in describe(pin_map):
        print(f"{key:22} {what:22} {gpio:>7} {phys if phys else '—':>10}")
    for gpio, why in sorted(pin_map.reserved().items()):
        print(f"{'(kept free)':22} {why:22} {gpio:>7} {pin_map.header.header[gpio]:>10}")
    if problems:
        print(f"\n{len(problems)} problem(s):")
        for problem in problems:
            print(f"  {problem}")
    else:
        print("\nok: no pin used twice, none on a bus, all on the header")


def main(argv: Sequence[str]) -> int:
    """`kiothi-board pinout [MAP] [--config FILE] [--model M] [--json] [--write/check-docs DIR]`."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board pinout", description=__doc__, formatter_class=DefaultsFormatter
    )
    parser.add_argument("map", nargs="?", help=f"{' or '.join(MAP_NAMES)}, or a TOML file")
    parser.add_argument("--config", help="check this config's wiring (without MAP)")
    parser.add_argument("--model", help="check for one model (pi3, pi4, pi5, zero2w, pico)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--write-docs", metavar="DIR", help="regenerate DIR/README.md sections and SVGs"
    )
    parser.add_argument(
        "--check-docs", metavar="DIR", help="fail if DIR's generated files are stale"
    )
    args = parser.parse_args(argv)
    try:
        if args.write_docs or args.check_docs:
            return _docs(Path(args.write_docs or args.check_docs), write=bool(args.write_docs))
        if args.map:
            pin_map, problems = load_map(args.map), list[Problem]()
        else:
            config = load(args.config) if args.config else load(None)
            pin_map, problems = map_from_config(config["board"], config["leds"])
    except ConfigError as exc:
        print(f"kiothi-board pinout: {exc}", file=sys.stderr)
        return 2
    if not problems:
        problems = check_map(pin_map, args.model)
    if args.json:
        pins = [
            {"key": k, "function": w, "gpio": g, "header": h} for k, w, g, h in describe(pin_map)
        ]
        report = {"map": pin_map.name, "source": pin_map.source, "pins": pins}
        report["problems"] = [{"key": p.key, "message": p.message} for p in problems]
        print(json.dumps(report, indent=2))
    else:
        print_map(pin_map, problems)
    return 1 if problems else 0


def _docs(docs: Path, *, write: bool) -> int:
    if write:
        for path, text in generated_files(docs).items():
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        return 0
    stale = stale_files(docs)
    for path in stale:
        print(f"kiothi-board pinout: {path} is stale; run `{COMMAND}`", file=sys.stderr)
    return 1 if stale else 0
