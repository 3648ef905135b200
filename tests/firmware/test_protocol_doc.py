"""firmware/PROTOCOL.md tells the shipped protocol: its message table, error codes, feature
bit, magic and timings are held to the codec, the host link, the firmware and the simulator."""

from __future__ import annotations

import importlib
import inspect
import queue
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.link import CoprocessorLink
from kiothi_board.hardware.link_sim import SimulatedCoprocessor, firmware_setting
from kiothi_board.hardware.link_types import UNPACKERS

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "firmware/PROTOCOL.md").read_text(encoding="utf-8")
FIRMWARE = ROOT / "firmware/kiothi_io"
WAIT = 30.0  # an upper bound for the simulator's thread; never waited out
SIZES = {"u8": 1, "u16": 2, "u32": 4}
# A valid payload of every type, as its sender packs it.
PAYLOADS = {
    cf.HELLO: cf.pack_hello(),
    cf.HELLO_ACK: cf.pack_hello_ack((0, 2, 0), 20, 4),
    cf.INPUT: cf.pack_input(3, 1, 1234),
    cf.STATUS: cf.pack_status(0b101, 1234, 0, 7),
    cf.ERROR: cf.pack_error(cf.E_CRC, 0x12, 1),
    cf.MAINTENANCE: cf.MAINTENANCE_MAGIC,
}


def table() -> list[tuple[int, str, str, str]]:
    """(type, name, direction, payload) of every row of the Messages table."""
    section = DOC[DOC.index("## Messages") :]
    rows = re.findall(r"^\| (0x[0-9A-F]) \| ([^|]+) \| ([^|]+) \| (.+) \|$", section, re.M)
    return [(int(t, 16), n.strip(), d.strip(), p.strip()) for t, n, d, p in rows]


def rows_sent_by(sender: str) -> set[int]:
    sent = {"host": "host → device", "device": "device → host"}[sender]
    return {t for t, _n, d, _p in table() if d in (sent, "both")}


def test_the_table_names_every_type_the_codec_has_and_only_those() -> None:
    named = {t: n for t, n, _d, _p in table() if n != "(reserved)"}
    assert named == cf.TYPE_NAMES
    assert all(getattr(cf, name) == t for t, name in named.items())
    reserved = [t for t, n, d, _p in table() if n == "(reserved)"]
    assert reserved == [0x5, 0x6] and not set(reserved) & set(cf.TYPE_NAMES)
    assert "Types 0x9–0xF are unused" in DOC and max(cf.TYPE_NAMES) == 0x8
    assert "LEDS" not in DOC and "BRIGHTNESS" not in DOC and "leds_per_ring" not in DOC


def test_payload_fields_add_up_to_what_the_codec_packs() -> None:
    for msg_type, name, _d, payload in table():
        if name == "(reserved)":
            continue
        if msg_type == cf.MAINTENANCE:
            magic = cf.MAINTENANCE_MAGIC.decode("ascii")
            assert payload == f"the {len(magic)} ASCII bytes `{magic}`"
            continue
        fields = re.findall(r"\b(u8|u16|u32) \w+", payload)
        assert sum(SIZES[f] for f in fields) == len(PAYLOADS[msg_type]), name


def test_the_features_byte_error_codes_and_limits_are_the_codecs() -> None:
    assert f"bit 0 (`0x{cf.F_MAINTENANCE:02x}`, `MAINTENANCE`)" in DOC
    assert cf.unpack_hello_ack(PAYLOADS[cf.HELLO_ACK])[4] == cf.F_MAINTENANCE
    listed = DOC[DOC.index("**ERROR codes**") :].split("\n\n")[0]
    codes = {name: int(n) for n, name in re.findall(r"(\d+) ([A-Z_]+)\b", listed)}
    ours = {name[2:]: value for name, value in vars(cf).items() if name.startswith("E_")}
    assert codes == ours and "8 is reserved (firmware 0.1's" in listed and 8 not in ours.values()
    assert f"# kiothi-io link protocol, version {cf.PROTOCOL_VERSION}" in DOC
    assert f"Payload ≤ {cf.MAX_PAYLOAD} bytes" in DOC
    assert f"a COBS packet ≤ {cf.MAX_PACKET} bytes" in DOC
    assert f"20–{cf.INPUT_SLOTS - 1} control buttons" in DOC


