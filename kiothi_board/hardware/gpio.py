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
from collections.abc import Callable, Sequence
from typing import Any

from kiothi_board.clock import Clock
from kiothi_board.errors import ConfigError, LinkError
from kiothi_board.hardware.edges import QueuedPitInput
from kiothi_board.hardware.frames import PITS
from kiothi_board.hardware.pinmap import load_map

__all__ = ["DEFAULT_CONTROL_PINS", "DEFAULT_PIT_PINS", "NO_GPIO", "GpioPitInput", "no_gpio_words"]

log = logging.getLogger(__name__)

PinName = int | str

_DIRECT = load_map("direct")

DEFAULT_PIT_PINS: tuple[int, ...] = _DIRECT.pits
"""BCM numbers for pits S1…S10, N1…N10, from the packaged direct map
(kiothi_board/hardware/maps/direct.toml). It leaves SPI0 (GPIO 9–11) for the LED chain,
GPIO18 for the PWM option and GPIO14/15 for the UART."""

DEFAULT_CONTROL_PINS: tuple[int, ...] = _DIRECT.controls
"""Control buttons of the direct map (none: the header has no pin left for them)."""


NO_GPIO = (
    "no GPIO here: not a Raspberry Pi, or gpiozero has no pin library "
    "(on a Pi: sudo scripts/install.sh, or pip install lgpio)"
)
"""What gpiozero's "Unable to load any default pin factory!" means, and its fix."""


def no_gpio_words(exc: BaseException) -> str:
    """An error opening a pin, in words: gpiozero's BadPinFactory gets its cause and fix."""
    if any(t.__name__ == "BadPinFactory" for t in type(exc).__mro__):
        return NO_GPIO
    return str(exc)


class GpioPitInput(QueuedPitInput):
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
        super().__init__(
            controls=len(control_pins),
            clock=clock,
            debounce=debounce,
            hold_time=hold_time,
            stuck_time=stuck_time,
            sensor=sensor,
            notify=notify,
        )
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
            raise LinkError(f"cannot open GPIO {what}: {no_gpio_words(exc)}") from exc

    def _callback(self, slot: int, level: bool) -> Callable[[], None]:
        def on_edge() -> None:
            self._edge(slot, level)

        return on_edge

    def _edge(self, slot: int, level: bool) -> None:
        self._queue(((slot, level),))

    def close(self) -> None:
        """Release every pin; idempotent."""
        if not self._close_queue():
            return
        with self._lock:
            devices, self._devices = self._devices, []
        for device in devices:
            try:
                device.close()
            except Exception:  # closing must not stop the other pins from being released
                log.warning("closing GPIO device %r failed", device, exc_info=True)

    def __repr__(self) -> str:
        return f"GpioPitInput({list(self.pins)!r}, control_pins={list(self.control_pins)!r})"
