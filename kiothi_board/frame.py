"""`Frame`: what the 20 LED rings show at one moment, as an immutable value.

Every part that makes, compares or ships frames uses this one value: the guide draws one,
the exhibition dims or replaces it, the sinks show it, the API sends it as hex. It holds
the colours packed as bytes (r, g, b per LED, ring after ring), so two frames compare by
one `bytes` comparison, dimming is one `bytes.translate`, and hex is one `bytes.hex`; the
rings as tuples are unpacked only when a sink asks for them. It is checked once, when made.

Every floor uses it, so it imports only the errors.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import overload

from kiothi_board.errors import FrameError

__all__ = ["PITS", "RGB", "Frame", "Ring"]

PITS = 20
"""Rings on the board, one per pit, indexed like the rules (0…19)."""

RGB = tuple[int, int, int]
Ring = tuple[RGB, ...]


def _pack(rings: Iterable[Sequence[RGB]]) -> tuple[bytes, int]:
    listed = list(rings)
    if len(listed) != PITS:
        raise FrameError(f"frame must have {PITS} rings, got {len(listed)}")
    for pit, ring in enumerate(listed):
        if isinstance(ring, str | bytes) or not isinstance(ring, Sequence):
            raise FrameError(f"frame pit {pit}: expected a sequence of colours, got {ring!r:.80}")
    sizes = {len(ring) for ring in listed}
    if len(sizes) != 1 or 0 in sizes:
        raise FrameError(f"frame rings must be of one length, got {sorted(sizes)}")
    try:  # the fast path, all in C; a failure walks the rings to name the bad colour
        if all(len(c) == 3 for ring in listed for c in ring):
            packed = bytes(chain.from_iterable(chain.from_iterable(listed)))
            if not any(type(v) is bool for ring in listed for c in ring for v in c):
                return packed, sizes.pop()
    except (TypeError, ValueError):
        pass
    for pit, ring in enumerate(listed):
        for led, c in enumerate(ring):
            ok = isinstance(c, Sequence) and len(c) == 3
            if not ok or not all(type(v) is int and 0 <= v <= 255 for v in c):
                raise FrameError(
                    f"frame pit {pit} LED {led}: expected an (r, g, b) of 0…255, got {c!r}"
                )
    raise FrameError("frame: unreadable colours")  # unreachable: the walk names one


@functools.lru_cache(maxsize=64)
def _dim_table(k: float) -> bytes:
    return bytes(int(v * k) for v in range(256))


class Frame(Sequence[Ring]):
    """20 rings of `leds_per_ring` colours; see the module docstring.

    `Frame(rings)` checks and packs any sequence of 20 rings of (r, g, b) tuples; it equals
    another Frame with the same colours (and a plain sequence of the same rings).
    """

    __slots__ = ("_packed", "_rings", "leds_per_ring")
    _packed: bytes
    _rings: tuple[Ring, ...] | None
    leds_per_ring: int

    def __init__(self, rings: Iterable[Sequence[RGB]]) -> None:
        """Check and pack `rings` (FrameError names the first thing wrong)."""
        if isinstance(rings, Frame):
            self._packed, self.leds_per_ring = rings.packed, rings.leds_per_ring
        else:
            self._packed, self.leds_per_ring = _pack(rings)
        self._rings: tuple[Ring, ...] | None = None

    @classmethod
    def from_bytes(cls, packed: bytes, leds_per_ring: int) -> Frame:
        """A frame from its packed bytes (3 × leds_per_ring × 20 of them)."""
        if len(packed) != 3 * leds_per_ring * PITS or leds_per_ring < 1:
            raise FrameError(
                f"{len(packed)} bytes do not make a frame of 20 rings of {leds_per_ring} LEDs"
            )
        frame = cls.__new__(cls)
        frame._packed, frame.leds_per_ring, frame._rings = bytes(packed), leds_per_ring, None
        return frame

    @classmethod
    def drawn(cls, rings: tuple[Ring, ...], packed: bytes) -> Frame:
        """A frame from a renderer that keeps each ring and its bytes (checked when drawn):
        no second check, no second packing."""
        frame = cls.__new__(cls)
        frame._packed, frame._rings = packed, rings
        frame.leds_per_ring = len(rings[0])
        return frame

    @classmethod
    def black(cls, leds_per_ring: int) -> Frame:
        """Every LED off."""
        return cls.from_bytes(bytes(3 * leds_per_ring * PITS), leds_per_ring)

    @property
    def packed(self) -> bytes:
        """r, g, b of every LED, ring after ring (pit 0's LED 0 first)."""
        return self._packed

    def rings(self) -> tuple[Ring, ...]:
        """The rings as tuples of (r, g, b) (unpacked once, then kept)."""
        if self._rings is None:
            p, n = self._packed, self.leds_per_ring
            leds = [(p[i], p[i + 1], p[i + 2]) for i in range(0, len(p), 3)]
            self._rings = tuple(tuple(leds[k * n : (k + 1) * n]) for k in range(PITS))
        return self._rings

    def dim(self, k: float) -> Frame:
        """Every colour scaled by `k` (0…1, rounded down); itself when `k` >= 1."""
        if k >= 1.0:
            return self
        table = _dim_table(round(max(0.0, k), 4))
        return Frame.from_bytes(self._packed.translate(table), self.leds_per_ring)

    def hex(self) -> list[str]:
        """Per ring, its LEDs as `rrggbb` (what the API sends the web twin)."""
        step = 3 * self.leds_per_ring
        text = self._packed.hex()
        return [text[2 * i * step : 2 * (i + 1) * step] for i in range(PITS)]

    def is_dark(self) -> bool:
        """Whether every LED is off."""
        return not any(self._packed)

    # -- Sequence ----------------------------------------------------------------------------
    @overload
    def __getitem__(self, index: int) -> Ring: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Ring]: ...

    def __getitem__(self, index: int | slice) -> Ring | Sequence[Ring]:
        return self.rings()[index]

    def __len__(self) -> int:
        return PITS

    def __iter__(self) -> Iterator[Ring]:
        return iter(self.rings())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Frame):
            return self.leds_per_ring == other.leds_per_ring and self._packed == other.packed
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(other) == PITS and all(
                tuple(map(tuple, a)) == b for a, b in zip(other, self.rings(), strict=False)
            )
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.leds_per_ring, self._packed))

    def __repr__(self) -> str:
        lit = sum(1 for i in range(0, len(self._packed), 3) if any(self._packed[i : i + 3]))
        return f"<Frame {self.leds_per_ring} LEDs a ring, {lit} lit>"
