"""Pit buttons (or seed sensors) on Raspberry Pi GPIO through gpiozero, debounced in our layer.

gpiozero is imported lazily so the package imports anywhere. Each pit is one
`DigitalInputDevice` with `bounce_time=None`: gpiozero's own debounce is timer based and
invisible to an injected clock, so raw edges are stamped with our clock and fed to
`DebouncedInputs` instead.

Threads: gpiozero calls edge callbacks from its own threads. The callbacks only append
`(slot, level, time)` to a queue under a lock; `poll()` drains that queue, runs the
debouncers up to `clock.now()` and calls the handler — so the handler always runs in the
thread that calls `poll()`, never in a gpiozero thread.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from kiothi_board.errors import ConfigError, LinkError
from kiothi_board.hardware.debounce import DebouncedInputs
from kiothi_board.hardware.frames import PITS
from kiothi_board.hardware.protocols import Clock, EventHandler, InputEvent

__all__ = ["DEFAULT_CONTROL_PINS", "DEFAULT_PIT_PINS", "GpioPitInput"]

log = logging.getLogger(__name__)

PinName = int | str

DEFAULT_PIT_PINS: tuple[int, ...] = (4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
DEFAULT_PIT_PINS += (16, 17, 19, 20, 21, 22, 23, 24, 25, 26)
"""The pin map of hardware/README.md, BCM numbers for pits S1…S10, N1…N10. It leaves GPIO18
for the NeoPixel data line and GPIO14/15 for the co-processor UART."""

DEFAULT_CONTROL_PINS: tuple[int, ...] = (2, 3, 27)
"""Control buttons 0…2 (GPIO3 also wakes a halted Pi, so control 1 doubles as power)."""


class GpioPitInput:
    """A `PitInput` over 20 GPIO pins (pit order 0…19) and up to 4 control buttons."""

    def __init__(
        self,
        pins: Sequence[PinName],
        *,
        control_pins: Sequence[PinName] = (),
        pull_up: bool | None = True,
        active_state: bool | None = None,
        clock: Clock,
        pin_factory: Any = None,
        debounce: float = 0.02,
        hold_time: float | Sequence[float] = 1.0,
        stuck_time: float | None = 30.0,
        sensor: bool = False,
        notify: Callable[[], None] | None = None,
    ) -> None:
        """Claim the pins.

        `pull_up=True` (the default) is for buttons that short the pin to ground;
        `pull_up=None` needs `active_state`. `hold_time` is one threshold or several,
        `stuck_time=None` disables stuck detection. `notify` (optional) is called from
        gpiozero's thread after each raw edge, so a loop can wake and `poll()` at once.
        Raises ConfigError for a bad pin list, LinkError if the GPIO cannot be opened.
        """
        pins, control_pins = list(pins), list(control_pins)
        if len(pins) != PITS:
            raise ConfigError(f"need exactly {PITS} pit pins, got {len(pins)}: {pins!r}")
        if len(control_pins) > 4:
            raise ConfigError(f"at most 4 control pins, got {len(control_pins)}: {control_pins!r}")
        everything = pins + control_pins
        seen: set[str] = set()
        for pin in everything:
            if isinstance(pin, bool) or not isinstance(pin, int | str):
                raise ConfigError(f"pin must be a GPIO number or name, got {pin!r}")
            key = str(pin).upper()
            if key in seen:
                raise ConfigError(f"pin {pin!r} is used twice in {everything!r}")
            seen.add(key)
        holds = (hold_time,) if isinstance(hold_time, int | float) else tuple(hold_time)
        try:
            self._bank = DebouncedInputs(
                PITS,
                len(control_pins),
                stable=debounce,
                hold_times=holds,
                stuck_time=stuck_time,
                sensor=sensor,
            )
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc

        self._clock = clock
        self._notify = notify
        self._lock = threading.Lock()
        self._poll_lock = threading.RLock()
        self._edges: deque[tuple[int, bool, float]] = deque()
        self._handler: EventHandler | None = None
        self._closed = False
        self._devices: list[Any] = []
        self.pins: tuple[PinName, ...] = tuple(pins)
        self.control_pins: tuple[PinName, ...] = tuple(control_pins)

        from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]  # lazy import

        try:
            for slot, pin in enumerate(everything):
                device = DigitalInputDevice(
                    pin,
                    pull_up=pull_up,
                    active_state=active_state,
                    bounce_time=None,
                    pin_factory=pin_factory,
                )
                self._devices.append(device)
                device.when_activated = self._callback(slot, True)
                device.when_deactivated = self._callback(slot, False)
                # A pin already active at start (a stuck button, a seed in the beam) is
                # debounced like any edge, so it ends up pressed and later stuck.
                self._edge(slot, bool(device.is_active))
        except Exception as exc:
            self.close()
            what = f"pin {pin!r} (slot {slot})"
            if isinstance(exc, ValueError):
                raise ConfigError(f"cannot use {what}: {exc}") from exc
            raise LinkError(f"cannot open GPIO {what}: {exc}") from exc

    def _callback(self, slot: int, level: bool) -> Callable[[], None]:
        def on_edge() -> None:
            self._edge(slot, level)

        return on_edge

    def _edge(self, slot: int, level: bool) -> None:
        t = self._clock.now()
        with self._lock:
            if self._closed:
                return
            self._edges.append((slot, level, t))
        if self._notify is not None:
            self._notify()

    # -- PitInput ---------------------------------------------------------------------------

    def start(self, handler: EventHandler) -> None:
        """Deliver events to `handler` (from the thread that calls `poll()`)."""
        with self._lock:
            if self._closed:
                raise LinkError("GpioPitInput.start() after close()")
            if self._handler is not None:
                raise RuntimeError("GpioPitInput.start() called twice")
            self._handler = handler

    def poll(self) -> None:
        """Feed queued raw edges to the debouncers, run their timers to now, deliver events."""
        with self._poll_lock:
            with self._lock:
                if self._closed or self._handler is None:
                    return
                edges = list(self._edges)
                self._edges.clear()
                handler = self._handler
            events: list[InputEvent] = []
            for slot, level, t in edges:
                events.extend(self._bank.feed(slot, level, t))
            events.extend(self._bank.advance(self._clock.now()))
            events.sort(key=lambda e: e.time)
            for event in events:
                handler(event)

    def close(self) -> None:
        """Release every pin; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._edges.clear()
            devices, self._devices = self._devices, []
        for device in devices:
            try:
                device.close()
            except Exception:  # closing must not stop the other pins from being released
                log.warning("closing GPIO device %r failed", device, exc_info=True)

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._closed

    def __enter__(self) -> GpioPitInput:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"GpioPitInput({list(self.pins)!r}, control_pins={list(self.control_pins)!r})"
