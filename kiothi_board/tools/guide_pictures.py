"""Draw LED frames as board pictures (PNG, with Pillow) for docs/led-guide.md.

`python -m kiothi_board.tools.guide_pictures DIR` (wired as `kiothi-board guide-pictures DIR`)
renders every cue from real frames of the guide into DIR/*.png. Pillow is imported only
here, lazily, so the guide itself stays standard-library only.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kiothi_board.guide.palette import COLOUR_BLIND, DEFAULT, NIGHT, Cue, Palette
from kiothi_board.guide.raster import Renderer
from kiothi_board.guide.restore import RestoreView
from kiothi_board.guide.steps import StepKind, opening_steps, set_steps, sow_steps
from kiothi_board.guide.views import (
    BlankView,
    CheckView,
    IdleView,
    OpeningView,
    Overlay,
    OverView,
    StepsView,
    View,
    render,
)
from kiothi_board.hardware.protocols import Frame
from kiothi_board.rules import Lift, Position, Result, Side, SowTrace, pit_name

__all__ = ["HOWTO", "HOWTO_DIR", "draw_frame", "main", "scenes"]

HOWTO = ("idle", "opening", "drop", "relay", "capture", "over")
"""The scenes the web twin's How-to-play panel shows (kiothi_board/api/web/howto.html)."""
HOWTO_DIR = Path(__file__).resolve().parents[1] / "api" / "web" / "howto"

_CELL = 120  # pixels per pit
_MARGIN = 30


def draw_frame(frame: Frame, path: Path, title: str = "") -> None:
    """Save a frame as a picture of the board from South's seat (North's row on top)."""
    from PIL import Image, ImageDraw  # lazy: only the docs command needs Pillow

    width = 10 * _CELL + 2 * _MARGIN
    height = 2 * _CELL + 2 * _MARGIN + 40
    img = Image.new("RGB", (width, height), (40, 28, 18))  # dark wood
    draw = ImageDraw.Draw(img)
    if title:
        draw.text((_MARGIN, 10), title, fill=(230, 230, 230))
    for pit in range(20):
        if pit >= 10:  # North's row on top, N10 at the left as South sees it
            col, row = 19 - pit, 0
        else:
            col, row = pit, 1
        cx = _MARGIN + col * _CELL + _CELL // 2
        cy = 40 + _MARGIN + row * _CELL + _CELL // 2
        r_pit, r_ring = 30, 44
        draw.ellipse((cx - r_pit, cy - r_pit, cx + r_pit, cy + r_pit), fill=(25, 16, 10))
        ring = frame[pit]
        n = len(ring)
        for i, colour in enumerate(ring):
            # LED 0 at the ring's top, clockwise as the player sees it.
            a = 2 * math.pi * i / n - math.pi / 2
            x, y = cx + r_ring * math.cos(a), cy + r_ring * math.sin(a)
            lit = tuple(colour) != (0, 0, 0)
            fill = tuple(colour) if lit else (60, 45, 35)
            s = 7 if lit else 4
            draw.ellipse((x - s, y - s, x + s, y + s), fill=fill)
        draw.text((cx - 9, cy - 6), pit_name(pit), fill=(200, 190, 170))
    img.save(path)


def _rich_move() -> tuple[Position, SowTrace]:
    rng = random.Random(7)
    for _ in range(400):
        pos = Position.initial().open("pass").open("pass")
        while not pos.over:
            nxt, trace = pos.play_traced(rng.choice(pos.legal_moves()))
            if trace.relays and trace.captures and trace.saved:
                return pos, trace
            pos = nxt
    raise RuntimeError("no move with relay, capture and saved pit found")


def _at(steps: Sequence[Any], kind: StepKind) -> int:
    return next(i for i, s in enumerate(steps) if s.kind == kind)


