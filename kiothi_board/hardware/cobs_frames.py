"""The co-processor link's frame codec (firmware/PROTOCOL.md): COBS, CRC-16, message payloads.

This one file runs under CPython and MicroPython alike: firmware/kiothi_io/frames.py is a
byte-identical copy (a test checks it), so the codec the laptop tests is the codec the RP2040
runs. That is why it breaks some house style on purpose: no `from __future__` import and no
`typing` import (MicroPython has neither), no f-strings, dataclasses or annotated variables;
annotations appear only in signatures, which MicroPython parses and ignores.

A frame on the wire is COBS(header + payload + CRC) followed by one 0x00 delimiter, where the
header is a version/type byte (version in the high nibble, type in the low) and a sequence
number, and the CRC is CRC-16/CCITT-FALSE (big-endian) over header and payload.
"""

# ruff: noqa: UP031  (%-formatting: the one string formatting every MicroPython build has)

import struct

PROTOCOL_VERSION = 1
"""Bumped only for incompatible changes; fields appended to a payload are compatible."""

# Message types (low nibble of the first byte). 0 is reserved so a frame of zeros is never valid.
# 0x5 and 0x6 carried LED frames to firmware 0.1, which drove no LEDs: unused, never reassigned.
HELLO = 0x1  # host -> device: u8 protocol version
HELLO_ACK = 0x2  # device -> host: u8 proto, u8 fw major/minor/patch, u8 pits/controls/0/features
INPUT = 0x3  # device -> host: u8 index, u8 level, u32 device ms
STATUS = 0x4  # device -> host: u32 levels mask, u32 device ms, u16 rx bad, u16 rx ok
ERROR = 0x7  # device -> host: u8 code, u8 detail, u16 device's bad-frame count
MAINTENANCE = 0x8  # both ways: MAINTENANCE_MAGIC; the device answers, then restarts for updates

TYPE_NAMES = {
    HELLO: "HELLO",
    HELLO_ACK: "HELLO_ACK",
    INPUT: "INPUT",
    STATUS: "STATUS",
    ERROR: "ERROR",
    MAINTENANCE: "MAINTENANCE",
}

# ERROR codes (also the `reason` of a FrameDecodeError). 8 (LED_SEQUENCE) went with the LEDs.
E_COBS = 1  # the bytes between two delimiters are not valid COBS
E_CRC = 2  # CRC mismatch
E_SHORT = 3  # shorter than header + CRC
E_VERSION = 4  # unknown protocol version nibble
E_TYPE = 5  # unknown message type
E_LENGTH = 6  # payload too short for its type (or a MAINTENANCE without the magic)
E_OVERRUN = 7  # no delimiter within MAX_PACKET bytes

F_MAINTENANCE = 0x01
"""HELLO_ACK feature bit: the device answers MAINTENANCE (firmware 0.2 on; 0.1 sent no byte)."""

MAINTENANCE_MAGIC = b"kiothi-io update"
"""MAINTENANCE's payload: line noise that passes the CRC still cannot restart a board."""

MAX_PAYLOAD = 250
"""Largest payload: header + payload + CRC = 254 bytes fits one COBS block."""

MAX_PACKET = 256
"""Longest COBS packet (without delimiter) a receiver buffers before declaring an overrun."""

INPUT_SLOTS = 24
"""Input slots: pits 0..19, then control buttons 0..3 as slots 20..23."""


def _make_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor)."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """COBS-encode `data`: the result contains no 0x00 byte."""
    out = bytearray()
    code_at = 0
    out.append(0)
    code = 1
    for byte in data:
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(byte)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo `cobs_encode`; ValueError if `data` is not a valid COBS packet."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("COBS: zero byte inside a packet")
        end = i + code
        if end > n:
            raise ValueError("COBS: block runs past the end")
        chunk = data[i + 1 : end]
        if chunk.find(b"\x00") >= 0:
            raise ValueError("COBS: zero byte inside a packet")
        out.extend(chunk)
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


class FrameDecodeError(ValueError):
    """A packet that is not a valid frame; `reason` is one of the E_* codes."""

    def __init__(self, reason: int, message: str) -> None:
        """Keep the E_* `reason` for counting and ERROR replies."""
        # super(), not ValueError.__init__(self, …): MicroPython's built-in types have no
        # __init__ attribute, so that spelling raised AttributeError on the RP2040.
        super().__init__(message)
        self.reason = reason


def encode_frame(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """One frame on the wire: COBS(header + payload + CRC) + 0x00."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload of %d bytes is over %d" % (len(payload), MAX_PAYLOAD))
    body = bytearray()
    body.append(((PROTOCOL_VERSION & 0x0F) << 4) | (msg_type & 0x0F))
    body.append(seq & 0xFF)
    body.extend(payload)
    crc = crc16(bytes(body))
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    return cobs_encode(bytes(body)) + b"\x00"


