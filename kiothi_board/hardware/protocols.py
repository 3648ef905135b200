"""The protocols every hardware concern hides behind (L1: no hardware library here).

Pit indices are the rules' indices 0…19 (S1…S10, N1…N10). Control buttons are numbered
0…3 and reported with `control` set and `pit` = -1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

EventKind = Literal["pressed", "released", "held", "dropped", "stuck", "unstuck"]
RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class InputEvent:
    """One debounced input event.

    `pressed`/`released`: a pit (or control) button went active/inactive; `held`: it has
    been active for `seconds` (reported once per configured hold threshold); `dropped`: a
    seed sensor saw a seed fall in; `stuck`: active longer than the stuck limit, masked
    until it clears (`unstuck`).
    """

    kind: EventKind
    pit: int
    time: float
    seconds: float = 0.0
    control: int | None = None


EventHandler = Callable[[InputEvent], None]


@runtime_checkable
class PitInput(Protocol):
    """The 20 pit inputs (and optional control buttons), debounced in our layer.

    Events are delivered to the handler given to `start`, from whatever thread the
    driver uses; `poll()` lets time-based events (held, stuck, debounce expiry) fire
    when the caller's loop ticks with the injected clock.
    """

    def start(self, handler: EventHandler) -> None:
        """Begin delivering events to `handler`."""
        ...

    def poll(self) -> None:
        """Process time-based state (debounce, hold and stuck timers) at the clock's now."""
        ...

    def close(self) -> None:
        """Release the pins; idempotent."""
        ...


Frame = Sequence[Sequence[RGB]]
"""One LED frame: for each pit index 0…19, the colours of its ring's LEDs in ring order
(LED 0 at the ring's logical top, clockwise as seen by a player)."""


@runtime_checkable
class PixelSink(Protocol):
    """Where frames go: NeoPixel rings on a Pi, a recording fake, a terminal or web view."""

    @property
    def leds_per_ring(self) -> int:
        """LEDs in each ring (12, 16 or 24)."""
        ...

    def show(self, frame: Frame) -> None:
        """Display a frame (mapped to the physical chain by the driver)."""
        ...

    def set_brightness(self, value: float) -> None:
        """The global brightness, 0…1 (a real chain caps it at its `max_brightness`);
        applies from the next frame. (Real chains: `chain.LimitedChain`, one
        `_transmit(bytes)` a frame.)"""
        ...

    def close(self) -> None:
        """Blank the LEDs and release the hardware; idempotent."""
        ...


@runtime_checkable
class VoiceOutput(Protocol):
    """Where speech goes: espeak-ng to ALSA on a Pi, the terminal's `🔊` line, a recording
    fake. Only the speaker's worker thread calls `speak`; `stop` comes from the board loop."""

    def speak(self, text: str, lang: str) -> None:
        """Say `text` in `lang`'s voice; returns when it is said, or soon after `stop()`."""
        ...

    def stop(self) -> None:
        """Cut what is being said short (from any thread); nothing when silent."""
        ...

    def close(self) -> None:
        """Stop and release the audio device; idempotent."""
        ...
