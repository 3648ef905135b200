"""Turn per-pit cells (style, count, cue, level) into ring colours, memoised.

A frame is 20 dictionary look-ups and one `bytes.join` once the rings it needs have been
drawn once: the per-LED work happens only the first time a (style, count, cue, level)
combination appears, which keeps a frame well under a millisecond on a Raspberry Pi.
"""

from __future__ import annotations

from dataclasses import dataclass

from kiothi_board.frame import RGB, Frame, Ring
from kiothi_board.guide.palette import DEFAULT, Cue, Palette, Style

__all__ = ["LEVELS", "Cell", "Renderer", "Ring"]

LEVELS = 8
"""Animation brightness is quantised to 0…LEVELS so rings can be memoised."""


@dataclass(frozen=True, slots=True)
class Cell:
    """What one pit's ring shows: a count arc in a style, and a cue at a level (0…LEVELS)."""

    style: Style
    count: int
    cue: Cue = Cue.NONE
    level: int = LEVELS


def _scale(c: RGB, level: int) -> RGB:
    if level >= LEVELS:
        return c
    return (c[0] * level // LEVELS, c[1] * level // LEVELS, c[2] * level // LEVELS)


class Renderer:
    """Draws rings for one palette and ring size, remembering every ring it has drawn."""

    def __init__(self, palette: Palette = DEFAULT, leds: int = 16) -> None:
        """Draw with `palette` on rings of `leds` LEDs."""
        if leds < 4:
            raise ValueError(f"rings need at least 4 LEDs, got {leds!r}")
        self.palette = palette
        self.leds = leds
        self._drawn: dict[tuple[int, int, int, int], tuple[Ring, bytes]] = {}
        self._off: RGB = (0, 0, 0)

    def ring(self, style: Style, count: int, cue: Cue = Cue.NONE, level: int = LEVELS) -> Ring:
        """One ring: the count arc, with the cue's mask drawn over it at `level`."""
        return self._entry(style, count, cue, level)[0]

    def _entry(self, style: Style, count: int, cue: Cue, level: int) -> tuple[Ring, bytes]:
        key = (int(style), count, int(cue), level)
        found = self._drawn.get(key)
        if found is None:
            ring = self._draw(style, count, cue, level)
            found = self._drawn[key] = (ring, bytes(v for c in ring for v in c))
        return found

    def _draw(self, style: Style, count: int, cue: Cue, level: int) -> Ring:
        n = self.leds
        count = min(max(count, 0), 2 * n)
        level = min(max(level, 0), LEVELS)
        pal = self.palette
        arc = pal.style_colour(style)
        if cue == Cue.LEGAL:
            # Legal pits breathe: the whole count arc follows the level, never quite dark.
            arc = _scale(arc, 2 + (level * (LEVELS - 2)) // LEVELS)
        lap2 = pal.lap2_colour() if style != Style.DARK else self._off
        over = count - n  # seeds beyond one lap of the ring
        leds: list[RGB] = []
        for i in range(n):
            if i < over:
                leds.append(lap2)
            elif i < count:
                leds.append(arc)
            else:
                leds.append(self._off)
        if cue not in (Cue.NONE, Cue.LEGAL) and level > 0:
            colour = _scale(pal.cue_colour(cue), level)
            for i, lit in enumerate(pal.cue_mask(cue, n)):
                if lit:
                    leds[i] = colour
        return tuple(leds)

    def frame(self, cells: list[Cell]) -> Frame:
        """A frame from 20 cells (one per pit, in index order)."""
        get = self._drawn.get
        rings: list[Ring] = []
        parts: list[bytes] = []
        for c in cells:
            found = get((int(c.style), c.count, int(c.cue), c.level))
            if found is None:
                found = self._entry(c.style, c.count, c.cue, c.level)
            rings.append(found[0])
            parts.append(found[1])
        return Frame.drawn(tuple(rings), b"".join(parts))
