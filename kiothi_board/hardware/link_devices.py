"""The pit input built on a `CoprocessorLink` (split from `link`, which re-exports it).

`LinkPitInput` is a `PitInput`: raw levels into the same `DebouncedInputs` the GPIO driver
uses, so events are identical. Close it before the link.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kiothi_board.clock import Clock
from kiothi_board.errors import ConfigError
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.edges import QueuedPitInput
from kiothi_board.hardware.link_types import LinkMessage

if TYPE_CHECKING:
    from kiothi_board.hardware.link import CoprocessorLink

__all__ = ["LinkPitInput"]

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
