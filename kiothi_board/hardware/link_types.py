"""Types the co-processor link hands out: its state, device info, messages and counters.

Split from `link` (which re-exports them); `UNPACKERS` is the reader's per-type payload check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from kiothi_board.errors import LinkError
from kiothi_board.hardware import cobs_frames as cf

__all__ = [
    "UNPACKERS",
    "DeviceInfo",
    "LinkMessage",
    "LinkState",
    "LinkStats",
    "MessageListener",
    "StateListener",
]

LinkState = Literal["down", "up", "closed"]

MessageListener = Callable[["LinkMessage"], None]
StateListener = Callable[[LinkState, LinkError | None], None]

UNPACKERS: dict[int, Callable[[bytes], object]] = {
    cf.HELLO_ACK: cf.unpack_hello_ack,
    cf.INPUT: cf.unpack_input,
    cf.STATUS: cf.unpack_status,
    cf.ERROR: cf.unpack_error,
}
"""Device-to-host messages and the check of their payloads (unpack raises on a short one)."""


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What the firmware reported in its HELLO_ACK."""

    protocol: int
    firmware: tuple[int, int, int]
    pits: int
    controls: int
    leds_per_ring: int


@dataclass(frozen=True, slots=True)
class LinkMessage:
    """One intact device-to-host frame; `time` is the link clock when it was read."""

    type: int
    seq: int
    payload: bytes
    time: float


@dataclass(frozen=True, slots=True)
class LinkStats:
    """Counters of a link since it was created (a snapshot)."""

    frames_ok: int = 0
    """Intact frames received (any type)."""
    garbled: int = 0
    """Packets rejected by COBS, length or CRC checks, and overruns (no delimiter in time)."""
    dropped: int = 0
    """Intact frames not acted on: unknown version or type, short payload, or read while down."""
    seq_gaps: int = 0
    """Device frames missing by sequence number (lost, or garbled and dropped)."""
    sent: int = 0
    """Frames written to the port."""
    unsent: int = 0
    """Frames not written: port closed, reopening, or the write failed."""
    device_errors: int = 0
    """ERROR frames from the device (it saw something bad from us)."""
    heartbeat_losses: int = 0
    """Times the link went down because the device fell silent."""
    reconnects: int = 0
    """Times a failed port was reopened."""
    handshakes: int = 0
    """HELLO_ACKs accepted (the first one included)."""
