"""The raw inputs `kiothi-board doctor` watches: pin levels and activations, not game events.

The doctor needs what the debouncer hides: which pins are active right now (a stuck pin is
one active at start) and every activation edge (a quick press must not be missed between
two looks). `GpioLevels` reads the Pi's pins through gpiozero (any pin factory, e.g.
MockFactory); `LinkLevels` the co-processor's INPUT and STATUS frames.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from kiothi_board.errors import ConfigError, LinkError
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.gpio import no_gpio_words
from kiothi_board.hardware.link import CoprocessorLink, LinkMessage

__all__ = ["GpioLevels", "LinkLevels", "RawInputs"]


class RawInputs:
    """Levels and activations of input slots (0…19 pits, then controls), thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._levels = 0
        self._activations: list[int] = []
        self.changed = threading.Event()
        """Set on every change; the doctor clears it before it looks."""

    def levels(self) -> int:
        """Bit i set while slot i is active."""
        with self._lock:
            return self._levels

    def activations(self, since: int = 0) -> list[int]:
        """Slots activated since mark `since` (a value of `mark()`), oldest first."""
        with self._lock:
            return self._activations[since:]

    def mark(self) -> int:
        """A mark for `activations`."""
        with self._lock:
            return len(self._activations)

    def wait(self, timeout: float) -> None:
        """Block until something changes or `timeout` seconds pass, then re-arm."""
        self.changed.wait(timeout)
        self.changed.clear()

    def _set(self, slot: int, active: bool) -> None:
        with self._lock:
            was = bool(self._levels >> slot & 1)
            if active:
                self._levels |= 1 << slot
                if not was:
                    self._activations.append(slot)
            else:
                self._levels &= ~(1 << slot)
        self.changed.set()

    def close(self) -> None:
        """Release what the source holds; idempotent."""


class GpioLevels(RawInputs):
    """Raw pin levels through gpiozero (no debounce: the doctor wants to see everything)."""

    def __init__(
        self, pins: Sequence[int | str], *, pull_up: bool = True, pin_factory: Any = None
    ) -> None:
        """Claim the pins; ConfigError for a pin gpiozero refuses, LinkError without GPIO."""
        super().__init__()
        self._devices: list[Any] = []
        try:
            from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]  # lazy
        except ImportError as exc:
            raise LinkError(f"gpiozero is not installed: {exc}") from exc
        slot, pin = 0, pins[0] if pins else None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # gpiozero's pin-factory fallback warnings
                for slot, pin in enumerate(pins):
                    device = DigitalInputDevice(
                        pin,
                        pull_up=pull_up,
                        pin_factory=pin_factory,
                    )
                    self._devices.append(device)
                    device.when_activated = self._edge(slot, True)
                    device.when_deactivated = self._edge(slot, False)
                    if device.is_active:
                        self._set(slot, True)
        except Exception as exc:
            self.close()
            if isinstance(exc, ValueError):
                raise ConfigError(f"cannot use pin {pin!r} (slot {slot}): {exc}") from exc
            why = no_gpio_words(exc)
            raise LinkError(f"cannot open GPIO pin {pin!r} (slot {slot}): {why}") from exc

    def _edge(self, slot: int, active: bool) -> Callable[[], None]:
        return lambda: self._set(slot, active)

    def close(self) -> None:
        """Release every pin."""
        devices, self._devices = self._devices, []
        for device in devices:
            device.close()


class LinkLevels(RawInputs):
    """Raw levels from the co-processor: STATUS masks and INPUT edges."""

    def __init__(self, link: CoprocessorLink) -> None:
        """Listen on `link` (not owned)."""
        super().__init__()
        self._link = link
        self.status_seen = threading.Event()
        link.add_listener(self._on_message)

    def _on_message(self, message: LinkMessage) -> None:
        if message.type == cf.INPUT:
            slot, level, _ms = cf.unpack_input(message.payload)
            self._set(slot, bool(level))
        elif message.type == cf.STATUS:
            mask = cf.unpack_status(message.payload)[0]
            for slot in range(cf.INPUT_SLOTS):
                if bool(mask >> slot & 1) != bool(self.levels() >> slot & 1):
                    self._set(slot, bool(mask >> slot & 1))
            self.status_seen.set()

    def close(self) -> None:
        """Stop listening."""
        self._link.remove_listener(self._on_message)
