"""The pure debounce / hold / stuck state machines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kiothi_board.clock import FakeClock
from kiothi_board.hardware.debounce import DebouncedInputs, Debouncer, Signal
from kiothi_board.hardware.protocols import InputEvent


def test_press_and_release_after_stable_time() -> None:
    d = Debouncer(stable=0.02)
    assert d.feed(True, 1.0) == []
    assert d.advance(1.019) == []
    assert d.advance(1.02) == [Signal("pressed", 1.02)]
    assert d.feed(False, 1.5) == []
    assert d.advance(2.0) == [Signal("released", 1.52, pytest.approx(0.5))]  # type: ignore[arg-type]


def test_chatter_is_filtered() -> None:
    d = Debouncer(stable=0.02)
    out: list[Signal] = []
    clock = FakeClock(0.0)
    for level in [True, False, True, False, True]:
        out += d.feed(level, clock.now())
        clock.advance(0.005)
    # last raw edge at 0.02, stable from then on
    out += d.advance(0.039)
    assert out == []
    assert d.advance(0.04) == [Signal("pressed", 0.04)]
    # a short dropout while pressed does not release
    assert d.feed(False, 0.1) == []
    assert d.feed(True, 0.11) == []
    assert d.advance(5.0) == []
    assert d.active


def test_holds_fire_at_each_threshold() -> None:
    d = Debouncer(stable=0.0, hold_times=(0.5, 2.0))
    assert d.feed(True, 10.0) == [Signal("pressed", 10.0)]
    assert d.advance(10.4) == []
    assert d.advance(12.5) == [Signal("held", 10.5, 0.5), Signal("held", 12.0, 2.0)]
    assert d.advance(20.0) == []
    assert d.feed(False, 20.0) == [Signal("released", 20.0, 10.0)]
    # thresholds re-arm for the next press
    d.feed(True, 30.0)
    assert [s.kind for s in d.advance(30.5)] == ["held"]


def test_release_before_hold_suppresses_it() -> None:
    d = Debouncer(stable=0.02, hold_times=(1.0,))
    out = d.feed(True, 0.0) + d.feed(False, 0.5) + d.advance(3.0)
    assert [s.kind for s in out] == ["pressed", "released"]


def test_stuck_masks_until_cleared() -> None:
    d = Debouncer(stable=0.02, hold_times=(1.0, 60.0), stuck_time=30.0)
    d.feed(True, 0.0)
    out = d.advance(100.0)
    assert out == [Signal("pressed", 0.02), Signal("held", 1.02, 1.0), Signal("stuck", 30.02, 30.0)]
    assert d.stuck
    assert d.advance(1000.0) == []
    d.feed(False, 1000.0)
    assert d.advance(1000.02) == [Signal("unstuck", 1000.02, pytest.approx(1000.0))]  # type: ignore[arg-type]
    assert not d.stuck
    d.feed(True, 2000.0)
    assert [s.kind for s in d.advance(2000.02)] == ["pressed"]


def test_next_deadline() -> None:
    d = Debouncer(stable=0.02, hold_times=(1.0,), stuck_time=5.0)
    assert d.next_deadline() is None
    d.feed(True, 0.0)
    assert d.next_deadline() == 0.02
    d.advance(0.02)
    assert d.next_deadline() == 1.02


def test_out_of_order_time_is_clamped() -> None:
    d = Debouncer(stable=0.02)
    d.advance(5.0)
    d.feed(True, 4.0)
    assert d.advance(5.02) == [Signal("pressed", 5.02)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"stable": -1}, "-1"),
        ({"hold_times": (2.0, 1.0)}, r"\(2.0, 1.0\)"),
        ({"hold_times": (0,)}, r"\(0,\)"),
        ({"stuck_time": 0}, "0"),
    ],
)
def test_bad_configuration_is_quoted(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Debouncer(**kwargs)  # type: ignore[arg-type]


edges = st.lists(
    st.tuples(st.floats(0.0, 0.2, allow_nan=False), st.booleans()), min_size=1, max_size=30
)


@given(edges, st.lists(st.floats(0.0, 10.0, allow_nan=False), max_size=10))
def test_output_does_not_depend_on_when_advance_is_called(
    seq: list[tuple[float, bool]], ticks: list[float]
) -> None:
    def run(tick_times: list[float]) -> list[Signal]:
        d = Debouncer(stable=0.02, hold_times=(0.1, 0.3), stuck_time=1.0)
        out: list[Signal] = []
        t = 0.0
        pending = sorted(tick_times)
        for gap, level in seq:
            t += gap
            while pending and pending[0] < t:
                out += d.advance(pending.pop(0))
            out += d.feed(level, t)
        out += d.advance(t + 5.0)
        return out

    once = run([])
    assert run(ticks) == once
    kinds = [s.kind for s in once if s.kind in ("pressed", "released", "unstuck")]
    # pressed alternates with released/unstuck, starting with pressed
    assert all(k == "pressed" for k in kinds[0::2])
    assert all(k in ("released", "unstuck") for k in kinds[1::2])
    assert [s.time for s in once] == sorted(s.time for s in once)


@given(st.lists(st.floats(0.0, 0.0199, allow_nan=False), min_size=1, max_size=20))
def test_pulses_shorter_than_stable_never_press(gaps: list[float]) -> None:
    d = Debouncer(stable=0.02)
    t, out, level = 0.0, [], True
    for gap in gaps:
        out += d.feed(level, t)
        t += gap
        level = not level
    out += d.feed(False, t)
    out += d.advance(t + 10)
    assert out == []


def test_bank_maps_pits_controls_and_sensors() -> None:
    bank = DebouncedInputs(20, 2, stable=0.01, hold_times=(1.0,), stuck_time=None)
    assert len(bank) == 22
    bank.feed(21, True, 0.0)
    bank.feed(3, True, 0.005)
    assert bank.advance(2.0) == [
        InputEvent("pressed", -1, 0.01, control=1),
        InputEvent("pressed", 3, 0.015),
        InputEvent("held", -1, 1.01, 1.0, control=1),
        InputEvent("held", 3, 1.015, 1.0),
    ]
    sensors = DebouncedInputs(20, 1, stable=0.02, sensor=True, sensor_stable=0.002, stuck_time=5)
    out = sensors.feed(7, True, 0.0) + sensors.feed(7, False, 0.01)
    out += sensors.feed(19, True, 1.0) + sensors.feed(20, True, 1.0)
    out += sensors.advance(10.0)
    assert out == [
        InputEvent("dropped", 7, 0.002),
        InputEvent("dropped", 19, 1.002),
        InputEvent("pressed", -1, 1.02, control=0),
        InputEvent("held", -1, 2.02, 1.0, control=0),
        InputEvent("stuck", 19, 6.002, 5.0),
        InputEvent("stuck", -1, 6.02, 5.0, control=0),
    ]
    with pytest.raises(ValueError, match="5"):
        DebouncedInputs(20, 5)
