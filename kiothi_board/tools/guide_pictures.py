"""Draw LED frames as board pictures (PNG, with Pillow) for docs/led-guide.md.

`python -m kiothi_board.tools.guide_pictures DIR` (wired as `kiothi-board guide-pictures DIR`)
renders every cue from real frames of the guide into DIR/*.png. Pillow is imported only
here, lazily, so the guide itself stays standard-library only.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from kiothi_board.guide.raster import Renderer
from kiothi_board.guide.views import (
    render,
)
from kiothi_board.hardware.protocols import Frame
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.rules import pit_name
from kiothi_board.tools.guide_scenes import scenes

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


def main(argv: Sequence[str] | None = None) -> int:
    """Render every cue picture into a directory (default docs/led-guide)."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board guide-pictures",
        description="Draw the LED guide's cues, from real frames, as PNG board pictures.",
        formatter_class=DefaultsFormatter,
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