def test_the_timings_are_the_firmwares_and_the_hosts() -> None:
    assert f"every {firmware_setting(FIRMWARE, 'STATUS_MS')} ms (the heartbeat)" in DOC
    assert f"every {firmware_setting(FIRMWARE, 'SCAN_MS')} ms), in slot order" in DOC
    assert f"one ERROR per {firmware_setting(FIRMWARE, 'ERROR_GAP_MS')} ms" in DOC
    watchdog = firmware_setting(FIRMWARE, "WATCHDOG_MS")
    assert f"a {watchdog // 1000} s watchdog (`WATCHDOG_MS`)" in DOC
    defaults = inspect.signature(CoprocessorLink).parameters
    first, longest = defaults["backoff"].default
    assert f"({first} s doubling to {longest:g} s)" in DOC
    assert f"`heartbeat_timeout` ({defaults['heartbeat_timeout'].default} s" in DOC
    for size, what in ((22, cf.MAINTENANCE), (18, cf.STATUS)):
        assert len(cf.encode_frame(what, 0, PAYLOADS[what])) == size
    assert "longer than 22 bytes (a MAINTENANCE); the heartbeat STATUS is 18 bytes" in DOC


def test_the_host_accepts_what_the_table_says_devices_send() -> None:
    assert set(UNPACKERS) == rows_sent_by("device")


@pytest.fixture
def firmware_device(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.syspath_prepend(str(FIRMWARE))
    try:
        yield importlib.import_module("device")
    finally:
        for name in ("device", "frames"):
            sys.modules.pop(name, None)


def test_the_firmware_accepts_what_the_table_says_hosts_send(firmware_device: Any) -> None:
    sent: list[bytes] = []
    restarts: list[bool] = []
    device = firmware_device.Device(
        write=sent.append,
        read_levels=lambda: 0,
        ticks_ms=lambda: 0,
        ticks_diff=lambda a, b: a - b,
        maintenance=lambda: restarts.append(True),
        error_gap_ms=0,
    )
    accepted = set()
    for msg_type in range(1, 16):
        ok = device.rx_ok
        device.feed(cf.encode_frame(msg_type, 0, PAYLOADS.get(msg_type, b"")))
        if device.rx_ok > ok:
            accepted.add(msg_type)
    assert accepted == rows_sent_by("host") and restarts == [True]
    errors = [cf.decode_frame(f[:-1]) for f in sent]
    codes = [cf.unpack_error(p)[0] for t, _s, p in errors if t == cf.ERROR]
    assert codes == [cf.E_TYPE] * (15 - len(accepted))  # reserved and device types alike


class QueuePort:
    """A serial-like object in memory: the test writes what the device reads."""

    def __init__(self) -> None:
        self.incoming: queue.Queue[bytes] = queue.Queue()
        self.written = bytearray()

    def read(self, size: int = 1) -> bytes:
        try:
            return self.incoming.get(timeout=0.05)
        except queue.Empty:
            return b""

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)

    def errors(self) -> list[tuple[int, int]]:
        """(code, detail) of every ERROR the device wrote."""
        frames = [cf.decode_frame(p) for p in cf.FrameReader().feed(bytes(self.written))]
        return [cf.unpack_error(p)[:2] for t, _s, p in frames if t == cf.ERROR]


def answered(sim: SimulatedCoprocessor, seen: int) -> Callable[[], bool]:
    """The simulator took one more packet, good or bad."""
    return lambda: sim.ok + sim.garbled > seen


def test_the_simulator_accepts_what_the_table_says_hosts_send() -> None:
    port = QueuePort()
    accepted = set()
    with SimulatedCoprocessor(port, watchdog=None, error_gap=0) as sim:
        for msg_type in range(1, 16):
            seen = sim.ok + sim.garbled
            ok = sim.ok
            port.incoming.put(cf.encode_frame(msg_type, 0, PAYLOADS.get(msg_type, b"")))
            assert sim.wait_for(answered(sim, seen), WAIT)
            if sim.ok > ok:
                accepted.add(msg_type)
    assert accepted == rows_sent_by("host")
    assert [code for code, _ in port.errors()] == [cf.E_TYPE] * (15 - len(accepted))


def test_the_simulator_limits_and_counts_errors_as_the_firmware(firmware_device: Any) -> None:
    garbage = b"\x02\xff\x00" * 3 + b"\x01" * (cf.MAX_PACKET + 10) + b"\x00"
    sent: list[bytes] = []
    device = firmware_device.Device(
        write=sent.append, read_levels=lambda: 0, ticks_ms=lambda: 0,
        ticks_diff=lambda a, b: a - b, error_gap_ms=3_600_000,
    )  # fmt: skip
    device.feed(garbage)
    fw_errors = [cf.unpack_error(p)[:2] for t, _s, p in map(cf.decode_frame, (f[:-1] for f in sent))
                 if t == cf.ERROR]  # fmt: skip
    port = QueuePort()
    with SimulatedCoprocessor(port, watchdog=None, error_gap=3600) as sim:
        port.incoming.put(garbage)
        assert sim.wait_for(lambda: sim.garbled == 4, WAIT)
        assert sim.errors_sent == 1 and device.rx_bad == 4
        assert port.errors() == fw_errors == [(cf.E_SHORT, 0x02)]  # one ERROR, then quiet
