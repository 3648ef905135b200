"""Types the co-processor link hands out (state, device info, messages, counters) and its
port and frame helpers. Split from `link`, which re-exports the types.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from kiothi_board.errors import ConfigError, LinkError
from kiothi_board.hardware import cobs_frames as cf

__all__ = [
    "UNPACKERS",
    "DeviceInfo",
    "LinkChange",
    "LinkMessage",
    "LinkState",
    "LinkStats",
    "MessageListener",
    "StateListener",
    "check_link_args",
    "check_packet",
    "open_port",
]

LinkState = Literal["down", "up", "closed"]


@dataclass(frozen=True, slots=True)
class LinkChange:
    """The link's new state, and why it is down (None while up, or when closed)."""

    state: LinkState
    error: LinkError | None


MessageListener = Callable[["LinkMessage"], None]
StateListener = Callable[[LinkChange], None]

UNPACKERS: dict[int, Callable[[bytes], object]] = {
    cf.HELLO_ACK: cf.unpack_hello_ack,
    cf.INPUT: cf.unpack_input,
    cf.STATUS: cf.unpack_status,
    cf.ERROR: cf.unpack_error,
    cf.MAINTENANCE: cf.check_maintenance,
}
"""Device-to-host messages and the check of their payloads (unpack raises on a short one)."""


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What the firmware reported in its HELLO_ACK."""

    protocol: int
    firmware: tuple[int, int, int]
    pits: int
    controls: int
    features: int = 0
    """`cf.F_*` bits; 0 from firmware 0.1, which cannot be updated over the link."""

    @property
    def updatable(self) -> bool:
        """Whether the firmware answers MAINTENANCE (so `firmware install` can reach mpremote)."""
        return bool(self.features & cf.F_MAINTENANCE)


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


def check_link_args(port_url: str, heartbeat_timeout: float, backoff: tuple[float, float]) -> None:
    """Raise ConfigError for a bad `CoprocessorLink` port, heartbeat timeout or backoff."""
    if not isinstance(port_url, str) or not port_url:
        raise ConfigError(f"co-processor port must be a non-empty string, got {port_url!r}")
    if not heartbeat_timeout > 0:
        raise ConfigError(f"heartbeat_timeout must be > 0, got {heartbeat_timeout!r}")
    if not (0 < backoff[0] <= backoff[1]):
        raise ConfigError(
            f"backoff must be (first, longest) with 0 < first <= longest, got {backoff!r}"
        )


def open_port(
    factory: Callable[..., Any] | None,
    port_url: str,
    baud: int,
    read_timeout: float,
    write_timeout: float,
) -> Any:
    """Open `port_url` with `factory` (default pyserial's `serial_for_url`); LinkError if not."""
    if factory is None:
        import serial  # type: ignore[import-untyped]  # lazy: pyserial ships no type hints

        factory = serial.serial_for_url
    try:
        return factory(
            port_url,
            baudrate=baud,
            timeout=read_timeout,
            write_timeout=write_timeout,
        )
    except Exception as exc:  # SerialException is an OSError; ValueError for a bad URL
        raise LinkError(f"cannot open co-processor port {port_url!r}: {exc}") from exc


def check_packet(packet: bytes) -> tuple[int, int, bytes]:
    """Decode one packet and check its payload: (type, seq, payload); FrameDecodeError if bad."""
    msg_type, seq, payload = cf.decode_frame(packet)
    unpack = UNPACKERS.get(msg_type)
    if unpack is None:  # a host-to-device type coming back: an echo, or crossed wires
        raise cf.FrameDecodeError(cf.E_TYPE, f"unexpected {cf.TYPE_NAMES[msg_type]}")
    unpack(payload)
    return msg_type, seq, payload
