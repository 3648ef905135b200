"""GpioPitInput driven through gpiozero's MockFactory pins."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.errors import ConfigError
from kiothi_board.hardware.gpio import DEFAULT_PIT_PINS, GpioPitInput
from kiothi_board.hardware.protocols import InputEvent, PitInput

PINS = list(DEFAULT_PIT_PINS)
CONTROLS = [18, 14, 15]  # the direct map has no controls; any pins free in it
# GPIO2/3 have fixed pull-ups (only active-low buttons): floating-input tests use 9/10 instead.
FLOATING = [9, 10, *PINS[2:]]


def make(
    mock_factory: Any, clock: FakeClock, **kwargs: Any
) -> tuple[GpioPitInput, list[InputEvent]]:
    kwargs.setdefault("control_pins", CONTROLS)
    pin_list = kwargs.pop("pins", PINS)
    pins = GpioPitInput(pin_list, clock=clock, pin_factory=mock_factory, **kwargs)
    got: list[InputEvent] = []
    pins.start(got.append)
    return pins, got


def test_press_release_through_mock_pins(mock_factory: Any, clock: FakeClock) -> None:
    pins, got = make(mock_factory, clock)
    assert isinstance(pins, PitInput)
    with pins:
        mock_factory.pin(PINS[3]).drive_low()
        clock.advance(0.019)
        pins.poll()
        assert got == []
        clock.advance(0.001)
        pins.poll()
        assert got == [InputEvent("pressed", 3, pytest.approx(100.02))]  # type: ignore[arg-type]
        clock.advance(0.3)
        mock_factory.pin(PINS[3]).drive_high()
        clock.advance(0.05)
        pins.poll()
        assert got[1].kind == "released"
        assert got[1].pit == 3
        assert got[1].seconds == pytest.approx(0.32)  # both edges confirmed 20 ms late


def test_chatter_is_ignored(mock_factory: Any, clock: FakeClock) -> None:
    pins, got = make(mock_factory, clock)
    pin = mock_factory.pin(PINS[12])
    for _ in range(5):
        pin.drive_low()
        clock.advance(0.004)
        pin.drive_high()
        clock.advance(0.004)
    clock.advance(1.0)
    pins.poll()
    assert got == []
    pins.close()


def test_hold_stuck_unstuck_and_controls(mock_factory: Any, clock: FakeClock) -> None:
    pins, got = make(mock_factory, clock, hold_time=(1.0, 3.0), stuck_time=10.0)
    mock_factory.pin(PINS[19]).drive_low()
    mock_factory.pin(CONTROLS[1]).drive_low()
    clock.advance(20.0)
    pins.poll()
    assert [(e.kind, e.pit, e.control, e.seconds) for e in got] == [
        ("pressed", 19, None, 0.0),
        ("pressed", -1, 1, 0.0),
        ("held", 19, None, 1.0),
        ("held", -1, 1, 1.0),
        ("held", 19, None, 3.0),
        ("held", -1, 1, 3.0),
        ("stuck", 19, None, 10.0),
        ("stuck", -1, 1, 10.0),
    ]
    del got[:]
    mock_factory.pin(PINS[19]).drive_high()
    clock.advance(0.02)
    pins.poll()
    assert [(e.kind, e.pit) for e in got] == [("unstuck", 19)]
    pins.close()


def test_seed_sensors_report_drops(mock_factory: Any, clock: FakeClock) -> None:
    pins, got = make(mock_factory, clock, control_pins=(), debounce=0.002, sensor=True)
    pin = mock_factory.pin(PINS[0])
    for _ in range(3):
        pin.drive_low()
        clock.advance(0.01)
        pin.drive_high()
        clock.advance(0.01)
    pins.poll()
    assert [(e.kind, e.pit) for e in got] == [("dropped", 0)] * 3
    pins.close()


def test_active_high_wiring(mock_factory: Any, clock: FakeClock) -> None:
    pins, got = make(mock_factory, clock, control_pins=(), pull_up=False, pins=FLOATING)
    mock_factory.pin(PINS[5]).drive_high()
    clock.advance(0.1)
    pins.poll()
    assert [(e.kind, e.pit) for e in got] == [("pressed", 5)]
    pins.close()


def test_pin_active_at_start_is_debounced(mock_factory: Any, clock: FakeClock) -> None:
    # external pull-ups (pull_up=None): the mock pin keeps the level we drive before start
    for pin in FLOATING:
        mock_factory.pin(pin).drive_high()
    mock_factory.pin(PINS[7]).drive_low()
    pins, got = make(
        mock_factory,
        clock,
        control_pins=(),
        pull_up=None,
        active_state=False,
        stuck_time=5.0,
        pins=FLOATING,
    )
    clock.advance(6.0)
    pins.poll()
    assert [(e.kind, e.pit) for e in got] == [("pressed", 7), ("held", 7), ("stuck", 7)]
    pins.close()


def test_edges_before_start_are_kept(mock_factory: Any, clock: FakeClock) -> None:
    pins = GpioPitInput(PINS, clock=clock, pin_factory=mock_factory)
    mock_factory.pin(PINS[2]).drive_low()
    clock.advance(0.1)
    pins.poll()  # not started: nothing to deliver to, nothing lost
    got: list[InputEvent] = []
    pins.start(got.append)
    pins.poll()
    assert got == [InputEvent("pressed", 2, pytest.approx(100.02))]  # type: ignore[arg-type]
    pins.close()


def test_close_releases_pins_and_is_idempotent(mock_factory: Any, clock: FakeClock) -> None:
    pins, got = make(mock_factory, clock)
    pins.close()
    pins.close()
    assert pins.closed
    mock_factory.pin(PINS[0]).drive_low()
    clock.advance(1)
    pins.poll()
    assert got == []
    # the same pins can be claimed again
    again, _ = make(mock_factory, clock)
    again.close()


def test_notify_and_events_from_other_threads(mock_factory: Any, clock: FakeClock) -> None:
    woken = threading.Semaphore(0)
    pins, got = make(mock_factory, clock, control_pins=(), notify=woken.release)

    def press_some(first: int) -> None:
        for pit in range(first, PITS_TOTAL, 4):
            mock_factory.pin(PINS[pit]).drive_low()

    threads = [threading.Thread(target=press_some, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert all(woken.acquire(timeout=30) for _ in range(PITS_TOTAL))
    clock.advance(0.05)
    pins.poll()
    assert sorted(e.pit for e in got) == list(range(PITS_TOTAL))
    assert {e.kind for e in got} == {"pressed"}
    pins.close()


PITS_TOTAL = 20


@pytest.mark.parametrize(
    ("pins", "controls", "message"),
    [
        (PINS[:19], (), "exactly 20 pit pins, got 19"),
        (PINS, (2, 3, 27, 14, 15), "at most 4 control pins"),
        (PINS, (4,), "pin 4 is used twice"),
        ([*PINS[:19], "GPIO99"], (), "GPIO99"),
        ([*PINS[:19], True], (), "True"),
    ],
)
def test_bad_pin_lists(
    mock_factory: Any, clock: FakeClock, pins: list[Any], controls: tuple[int, ...], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        GpioPitInput(pins, control_pins=controls, clock=clock, pin_factory=mock_factory)
    # a failed construction released what it had claimed
    GpioPitInput(PINS, clock=clock, pin_factory=mock_factory).close()


def test_bad_timing_is_a_config_error(mock_factory: Any, clock: FakeClock) -> None:
    with pytest.raises(ConfigError, match=r"\(2.0, 1.0\)"):
        GpioPitInput(PINS, clock=clock, pin_factory=mock_factory, hold_time=(2.0, 1.0))


def test_default_pin_factory_is_used(mock_factory: Any) -> None:
    with GpioPitInput(PINS, clock=FakeClock()) as pins:
        assert "GpioPitInput([2, 3, 4, 17" in repr(pins)
