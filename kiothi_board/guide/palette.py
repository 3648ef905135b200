"""Cues, count styles and palettes of the LED guide.

A pit's ring shows a *style* (the colour of its seed-count arc) and at most one *cue* on
top. Each palette gives every cue a colour and a *mask* (which LEDs of the ring it lights).
The colour-blind-safe palette gives every cue its own mask as well as its own hue, so no
cue is told apart by hue alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum

from kiothi_board.hardware.protocols import RGB

__all__ = [
    "COLOUR_BLIND",
    "DEFAULT",
    "NIGHT",
    "PALETTES",
    "Cue",
    "Mask",
    "Palette",
    "Style",
    "mask",
]


class Style(IntEnum):
    """The colour of a ring's seed-count arc."""

    NEUTRAL = 0  # seeds of the side not to move
    SOUTH = 1  # seeds in South's row when South moves (and South's final count)
    NORTH = 2
    HAND = 3  # seeds still in the hand (the lifted pit in the opening)
    PLACED = 4  # a pit that has received seeds in the opening / a target count to set
    DARK = 5  # nothing shown


class Cue(IntEnum):
    """What a ring is telling the hand, on top of its count."""

    NONE = 0
    LEGAL = 1  # may be lifted now (breathing count arc)
    LIFT = 2  # lift this pit now
    DROP = 3  # drop the next seed here
    SOON = 4  # one of the two drops after the next
    RELAY = 5  # the lap ended on a pit that had seeds: lift it again (R5)
    LANDING = 6  # the move ends here (R5)
    CAPTURE = 7  # take these seeds away (R8, R9)
    SAVED = 8  # a capture rule reached this pit but it is unsown (R7)
    ERROR = 9  # a wrong press
    ENDLESS = 10  # a press on a pit whose move never ends (R6)
    TARGET = 11  # set this pit to the count shown
    WRONG = 12  # marked wrong during a board check
    HINT = 13  # the suggested move
    WIN = 14  # the winner's row at game over
    CHANGE = 15  # a restore: this pit must change to the count its arc shows


Mask = tuple[bool, ...]
_MaskFn = Callable[[int, int], bool]  # (led index, leds per ring) -> lit

