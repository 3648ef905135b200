"""Frame checking shared by every pixel sink (no hardware library here)."""

from __future__ import annotations

from collections.abc import Sequence

from kiothi_board.errors import FrameError
from kiothi_board.frame import Frame
from kiothi_board.hardware.protocols import RGB
from kiothi_board.hardware.protocols import Frame as FrameLike

__all__ = ["PITS", "RING_SIZES", "black_frame", "normalize_frame"]

PITS = 20
"""Rings on the board, one per pit, indexed like the rules (0…19)."""

RING_SIZES = (12, 16, 24)
"""The NeoPixel ring sizes the board supports."""

NormalFrame = tuple[tuple[RGB, ...], ...]


def _colour(value: object, pit: int, led: int) -> RGB:
    if (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
        and len(value) == 3
        and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value)
    ):
        return (int(value[0]), int(value[1]), int(value[2]))
    raise FrameError(f"frame pit {pit} LED {led}: expected an (r, g, b) of 0…255, got {value!r}")


def normalize_frame(frame: FrameLike, leds_per_ring: int) -> NormalFrame:
    """Check a frame's shape and colours and return an immutable copy.

    Copying matters: callers may reuse and mutate their frame buffers between `show` calls.
    A `kiothi_board.frame.Frame` was checked when it was made and cannot change: as is.
    """
    if isinstance(frame, Frame) and frame.leds_per_ring == leds_per_ring:
        return frame.rings()
    if isinstance(frame, str | bytes) or not isinstance(frame, Sequence):
        raise FrameError(f"frame must be a sequence of {PITS} rings, got {frame!r:.80}")
    if len(frame) != PITS:
        raise FrameError(f"frame must have {PITS} rings, got {len(frame)}")
    rings: list[tuple[RGB, ...]] = []
    for pit, ring in enumerate(frame):
        if isinstance(ring, str | bytes) or not isinstance(ring, Sequence):
            raise FrameError(f"frame pit {pit}: expected a sequence of colours, got {ring!r:.80}")
        if len(ring) != leds_per_ring:
            raise FrameError(f"frame pit {pit}: expected {leds_per_ring} LEDs, got {len(ring)}")
        rings.append(_ring(ring, pit))
    return tuple(rings)


def _ring(ring: Sequence[RGB], pit: int) -> tuple[RGB, ...]:
    # Fast path (this runs for every frame at animation rate): bulk checks, and only on a
    # failure the per-LED walk that finds and quotes the bad colour.
    try:
        out = tuple(map(tuple, ring))
        values = [v for c in out if len(c) == 3 for v in c]
        if (
            len(values) == 3 * len(out)
            and all(type(v) is int for v in values)
            and (not values or (min(values) >= 0 and max(values) <= 255))
        ):
            return out  # type: ignore[return-value]
    except TypeError:
        pass
    return tuple(_colour(c, pit, i) for i, c in enumerate(ring))


def black_frame(leds_per_ring: int) -> NormalFrame:
    """An all-off frame."""
    return tuple(tuple((0, 0, 0) for _ in range(leds_per_ring)) for _ in range(PITS))
