"""The co-processor link: the shared codec, and host and simulated device over a real pty."""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kiothi_board.clock import FakeClock, SystemClock
from kiothi_board.errors import LinkError
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.link import CoprocessorLink
from kiothi_board.hardware.link_devices import LinkPitInput
from kiothi_board.hardware.link_sim import FdPort, SimulatedCoprocessor
from kiothi_board.hardware.link_types import LinkChange, LinkMessage
from kiothi_board.hardware.protocols import InputEvent, PitInput
from tests.conftest import PtyPair

ROOT = Path(__file__).resolve().parents[2]
WAIT = 30.0  # an upper bound for what real threads on a pty do; never waited out

# -- codec --------------------------------------------------------------------------------


def test_firmware_codec_is_a_byte_identical_copy() -> None:
    package = (ROOT / "kiothi_board/hardware/cobs_frames.py").read_bytes()
    firmware = (ROOT / "firmware/kiothi_io/frames.py").read_bytes()
    assert firmware == package, (
        "cp kiothi_board/hardware/cobs_frames.py firmware/kiothi_io/frames.py"
    )


def test_crc_is_ccitt_false() -> None:
    assert cf.crc16(b"123456789") == 0x29B1  # the catalogue check value


@pytest.mark.parametrize(
    ("data", "encoded"),
    [
        (b"", b"\x01"),
        (b"\x00", b"\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x01"),
    ],
)
def test_cobs_known_vectors(data: bytes, encoded: bytes) -> None:
    assert cf.cobs_encode(data) == encoded
    assert cf.cobs_decode(encoded) == data


@given(st.binary(max_size=600))
def test_cobs_round_trips_and_never_emits_zero(data: bytes) -> None:
    encoded = cf.cobs_encode(data)
    assert 0 not in encoded
    assert cf.cobs_decode(encoded) == data


frames_st = st.tuples(
    st.sampled_from(sorted(cf.TYPE_NAMES)),
    st.integers(0, 255),
    st.binary(max_size=cf.MAX_PAYLOAD),
)