# Named LED patterns; each works for 12-, 16- and 24-LED rings and no two coincide there.
_PATTERNS: dict[str, _MaskFn] = {
    "full": lambda i, n: True,
    "half": lambda i, n: i < n // 2,
    "quarters": lambda i, n: (i // (n // 4)) % 2 == 0,
    "even": lambda i, n: i % 2 == 0,
    "odd": lambda i, n: i % 2 == 1,
    "dots2": lambda i, n: i % (n // 2) == 0,
    "dots4": lambda i, n: i % (n // 4) == 0,
    "pairs4": lambda i, n: i % (n // 4) in (0, 1),
    "gaps4": lambda i, n: i % (n // 4) != 0,
    "arc1": lambda i, n: i < n // 4,
    "arc3": lambda i, n: i < 3 * n // 4,
    "tip": lambda i, n: i < 2,
    "cross": lambda i, n: i % (n // 4) == n // 8,
    "none": lambda i, n: False,
}


def mask(pattern: str, leds: int) -> Mask:
    """The LEDs a named pattern lights on a ring of `leds` LEDs."""
    fn = _PATTERNS[pattern]
    return tuple(fn(i, leds) for i in range(leds))


def _scale(c: RGB, k: float) -> RGB:
    return (round(c[0] * k), round(c[1] * k), round(c[2] * k))


@dataclass(frozen=True, slots=True)
class Palette:
    """Colours (and masks) of every style and cue, and an overall brightness."""

    name: str
    styles: Mapping[Style, RGB]
    lap2: RGB  # seeds beyond one ring's worth, drawn over the first LEDs
    cues: Mapping[Cue, RGB]
    patterns: Mapping[Cue, str]
    brightness: float = 1.0
    # The "pattern" palette keeps the count visible under dim cues; kept for the docs.
    notes: str = ""
    _cache: dict[tuple[Cue, int], Mask] = field(default_factory=dict, compare=False, repr=False)

    def style_colour(self, style: Style) -> RGB:
        """The arc colour of a style, at this palette's brightness."""
        return _scale(self.styles[style], self.brightness)

    def lap2_colour(self) -> RGB:
        """The colour of the second lap of seeds."""
        return _scale(self.lap2, self.brightness)

    def cue_colour(self, cue: Cue) -> RGB:
        """A cue's colour at full level and this palette's brightness."""
        return _scale(self.cues[cue], self.brightness)

    def cue_mask(self, cue: Cue, leds: int) -> Mask:
        """The LEDs a cue lights on a ring of `leds` LEDs."""
        key = (cue, leds)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = mask(self.patterns[cue], leds)
        return found


# Side colours follow the board's paint: South blue, North amber.
_STYLES = {
    Style.NEUTRAL: (70, 60, 45),
    Style.SOUTH: (0, 90, 255),
    Style.NORTH: (255, 110, 0),
    Style.HAND: (255, 255, 255),
    Style.PLACED: (0, 200, 120),
    Style.DARK: (0, 0, 0),
}
_CUES = {
    Cue.NONE: (0, 0, 0),
    Cue.LEGAL: (0, 0, 0),  # LEGAL modulates the count arc; its own colour is unused
    Cue.LIFT: (255, 255, 255),
    Cue.DROP: (0, 255, 60),
    Cue.SOON: (0, 70, 18),
    Cue.RELAY: (255, 0, 255),
    Cue.LANDING: (255, 220, 0),
    Cue.CAPTURE: (255, 40, 0),
    Cue.SAVED: (0, 200, 255),
    Cue.ERROR: (255, 0, 0),
    Cue.ENDLESS: (150, 0, 255),
    Cue.TARGET: (0, 200, 120),
    Cue.WRONG: (255, 0, 80),
    Cue.HINT: (255, 255, 120),
    Cue.WIN: (255, 255, 255),
    Cue.CHANGE: (255, 255, 255),
}
_DEFAULT_PATTERNS = {
    Cue.NONE: "none",
    Cue.LEGAL: "none",
    Cue.LIFT: "full",
    Cue.DROP: "full",
    Cue.SOON: "full",
    Cue.RELAY: "full",
    Cue.LANDING: "dots4",  # a marker, so the landing pit's count stays readable
    Cue.CAPTURE: "full",
    Cue.SAVED: "even",
    Cue.ERROR: "full",
    Cue.ENDLESS: "full",
    Cue.TARGET: "none",  # a target is shown by its PLACED-style count arc
    Cue.WRONG: "full",
    Cue.HINT: "full",
    Cue.WIN: "none",
    Cue.CHANGE: "cross",
}
# Every cue a distinct mask, so cues that share a hue for some viewers still differ.
_CB_PATTERNS = {
    Cue.NONE: "none",
    Cue.LEGAL: "none",
    Cue.LIFT: "quarters",
    Cue.DROP: "full",
    Cue.SOON: "dots2",
    Cue.RELAY: "even",
    Cue.LANDING: "dots4",
    Cue.CAPTURE: "half",
    Cue.SAVED: "pairs4",
    Cue.ERROR: "gaps4",
    Cue.ENDLESS: "arc1",
    Cue.TARGET: "none",
    Cue.WRONG: "odd",
    Cue.HINT: "tip",
    Cue.WIN: "none",
    Cue.CHANGE: "cross",
}
# Okabe–Ito colours: distinguishable under the common colour-vision deficiencies.
_CB_CUES = {
    **_CUES,
    Cue.LIFT: (255, 255, 255),
    Cue.DROP: (0, 158, 115),
    Cue.SOON: (0, 50, 36),
    Cue.RELAY: (204, 121, 167),
    Cue.LANDING: (240, 228, 66),
    Cue.CAPTURE: (213, 94, 0),
    Cue.SAVED: (86, 180, 233),
    Cue.ERROR: (213, 94, 0),
    Cue.ENDLESS: (204, 121, 167),
    Cue.WRONG: (230, 159, 0),
    Cue.HINT: (240, 228, 66),
}
_CB_STYLES = {**_STYLES, Style.SOUTH: (0, 114, 178), Style.NORTH: (230, 159, 0)}

DEFAULT = Palette("default", _STYLES, (255, 255, 255), _CUES, _DEFAULT_PATTERNS)
"""Full brightness; cues told apart mainly by hue."""

COLOUR_BLIND = Palette(
    "colour-blind",
    _CB_STYLES,
    (255, 255, 255),
    _CB_CUES,
    _CB_PATTERNS,
    notes="every cue has its own LED pattern as well as an Okabe-Ito hue",
)
"""Okabe–Ito hues, and every cue a distinct LED pattern."""

NIGHT = Palette("night", _STYLES, (255, 255, 255), _CUES, _DEFAULT_PATTERNS, brightness=0.12)
"""The default cues at about an eighth of the brightness, for a dark room."""

PALETTES: dict[str, Palette] = {p.name: p for p in (DEFAULT, COLOUR_BLIND, NIGHT)}
"""Palettes by name: `default`, `colour-blind`, `night`."""
