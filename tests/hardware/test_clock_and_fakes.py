"""The clocks and the shipped fakes."""

from __future__ import annotations

import pytest

from kiothi_board.clock import Clock, FakeClock, SystemClock
from kiothi_board.errors import FrameError
from kiothi_board.hardware.fakes import FakePitInput, FakePixelSink
from kiothi_board.hardware.protocols import InputEvent, PitInput, PixelSink


def test_system_clock_is_monotonic() -> None:
    clock = SystemClock()
    assert isinstance(clock, Clock)
    a = clock.now()
    assert clock.now() >= a


def test_fake_clock_advance_and_set() -> None:
    clock = FakeClock(5.0)
    assert isinstance(clock, Clock)
    assert clock.now() == 5.0
    assert clock.advance(1.5) == 6.5
    clock.set(10.0)
    assert clock.now() == 10.0
    with pytest.raises(ValueError, match="-1"):
        clock.advance(-1)
    with pytest.raises(ValueError, match=r"9\.0"):
        clock.set(9.0)
    assert repr(clock) == "FakeClock(10.0)"


def test_fake_pit_input_queues_until_start() -> None:
    clock = FakeClock(2.0)
    pins = FakePitInput(clock)
    assert isinstance(pins, PitInput)
    got: list[InputEvent] = []
    pins.tap(3)
    clock.advance(1)
    pins.drop(19)
    assert got == []
    pins.start(got.append)
    assert got == [
        InputEvent("pressed", 3, 2.0),
        InputEvent("released", 3, 2.0),
        InputEvent("dropped", 19, 3.0),
    ]
    pins.hold(0, 1.5)
    assert [e.kind for e in got[3:]] == ["pressed", "held", "released"]
    assert got[4].seconds == 1.5
    pins.control(2)
    pins.control(0, "held", 2.0)
    assert got[-2] == InputEvent("pressed", -1, 3.0, control=2)
    assert got[-1] == InputEvent("held", -1, 3.0, 2.0, control=0)
    assert list(pins.events) == got
    pins.poll()
    pins.close()
    pins.close()
    pins.tap(1)
    assert len(got) == 8


@pytest.mark.parametrize("pit", [-1, 20, True, "S1"])
def test_fake_pit_input_rejects_bad_pits(pit: object) -> None:
    pins = FakePitInput(FakeClock())
    with pytest.raises(ValueError, match=repr(pit).replace("'", ".")):
        pins.press(pit)  # type: ignore[arg-type]


def test_fake_pit_input_rejects_bad_controls() -> None:
    pins = FakePitInput(FakeClock())
    with pytest.raises(ValueError, match="4"):
        pins.control(4)
    with pytest.raises(ValueError, match="bogus"):
        pins.control(0, "bogus")  # type: ignore[arg-type]


def test_fake_pixel_sink_records_copies() -> None:
    sink = FakePixelSink(leds_per_ring=12, keep=2)
    assert isinstance(sink, PixelSink)
    assert sink.last is None
    frame = [[(1, 2, 3)] * 12 for _ in range(20)]
    sink.show(frame)
    frame[0][0] = (9, 9, 9)
    assert sink.last is not None
    assert sink.last[0][0] == (1, 2, 3)
    sink.show(frame)
    sink.show(frame)
    assert len(sink.frames) == 2
    assert sink.shown == 3


def test_fake_pixel_sink_close_blanks_once() -> None:
    with FakePixelSink() as sink:
        sink.show([[(255, 0, 0)] * 16] * 20)
    sink.close()
    assert sink.closed
    assert sink.shown == 2
    assert sink.last == tuple(((0, 0, 0),) * 16 for _ in range(20))
    sink.show([[(255, 0, 0)] * 16] * 20)
    assert sink.shown == 2


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ([[(0, 0, 0)] * 16] * 19, "20 rings, got 19"),
        ([[(0, 0, 0)] * 15] + [[(0, 0, 0)] * 16] * 19, "pit 0: expected 16 LEDs, got 15"),
        ([[(0, 0, 256)] * 16] * 20, r"\(0, 0, 256\)"),
        ([[(0, 0)] * 16] * 20, r"\(0, 0\)"),
        ("nope", "nope"),
    ],
)
def test_fake_pixel_sink_checks_frames(frame: object, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        FakePixelSink().show(frame)  # type: ignore[arg-type]


def test_fake_pit_input_keeps_a_bounded_history() -> None:
    """A simulator left running (autoplay for days) must not keep every input for ever."""
    from kiothi_board.clock import FakeClock
    from kiothi_board.hardware.fakes import FakePitInput

    pins = FakePitInput(FakeClock(), keep=100)
    got: list[object] = []
    pins.start(got.append)
    for i in range(1000):
        pins.tap(i % 20)
    assert len(got) == 2000 and len(pins.events) == 100
    assert list(pins.events) == got[-100:]
