"""How logical rings map onto the physical LED chain, and the current limiter (no hardware here).

A logical frame gives, per pit, the ring's colours in ring order: LED 0 at the ring's logical
top, then clockwise as seen by a player. On the board each ring is soldered with its own
first LED somewhere (`offset`: the physical LED index that shows logical LED 0), runs
clockwise or counter-clockwise (`direction`, as seen by that player), and sits somewhere
along the single data chain (`chain`: pit indices in the order the data line visits them).

Power model of `limit_current` (WS2812B-class LEDs at 5 V): each colour channel draws about
`ma_per_channel` = 20 mA at full value (255) and linearly less below, so one LED at full
white draws ~60 mA; each LED also draws ~`idle_ma` = 1 mA when dark. The library's global
`brightness` scales every channel value before it is sent, so it scales the channel draw.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kiothi_board.errors import ConfigError, NotationError
from kiothi_board.hardware.frames import PITS, RING_SIZES, normalize_frame
from kiothi_board.hardware.protocols import RGB, Frame
from kiothi_board.rules.board import parse_pit

__all__ = ["Direction", "RingLayout", "estimate_milliamps", "limit_current"]

Direction = Literal["cw", "ccw"]

_CW: Direction = "cw"
_ALL_CW: tuple[Direction, ...] = (_CW,) * PITS


def _pit(value: object, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < PITS:
        return value
    if isinstance(value, str):
        try:
            return parse_pit(value.strip().upper())
        except NotationError:
            pass
    raise ConfigError(f"{where}: expected a pit index 0…19 or a name S1…N10, got {value!r}")


def _per_pit(value: object, name: str, default: object) -> list[object]:
    """A per-ring setting given once for all rings, as a list of 20, or as {pit: value}."""
    if value is None:
        return [default] * PITS
    if isinstance(value, Mapping):
        out = [default] * PITS
        for key, item in value.items():
            out[_pit(key, f"{name} key")] = item
        return out
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != PITS:
            raise ConfigError(f"{name}: expected {PITS} values (one per pit), got {value!r}")
        return list(value)
    return [value] * PITS


@dataclass(frozen=True, slots=True)
class RingLayout:
    """The physical arrangement of the 20 rings (see the module docstring)."""

    leds_per_ring: int = 16
    offsets: tuple[int, ...] = (0,) * PITS
    directions: tuple[Direction, ...] = _ALL_CW
    chain: tuple[int, ...] = tuple(range(PITS))
    _index: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        n = self.leds_per_ring
        if n not in RING_SIZES:
            raise ConfigError(f"leds_per_ring must be one of {RING_SIZES}, got {n!r}")
        if len(self.offsets) != PITS or len(self.directions) != PITS:
            raise ConfigError(
                f"need {PITS} offsets and directions, got {self.offsets!r} / {self.directions!r}"
            )
        for pit, off in enumerate(self.offsets):
            if isinstance(off, bool) or not isinstance(off, int) or not 0 <= off < n:
                raise ConfigError(f"offset of pit {pit}: expected 0…{n - 1}, got {off!r}")
        for pit, d in enumerate(self.directions):
            if d not in ("cw", "ccw"):
                raise ConfigError(f"direction of pit {pit}: expected 'cw' or 'ccw', got {d!r}")
        if sorted(self.chain) != list(range(PITS)):
            raise ConfigError(
                f"chain must list each pit 0…19 exactly once, got {list(self.chain)!r}"
            )
        # Precomputed: show() runs at animation rate.
        index = [0] * (PITS * n)
        for slot, pit in enumerate(self.chain):
            step = 1 if self.directions[pit] == "cw" else -1
            for k in range(n):
                index[pit * n + k] = slot * n + (self.offsets[pit] + step * k) % n
        object.__setattr__(self, "_index", tuple(index))

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RingLayout:
        """Build from a config table.

        Keys: `leds_per_ring` (12, 16 or 24; default 16); `offset` and `direction` each
        either one value for all rings, a list of 20 in pit order, or a table keyed by pit
        name or index (others default to 0 / "cw"); `chain`: pits in data-chain order, as
        indices or names (default S1…S10, N1…N10). Unknown keys are an error.
        """
        known = {"leds_per_ring", "offset", "direction", "chain"}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ConfigError(f"unknown LED layout keys {unknown!r}: expected {sorted(known)!r}")
        n = config.get("leds_per_ring", 16)
        offsets = _per_pit(config.get("offset"), "offset", 0)
        directions = _per_pit(config.get("direction"), "direction", "cw")
        raw_chain = config.get("chain", list(range(PITS)))
        if isinstance(raw_chain, str) or not isinstance(raw_chain, Sequence):
            raise ConfigError(f"chain: expected a list of 20 pits, got {raw_chain!r}")
        chain = [_pit(p, "chain") for p in raw_chain]
        dirs = [d.lower() if isinstance(d, str) else d for d in directions]
        return cls(n, tuple(offsets), tuple(dirs), tuple(chain))  # type: ignore[arg-type]

    @property
    def total_leds(self) -> int:
        """LEDs on the whole chain."""
        return PITS * self.leds_per_ring

    def chain_index(self, pit: int, led: int) -> int:
        """Where logical LED `led` of pit `pit`'s ring sits on the physical chain."""
        if not (0 <= pit < PITS and 0 <= led < self.leds_per_ring):
            raise IndexError(f"no LED {led!r} on ring {pit!r}")
        return self._index[pit * self.leds_per_ring + led]

    def to_chain(self, frame: Frame) -> list[RGB]:
        """The frame's colours in physical chain order (checked: FrameError if malformed)."""
        rings = normalize_frame(frame, self.leds_per_ring)
        index = self._index
        out: list[RGB] = [(0, 0, 0)] * self.total_leds
        n = self.leds_per_ring
        for pit, ring in enumerate(rings):
            base = pit * n
            for k, colour in enumerate(ring):
                out[index[base + k]] = colour
        return out


def estimate_milliamps(
    pixels: Sequence[RGB],
    *,
    brightness: float = 1.0,
    ma_per_channel: float = 20.0,
    idle_ma: float = 1.0,
) -> float:
    """Estimated supply current of a chain showing `pixels` (model in the module docstring)."""
    channels = sum(r + g + b for r, g, b in pixels)
    return len(pixels) * idle_ma + channels * brightness * ma_per_channel / 255.0


def limit_current(
    pixels: Sequence[RGB],
    max_milliamps: float,
    *,
    brightness: float = 1.0,
    ma_per_channel: float = 20.0,
    idle_ma: float = 1.0,
) -> list[RGB]:
    """Scale every colour down evenly so the estimated draw fits `max_milliamps`.

    Frames within budget come back unchanged (as a list). Values are rounded down, so the
    result never exceeds the budget; if even dark LEDs exceed it, all go black.
    """
    draw = estimate_milliamps(
        pixels, brightness=brightness, ma_per_channel=ma_per_channel, idle_ma=idle_ma
    )
    if draw <= max_milliamps:
        return list(pixels)
    idle = len(pixels) * idle_ma
    channel_draw = draw - idle
    scale = max(0.0, (max_milliamps - idle) / channel_draw)
    return [
        (math.floor(r * scale), math.floor(g * scale), math.floor(b * scale)) for r, g, b in pixels
    ]