def scenes() -> list[tuple[str, str, View, float, list[Overlay], Palette]]:
    """(file stem, title, view, time, overlays, palette) for every picture of the docs."""
    start = Position.initial().open("pass").open("pass")
    pos, trace = _rich_move()
    steps = sow_steps(trace)
    side = pos.to_move
    first_drop = _at(steps, "drop")
    relay = _at(steps, "relay")
    capture = _at(steps, "capture")
    done = len(steps) - 1
    opening_board = list(Position.initial().board)
    opening_board[6] = 0
    opening_board[0] += 2
    opening_board[12] += 1
    placed = [0] * 20
    placed[0], placed[12] = 2, 1
    guided = opening_steps(Position.initial().board, [Lift(6, (0, 0, 12, 12, 13, 1))])
    fix = set_steps(trace.board_after, pos.board)
    out: list[tuple[str, str, View, float, list[Overlay], Palette]] = [
        (
            "idle",
            "Idle: counts, South to move in blue, legal pits breathing",
            IdleView.of(start),
            1.0,
            [],
            DEFAULT,
        ),
        ("lift", f"Lift {pit_name(trace.pit)}", StepsView(steps, 0, side, trace), 0.0, [], DEFAULT),
        (
            "drop",
            "Next drop bright, the following two dim",
            StepsView(steps, first_drop, side, trace),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "relay",
            f"Relay: lift {pit_name(steps[relay].pit)} again (off the drop beat)",
            StepsView(steps, relay, side, trace),
            0.3,
            [],
            DEFAULT,
        ),
        (
            "capture",
            "Captures flashing; landing and saved (unsown) pits marked",
            StepsView(steps, capture, side, trace),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "done",
            "Done: every ring shows its new count",
            StepsView(steps, done, side, trace),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "opening",
            "Opening: S7 lifted (seeds in hand), placed seeds counting up",
            OpeningView(tuple(opening_board), Side.S, 6, 3, tuple(placed)),
            0.6,
            [],
            DEFAULT,
        ),
        (
            "opening-guided",
            "The AI's opening: place the next seed on the lit pit",
            StepsView(guided, 3, Side.S),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "error",
            "A wrong press flashes red; the expected pit keeps its cue",
            StepsView(steps, first_drop, side, trace),
            5.0,
            [Overlay((steps[first_drop].pit + 5) % 20, Cue.ERROR, 5.0, 6.2)],
            DEFAULT,
        ),
        (
            "endless",
            "A press on a pit whose move never ends (R6)",
            IdleView.of(start),
            5.0,
            [Overlay(9, Cue.ENDLESS, 5.0, 6.2)],
            DEFAULT,
        ),
        ("hint", "A hint", IdleView.of(start), 1.0, [Overlay(7, Cue.HINT, 0.0)], DEFAULT),
        (
            "set",
            "Setting counts pit by pit (a long move, an undo)",
            StepsView(fix, 0, side),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "restore",
            "Undo: every ring shows its target, pits that change blink (hold a pit to confirm)",
            RestoreView.of(trace.board_after, pos.board, side, "undo"),
            0.2,
            [],
            DEFAULT,
        ),
        (
            "check",
            "Board check: S6 marked wrong blinks",
            CheckView(start.board, Side.S, frozenset({5})),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "over",
            "Game over 38-22: South's bar breathes",
            OverView(Result.of((38, 22), "no-moves")),
            0.75,
            [],
            DEFAULT,
        ),
        ("blank", "No game: hold a pit to start", BlankView(), 2.0, [], DEFAULT),
        (
            "drop-colour-blind",
            "Colour-blind palette: next drop (full), following (two dots)",
            StepsView(steps, first_drop, side, trace),
            0.0,
            [],
            COLOUR_BLIND,
        ),
        (
            "capture-colour-blind",
            "Colour-blind palette: capture (half ring), saved (pairs)",
            StepsView(steps, capture, side, trace),
            0.0,
            [],
            COLOUR_BLIND,
        ),
        (
            "relay-colour-blind",
            "Colour-blind palette: relay (every other LED)",
            StepsView(steps, relay, side, trace),
            0.3,
            [],
            COLOUR_BLIND,
        ),
        ("drop-night", "Night palette", StepsView(steps, first_drop, side, trace), 0.0, [], NIGHT),
    ]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Render every cue picture into a directory (default docs/led-guide)."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board guide-pictures",
        description="Draw the LED guide's cues, from real frames, as PNG board pictures.",
    )
    parser.add_argument("dir", nargs="?", help="default: docs/led-guide (--howto: the web's)")
    parser.add_argument("--leds", type=int, default=16, choices=(12, 16, 24))
    parser.add_argument(
        "--howto",
        action="store_true",
        help="draw only the web twin's How-to-play pictures (into kiothi_board/api/web/howto)",
    )
    parser.add_argument(
        "--table",
        metavar="MARKDOWN",
        help="rewrite the guide's instruction table in this file (docs/led-guide.md) and stop",
    )
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.table:
        from kiothi_board.tools.guide_words import write_table

        write_table(Path(args.table))
        print(args.table)
        return 0
    try:
        import PIL  # noqa: F401
    except ImportError:
        print("kiothi-board guide-pictures: needs Pillow (pip install pillow)", file=sys.stderr)
        return 2
    out = Path(args.dir or (HOWTO_DIR if args.howto else "docs/led-guide"))
    out.mkdir(parents=True, exist_ok=True)
    renderers: dict[str, Renderer] = {}
    for stem, title, view, t, overlays, palette in scenes():
        if args.howto and stem not in HOWTO:
            continue
        r = renderers.setdefault(palette.name, Renderer(palette, args.leds))
        draw_frame(render(view, t, r, overlays), out / f"{stem}.png", "" if args.howto else title)
        print(out / f"{stem}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
