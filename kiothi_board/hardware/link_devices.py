"""The pit input and the LED sink built on a `CoprocessorLink` (split from `link`, which
re-exports them).

Two adapters share one link: `LinkPitInput` (a `PitInput`: raw levels into the same
`DebouncedInputs` the GPIO driver uses, so events are identical) and `LinkPixelSink` (a
`PixelSink`: `RingLayout.to_chain`, the current limiter, LEDS chunks). Close them before the
link: `LinkPixelSink.close()` still needs the link to send its black frame.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kiothi_board.clock import Clock
from kiothi_board.errors import ConfigError, LinkError
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.chain import LimitedChain
from kiothi_board.hardware.edges import QueuedPitInput
from kiothi_board.hardware.layout import RingLayout
from kiothi_board.hardware.link_types import LinkChange, LinkMessage
from kiothi_board.hardware.protocols import Frame

if TYPE_CHECKING:
    from kiothi_board.hardware.link import CoprocessorLink

__all__ = ["LinkPitInput", "LinkPixelSink"]

log = logging.getLogger("kiothi_board.hardware.link")  # the link's logger, as before the split


class LinkPitInput(QueuedPitInput):
    """A `PitInput` on a co-processor link: raw levels from INPUT and STATUS, debounced here.

    INPUT frames bring edges; every STATUS carries all levels, and any slot whose level
    differs from the last one seen is fed as an edge then — so a lost INPUT costs at most
    one heartbeat (100 ms) of latency, never a stuck or missing press. As in
    `GpioPitInput`, the reader thread only queues `(slot, level, time)` stamped with the
    injected clock; `poll()` runs the debouncers and calls the handler in its own thread.
    """

    def __init__(
        self,
        link: CoprocessorLink,
        *,
        clock: Clock | None = None,
        controls: int = 4,
        debounce: float = 0.02,
        hold_time: float | Sequence[float] = 1.0,
        stuck_time: float | None = 30.0,
        sensor: bool = False,
        notify: Callable[[], None] | None = None,
    ) -> None:
        """Listen on `link` (not owned: close it yourself) for 20 pits and `controls` buttons.

        `clock` defaults to the link's. Other arguments as for `GpioPitInput`; `notify` is
        called from the reader thread after each queued edge so a loop can `poll()` at once.
        """
        if not (isinstance(controls, int) and 0 <= controls <= 4):
            raise ConfigError(f"controls must be 0…4, got {controls!r}")
        self.link = link
        super().__init__(
            controls=controls,
            clock=clock or link.clock,
            debounce=debounce,
            hold_time=hold_time,
            stuck_time=stuck_time,
            sensor=sensor,
            notify=notify,
        )
        self._levels = [False] * len(self._bank)
        self.healed = 0
        """Edges first learnt from a STATUS heartbeat (their INPUT frame was lost)."""
        link.add_listener(self._on_message)

    def _on_message(self, message: LinkMessage) -> None:
        if message.type == cf.INPUT:
            slot, level, _ms = cf.unpack_input(message.payload)
            changes = [(slot, bool(level))] if slot < len(self._levels) else []
            healing = False
        elif message.type == cf.STATUS:
            mask = cf.unpack_status(message.payload)[0]
            changes = [(slot, bool(mask >> slot & 1)) for slot in range(len(self._levels))]
            healing = True
        else:
            return
        with self._lock:
            edges = [(slot, level) for slot, level in changes if self._levels[slot] != level]
            for slot, level in edges:
                self._levels[slot] = level
            if healing:
                self.healed += len(edges)
        self._queue(edges)

    def close(self) -> None:
        """Stop listening (the link stays open); idempotent."""
        if self._close_queue():
            self.link.remove_listener(self._on_message)

    def __repr__(self) -> str:
        return f"LinkPitInput({self.link!r}, controls={self._bank.controls!r})"


class LinkPixelSink(LimitedChain):
    """A `PixelSink` whose chain hangs off the co-processor.

    Frames are mapped with the `RingLayout`, current-limited for `brightness` (which the
    device applies, like the NeoPixel library's global brightness) and sent as LEDS chunks.
    While the link is down frames are only remembered: a display must not stall or crash
    on a USB hiccup. When the link comes (back) up the brightness and the latest frame are
    sent again, so a rebooted co-processor shows the board as it should be.
    """

    def __init__(
        self,
        link: CoprocessorLink,
        layout: RingLayout,
        *,
        brightness: float = 0.3,
        max_brightness: float = 0.5,
        supply_milliamps: float | None = 3000.0,
    ) -> None:
        """Drive the chain behind `link` (not owned: close this sink first, then the link).

        `brightness`, `max_brightness` and `supply_milliamps` mean what they mean for
        `NeoPixelRings`. Raises ConfigError for bad values.
        """
        super().__init__(
            layout,
            brightness=brightness,
            max_brightness=max_brightness,
            supply_milliamps=supply_milliamps,
        )
        self.link = link
        self._lock = threading.Lock()
        self._closed = False
        self._last: bytes = bytes(3 * layout.total_leds)
        self.unsent_frames = 0
        """Frames shown while the link was down (remembered, sent on reconnect if latest)."""
        link.add_state_listener(self._on_state)
        if link.is_up:
            self._on_state(LinkChange("up", None))

    def set_brightness(self, value: float) -> None:
        """Change the global brightness (capped at `max_brightness`) and send it if up."""
        checked = self._check_brightness(value)
        with self._lock:
            self._brightness = checked
            if self._closed:
                return
        self._send(lambda: self.link.send_brightness(round(checked * 255)))

    def show(self, frame: Frame) -> None:
        """Map, current-limit and send one frame; remembered only while the link is down."""
        with self._lock:
            if self._closed:
                return
            rgb = bytes(v for colour in self._chain(frame) for v in colour)
            self._last = rgb
        if not self._send(lambda: self.link.send_leds(rgb)):
            self.unsent_frames += 1

    def _send(self, action: Callable[[], None]) -> bool:
        if not self.link.is_up:
            return False
        try:
            action()
        except LinkError as exc:  # the link reports itself down and resends on reconnect
            log.debug("LED frame not sent: %s", exc)
            return False
        return True

    def _on_state(self, change: LinkChange) -> None:
        if change.state != "up":
            return
        device = self.link.device
        if device is not None and device.leds_per_ring != self.layout.leds_per_ring:
            log.error(
                "co-processor on %r drives %d LEDs per ring but the layout has %d: "
                "fix the firmware's config.py or [leds] leds_per_ring",
                self.link.port_url,
                device.leds_per_ring,
                self.layout.leds_per_ring,
            )
        with self._lock:
            if self._closed:
                return
            rgb, level = self._last, round(self._brightness * 255)
        self._send(lambda: self.link.send_brightness(level))
        self._send(lambda: self.link.send_leds(rgb))

    def close(self) -> None:
        """Send one black frame (if the link is up) and stop; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._last = bytes(3 * self.layout.total_leds)
        self.link.remove_state_listener(self._on_state)
        self._send(lambda: self.link.send_leds(bytes(3 * self.layout.total_leds)))

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._closed

    def __enter__(self) -> LinkPixelSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LinkPixelSink({self.link!r}, {self.layout!r}, brightness={self._brightness!r})"