@given(st.lists(frames_st, min_size=1, max_size=5), st.data())
def test_frames_round_trip_through_the_reader_in_any_split(
    frames: list[tuple[int, int, bytes]], data: st.DataObject
) -> None:
    stream = b"".join(cf.encode_frame(*f) for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    reader = cf.FrameReader()
    packets: list[bytes] = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        packets += reader.feed(stream[a:b])
    assert [cf.decode_frame(p) for p in packets] == frames


@settings(max_examples=300)
@given(frames_st, st.data())
def test_corrupted_frames_are_rejected_and_the_stream_resyncs(
    frame: tuple[int, int, bytes], data: st.DataObject
) -> None:
    wire = bytearray(cf.encode_frame(*frame))
    kind = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
    at = data.draw(st.integers(0, len(wire) - 2))  # keep the delimiter: corrupt the body
    if kind == "flip":
        wire[at] ^= data.draw(st.integers(1, 255))
    elif kind == "insert":
        wire.insert(at, data.draw(st.integers(1, 255)))
    elif kind == "delete":
        del wire[at]
    else:
        wire = wire[:at] + b"\x00"
    good = cf.encode_frame(cf.STATUS, 7, cf.pack_status(5, 6, 0, 0))
    reader = cf.FrameReader()
    packets = reader.feed(bytes(wire) + good)
    decoded = []
    for packet in packets[:-1]:
        try:
            decoded.append(cf.decode_frame(packet))
        except cf.FrameDecodeError as exc:
            assert exc.reason in (cf.E_COBS, cf.E_CRC, cf.E_SHORT, cf.E_VERSION, cf.E_TYPE)
    # Whatever the damage, the next intact frame still decodes.
    assert cf.decode_frame(packets[-1]) == (cf.STATUS, 7, cf.pack_status(5, 6, 0, 0))
    # A CRC collision may let a damaged frame through, but never as the original frame.
    if kind == "flip" and decoded:
        assert decoded[0] != frame


def test_a_packet_without_delimiter_overruns_and_costs_one_frame() -> None:
    reader = cf.FrameReader()
    assert reader.feed(b"\x05" * (cf.MAX_PACKET + 10)) == []
    good = cf.encode_frame(cf.HELLO, 1, cf.pack_hello())
    packets = reader.feed(b"\x00" + good)
    assert reader.overruns == 1
    assert [cf.decode_frame(p) for p in packets] == [(cf.HELLO, 1, b"\x01")]


def test_hello_ack_of_firmware_0_1_has_no_features() -> None:
    old = cf.pack_hello_ack((0, 1, 0), 20, 4)[:7]  # 0.1 sent seven bytes
    assert cf.unpack_hello_ack(old) == (1, (0, 1, 0), 20, 4, 0)
    assert cf.unpack_hello_ack(cf.pack_hello_ack((0, 2, 0), 20, 4))[4] == cf.F_MAINTENANCE
    with pytest.raises(cf.FrameDecodeError):
        cf.check_maintenance(b"kiothi-io updat")


# -- host and simulated device over a pty ---------------------------------------------------


@dataclass
class Rig:
    link: CoprocessorLink
    device: SimulatedCoprocessor
    slave_fd: int


@contextmanager
def make_rig(pty_pair: PtyPair, clock: object, **link_kwargs: object) -> Iterator[Rig]:
    master, slave = pty_pair
    port = FdPort(master)
    device = SimulatedCoprocessor(port)
    link = CoprocessorLink(os.ttyname(slave), clock=clock, backoff=(0.05, 0.2), **link_kwargs)  # type: ignore[arg-type]
    try:
        yield Rig(link, device, slave)
    finally:
        link.close()
        device.close()


@pytest.fixture
def rig(pty_pair: PtyPair, clock: FakeClock) -> Iterator[Rig]:
    with make_rig(pty_pair, clock) as r:
        yield r


def test_hello_handshake_brings_the_link_up(rig: Rig) -> None:
    assert rig.link.wait_up(WAIT), rig.link.error
    assert rig.device.hellos >= 1
    info = rig.link.device
    assert info is not None
    assert (info.protocol, info.pits, info.controls, info.updatable) == (1, 20, 4, True)
    assert rig.link.error is None
    assert rig.link.wait_for(lambda: rig.link.stats.frames_ok >= 2, WAIT)


def test_a_listener_that_raises_is_logged_and_the_others_still_hear(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(message: object) -> None:
        raise RuntimeError("a broken subscriber")

    heard: list[LinkMessage] = []
    changes: list[LinkChange] = []
    rig.link.add_listener(broken)
    rig.link.add_listener(heard.append)
    rig.link.add_state_listener(broken)
    rig.link.add_state_listener(changes.append)
    assert rig.link.wait_up(WAIT)
    assert rig.link.wait_for(lambda: len(heard) >= 3, WAIT)  # the reader goes on
    rig.link.close()
    assert changes[-1] == LinkChange("closed", None)
    assert caplog.text.count("a broken subscriber") >= 2
    assert "co-processor link" in caplog.text
    rig.link.remove_listener(broken)
    rig.link.remove_listener(broken)  # twice: nothing happens


def test_presses_arrive_as_debounced_events(rig: Rig, clock: FakeClock) -> None:
    arrived = threading.Event()
    events: list[InputEvent] = []
    with LinkPitInput(rig.link, debounce=0.02, notify=arrived.set) as pits:
        assert isinstance(pits, PitInput)
        pits.start(events.append)
        assert rig.link.wait_up(WAIT)

        def step(slot: int, level: bool) -> None:
            arrived.clear()
            rig.device.set_level(slot, level)
            assert arrived.wait(WAIT)
            pits.poll()

        step(3, True)
        assert events == []  # not yet stable
        clock.advance(0.03)
        pits.poll()
        assert events == [InputEvent("pressed", 3, 100.02)]
        step(3, False)
        step(3, True)  # chatter shorter than the debounce time is ignored
        step(3, False)
        clock.advance(0.03)
        pits.poll()
        assert events[1:] == [InputEvent("released", 3, 100.05, seconds=pytest.approx(0.03))]
        step(21, True)  # control button 1
        clock.advance(0.02)
        pits.poll()
        assert events[2] == InputEvent("pressed", -1, pytest.approx(100.08), control=1)


def test_a_lost_input_frame_is_healed_by_the_next_heartbeat(rig: Rig, clock: FakeClock) -> None:
    arrived = threading.Event()
    events: list[InputEvent] = []
    with LinkPitInput(rig.link, notify=arrived.set) as pits:
        pits.start(events.append)
        assert rig.link.wait_up(WAIT)
        rig.device.press(7, send_input=False)
        assert arrived.wait(WAIT)  # within one STATUS period
        assert pits.healed == 1
        clock.advance(0.05)
        pits.poll()
        assert [(e.kind, e.pit) for e in events] == [("pressed", 7)]


def test_led_frames_are_not_for_the_coprocessor(rig: Rig) -> None:
    """Types 0x5/0x6 carried LEDs to firmware 0.1 (which drove none): refused as unknown."""
    assert rig.link.wait_up(WAIT)
    rig.link.send(0x5, b"\x00\x01\x00\x00\xff\x00\x00")
    assert rig.link.wait_for(lambda: rig.link.stats.device_errors >= 1, WAIT)
    assert rig.device.garbled == 1 and rig.link.is_up


def test_garbage_both_ways_is_counted_and_ignored(rig: Rig, clock: FakeClock) -> None:
    assert rig.link.wait_up(WAIT)
    arrived = threading.Event()
    events: list[InputEvent] = []
    with LinkPitInput(rig.link, notify=arrived.set) as pits:
        pits.start(events.append)
        before = rig.link.stats
        good = cf.encode_frame(cf.INPUT, 0, cf.pack_input(5, 1, 0))
        # device -> host: line noise, a frame with a bad CRC, a truncated frame
        bad_crc = bytearray(good)
        bad_crc[3] ^= 0x40
        rig.device.inject(b"\x07\x99\x42\x00" + bytes(bad_crc) + good[:5] + b"\x00")
        rig.device.press(5)
        assert arrived.wait(WAIT)
        assert rig.link.wait_for(lambda: rig.link.stats.garbled >= before.garbled + 3, WAIT)
        clock.advance(0.05)
        pits.poll()
        assert [(e.kind, e.pit) for e in events] == [("pressed", 5)]
    # host -> device: the device counts it, reports ERROR, and the link stays up
    os.write(rig.slave_fd, b"\x03\x01\x02\x00")
    assert rig.link.wait_for(lambda: rig.link.stats.device_errors >= 1, WAIT)
    assert rig.device.garbled >= 1
    assert rig.link.is_up


def test_a_silent_device_takes_the_link_down_until_it_talks_again(
    pty_pair: PtyPair, clock: FakeClock
) -> None:
    """On the fake clock only the test's time passes: a loaded machine that is late to read
    a heartbeat is not a silent device."""
    states: list[str] = []

    def later() -> bool:  # the link checks its heartbeat deadline whenever it wakes
        clock.advance(0.25)
        return True

    with make_rig(pty_pair, clock, heartbeat_timeout=0.3) as r:
        r.link.add_state_listener(lambda change: states.append(change.state))
        assert r.link.wait_up(WAIT)
        r.device.go_silent()
        assert r.link.wait_for(lambda: later() and r.link.state == "down", WAIT)
        assert isinstance(r.link.error, LinkError)
        assert isinstance(r.link.error, OSError)
        assert "heartbeat" in str(r.link.error) and os.ttyname(r.slave_fd) in str(r.link.error)
        assert r.link.stats.heartbeat_losses == 1
        r.device.resume()
        assert r.link.wait_for(lambda: later() and r.link.is_up, WAIT)  # HELLO retried
        assert r.link.error is None
        assert r.link.stats.handshakes >= 2
    assert states == ["up", "down", "up", "closed"]


def test_firmware_with_another_protocol_never_comes_up(pty_pair: PtyPair) -> None:
    master, slave = pty_pair
    with SimulatedCoprocessor(FdPort(master), protocol=1) as device:
        device.protocol = 9
        with CoprocessorLink(os.ttyname(slave), clock=SystemClock(), backoff=(0.05, 0.1)) as link:
            assert link.wait_for(lambda: link.error is not None, WAIT)
            assert "protocol 9" in str(link.error)
            assert not link.is_up


def test_an_unopenable_port_is_a_link_error_quoting_it(clock: FakeClock) -> None:
    with pytest.raises(LinkError, match="kiothi-no-such-port") as info:
        CoprocessorLink("/dev/kiothi-no-such-port", clock=clock)
    assert info.value.__cause__ is not None


def test_close_is_idempotent_and_sends_refuse_after_it(rig: Rig) -> None:
    assert rig.link.wait_up(WAIT)
    rig.link.close()
    rig.link.close()
    assert rig.link.state == "closed"
    with pytest.raises(LinkError, match="closed"):
        rig.link.send(cf.HELLO, cf.pack_hello())


# -- the firmware's own protocol logic, run on CPython against the real host link ------------


class FirmwareHarness:
    """firmware/kiothi_io/device.py on a pty master, ticked by a thread as main.py would."""

    def __init__(self, master: int, device_module: object) -> None:
        self.port = FdPort(master, timeout=0.005)
        self.levels = 0
        self.maintenance = threading.Event()
        self._stop = threading.Event()
        self._start = time.monotonic()
        self.device = device_module.Device(  # type: ignore[attr-defined]
            write=self.port.write,
            read_levels=lambda: self.levels,
            ticks_ms=lambda: int((time.monotonic() - self._start) * 1000) & 0x3FFFFFFF,
            ticks_diff=lambda a, b: ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000,
            maintenance=self.maintenance.set,
        )
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            data = self.port.read(4096)
            if data:
                self.device.feed(data)
            self.device.tick()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)


@pytest.fixture
def firmware_device(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.syspath_prepend(str(ROOT / "firmware/kiothi_io"))
    try:
        yield importlib.import_module("device")
    finally:
        for name in ("device", "frames"):
            sys.modules.pop(name, None)


def test_the_firmware_logic_speaks_to_the_host_link(
    pty_pair: PtyPair, clock: FakeClock, firmware_device: object
) -> None:
    master, slave = pty_pair
    fw = FirmwareHarness(master, firmware_device)
    arrived = threading.Event()
    events: list[InputEvent] = []
    try:
        with (
            CoprocessorLink(os.ttyname(slave), clock=clock) as link,
            LinkPitInput(link, notify=arrived.set) as pits,
        ):
            assert link.wait_up(WAIT), link.error
            assert link.device is not None and link.device.updatable
            pits.start(events.append)
            fw.levels = 1 << 12  # N3 pressed
            assert arrived.wait(WAIT)
            clock.advance(0.05)
            pits.poll()
            assert [(e.kind, e.pit) for e in events] == [("pressed", 12)]
            answers: list[LinkMessage] = []
            link.add_listener(lambda m: answers.append(m) if m.type == cf.MAINTENANCE else None)
            link.request_maintenance()  # answered, then main.py's restart is called
            assert fw.maintenance.wait(WAIT)
            assert link.wait_for(lambda: len(answers) == 1, WAIT)
            os.write(slave, b"\x02\xff\x00")  # garbage to the device: counted, ERROR back
            assert link.wait_for(lambda: link.stats.device_errors >= 1, WAIT)
            assert fw.device.rx_bad >= 1  # type: ignore[attr-defined]
            assert link.is_up
    finally:
        fw.close()


class UnpluggablePort(FdPort):
    """A serial-like port on a dup of the pty slave whose reads fail once `unplugged` is set."""

    def __init__(self, fd: int, unplugged: threading.Event) -> None:
        super().__init__(os.dup(fd), close_fd=True)
        self.unplugged = unplugged

    def read(self, size: int = 1) -> bytes:
        if self.unplugged.is_set():
            raise OSError(5, "Input/output error")
        return super().read(size)


def test_a_failed_port_is_reopened_with_backoff(pty_pair: PtyPair) -> None:
    master, slave = pty_pair
    unplugged = threading.Event()
    opened: list[str] = []

    def factory(url: str, **kwargs: object) -> UnpluggablePort:
        opened.append(url)
        if len(opened) == 2:  # the first reopen fails: the device is still re-enumerating
            raise OSError(2, "No such file or directory")
        unplugged.clear()
        return UnpluggablePort(slave, unplugged)

    with (
        SimulatedCoprocessor(FdPort(master)),
        CoprocessorLink(
            "/dev/kiothi-io", clock=SystemClock(), serial_factory=factory, backoff=(0.02, 0.05)
        ) as link,
    ):
        assert link.wait_up(WAIT)
        unplugged.set()
        assert link.wait_for(lambda: link.stats.reconnects == 1 and link.is_up, WAIT)
        assert len(opened) == 3 and opened[0] == "/dev/kiothi-io"
        assert link.stats.handshakes >= 2