def decode_frame(packet: bytes) -> tuple[int, int, bytes]:
    """(type, seq, payload) of one packet (without its delimiter).

    Raises FrameDecodeError: E_COBS, E_SHORT, E_CRC (garbled) or E_VERSION, E_TYPE (intact
    but not ours to act on). Payload lengths are checked by the unpack_* functions.
    """
    try:
        body = cobs_decode(packet)
    except ValueError as exc:
        raise FrameDecodeError(E_COBS, str(exc)) from exc
    if len(body) < 4:
        raise FrameDecodeError(E_SHORT, "frame of %d bytes is too short" % len(body))
    crc = (body[-2] << 8) | body[-1]
    if crc16(body[:-2]) != crc:
        raise FrameDecodeError(E_CRC, "CRC mismatch")
    version = body[0] >> 4
    msg_type = body[0] & 0x0F
    if version != PROTOCOL_VERSION:
        raise FrameDecodeError(
            E_VERSION, "protocol version %d, expected %d" % (version, PROTOCOL_VERSION)
        )
    if msg_type not in TYPE_NAMES:
        raise FrameDecodeError(E_TYPE, "unknown message type %d" % msg_type)
    return msg_type, body[1], bytes(body[2:-2])


class FrameReader:
    """Splits a byte stream at 0x00 delimiters into COBS packets (pyserial's FramedPacket idea).

    A packet longer than MAX_PACKET is an overrun: its bytes are discarded up to the next
    delimiter and counted in `overruns`, so a lost delimiter costs one frame, not the stream.
    """

    def __init__(self, max_packet: int = MAX_PACKET) -> None:
        """Buffer at most `max_packet` bytes of one packet."""
        self.max_packet = max_packet
        self.overruns = 0
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes]:
        """Add received bytes; return the complete packets they finish (empty ones dropped)."""
        packets = []
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)
            if end < 0:
                self._extend(data[start:])
                break
            self._extend(data[start:end])
            if self._skipping:
                self._skipping = False
            elif self._buf:
                packets.append(bytes(self._buf))
            self._buf = bytearray()
            start = end + 1
        return packets

    def _extend(self, chunk: bytes) -> None:
        if self._skipping:
            return
        if len(self._buf) + len(chunk) > self.max_packet:
            self.overruns += 1
            self._skipping = True
            self._buf = bytearray()
            return
        self._buf.extend(chunk)

    def reset(self) -> None:
        """Forget a partial packet (after a reconnect)."""
        self._buf = bytearray()
        self._skipping = False


# -- payloads ------------------------------------------------------------------------------


def _need(payload: bytes, size: int, what: str) -> None:
    if len(payload) < size:
        raise FrameDecodeError(
            E_LENGTH, "%s payload of %d bytes, need %d" % (what, len(payload), size)
        )


def pack_hello(version: int = PROTOCOL_VERSION) -> bytes:
    """HELLO payload."""
    return bytes((version & 0xFF,))


def unpack_hello(payload: bytes) -> int:
    """The protocol version a HELLO asks for."""
    _need(payload, 1, "HELLO")
    return payload[0]


def pack_hello_ack(
    firmware: tuple[int, int, int], pits: int, controls: int, features: int = F_MAINTENANCE
) -> bytes:
    """HELLO_ACK payload: our protocol version, firmware version, board shape, features."""
    major, minor, patch = firmware
    return struct.pack(">8B", PROTOCOL_VERSION, major, minor, patch, pits, controls, 0, features)


def unpack_hello_ack(payload: bytes) -> tuple[int, tuple[int, int, int], int, int, int]:
    """(protocol, (major, minor, patch), pits, controls, features); 0.1's 7 bytes: features 0."""
    _need(payload, 7, "HELLO_ACK")
    v = struct.unpack(">7B", payload[:7])
    features = payload[7] if len(payload) > 7 else 0
    return v[0], (v[1], v[2], v[3]), v[4], v[5], features


def pack_input(index: int, level: int, ms: int) -> bytes:
    """INPUT payload: slot index (0..19 pits, 20..23 controls), level (1 active), device ms."""
    return struct.pack(">BBI", index, 1 if level else 0, ms & 0xFFFFFFFF)


def unpack_input(payload: bytes) -> tuple[int, int, int]:
    """(index, level, device ms)."""
    _need(payload, 6, "INPUT")
    return struct.unpack(">BBI", payload[:6])


def pack_status(levels: int, ms: int, rx_bad: int, rx_ok: int) -> bytes:
    """STATUS payload: the 24 levels (bit i = slot i), device ms, receive counters."""
    return struct.pack(">IIHH", levels & 0xFFFFFF, ms & 0xFFFFFFFF, rx_bad & 0xFFFF, rx_ok & 0xFFFF)


def unpack_status(payload: bytes) -> tuple[int, int, int, int]:
    """(levels mask, device ms, rx bad, rx ok)."""
    _need(payload, 12, "STATUS")
    return struct.unpack(">IIHH", payload[:12])


def pack_error(code: int, detail: int, count: int) -> bytes:
    """ERROR payload: E_* code, detail (the bad packet's first byte, or 0), bad-frame count."""
    return struct.pack(">BBH", code & 0xFF, detail & 0xFF, count & 0xFFFF)


def unpack_error(payload: bytes) -> tuple[int, int, int]:
    """(code, detail, count)."""
    _need(payload, 4, "ERROR")
    return struct.unpack(">BBH", payload[:4])


def check_maintenance(payload: bytes) -> None:
    """A MAINTENANCE payload must be the magic (E_LENGTH otherwise)."""
    if bytes(payload[: len(MAINTENANCE_MAGIC)]) != MAINTENANCE_MAGIC:
        raise FrameDecodeError(E_LENGTH, "MAINTENANCE without its magic")
