"""Debouncing in our layer: pure state machines fed raw levels and times (no clock, no threads).

gpiozero's `MockFactory` does not model bounce and its own `bounce_time` is timer-based and
untestable, so every driver (GPIO, co-processor link) feeds raw level changes here and calls
`advance(now)` when its loop ticks. Given the same stamped inputs the output is identical,
however late `advance` is called — which is what makes the driver testable with a FakeClock.

Per input (`Debouncer`):

- A level becomes the debounced level once the raw level has stayed unchanged for `stable`
  seconds; any raw change restarts that wait, so chatter shorter than `stable` is ignored.
  `pressed`/`released` are stamped with the confirmation time (raw edge + `stable`);
  `released` carries in `seconds` how long the input was active.
- While active, `held` fires at each of `hold_times` (seconds since `pressed`).
- Active for `stuck_time` seconds: `stuck` fires once and the input is masked (no more
  `held`) until it goes inactive, which is reported as `unstuck` instead of `released`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kiothi_board.hardware.protocols import InputEvent

__all__ = ["DebouncedInputs", "Debouncer", "Signal", "SignalKind"]

SignalKind = Literal["pressed", "released", "held", "stuck", "unstuck"]


@dataclass(frozen=True, slots=True)
class Signal:
    """One debounced signal from a single input."""

    kind: SignalKind
    time: float
    seconds: float = 0.0


def _check_times(
    stable: float, hold_times: Sequence[float], stuck_time: float | None
) -> tuple[float, tuple[float, ...], float | None]:
    if not (isinstance(stable, int | float) and stable >= 0):
        raise ValueError(f"debounce stable time must be a number >= 0, got {stable!r}")
    holds = tuple(hold_times)
    if any(not (isinstance(h, int | float) and h > 0) for h in holds):
        raise ValueError(f"hold times must be numbers > 0, got {hold_times!r}")
    if list(holds) != sorted(set(holds)):
        raise ValueError(f"hold times must be strictly increasing, got {hold_times!r}")
    if stuck_time is not None and not (isinstance(stuck_time, int | float) and stuck_time > 0):
        raise ValueError(f"stuck time must be a number > 0 or None, got {stuck_time!r}")
    return float(stable), tuple(float(h) for h in holds), stuck_time


class Debouncer:
    """The debounce / hold / stuck state machine of one input (see the module docstring)."""

    def __init__(
        self,
        *,
        stable: float = 0.02,
        hold_times: Sequence[float] = (),
        stuck_time: float | None = None,
    ) -> None:
        """Start inactive; `stable`, `hold_times` and `stuck_time` are in seconds."""
        self.stable, self.hold_times, self.stuck_time = _check_times(stable, hold_times, stuck_time)
        self.raw = False
        self.active = False
        self.stuck = False
        self._raw_since = float("-inf")
        self._active_since = 0.0
        self._next_hold = 0
        self._now = float("-inf")

    def feed(self, level: bool, t: float) -> list[Signal]:
        """A raw level seen at time `t`; returns the signals due up to `t`.

        Times earlier than one already seen are treated as that time: a driver's threads
        may stamp edges a hair out of order, and time must not run backwards here.
        """
        out = self.advance(t)
        if bool(level) != self.raw:
            self.raw = bool(level)
            self._raw_since = self._now
            # stable == 0 confirms at once
            out.extend(self.advance(self._now))
        return out

    def next_deadline(self) -> float | None:
        """When the next signal could fire if no raw edge comes first (None: never)."""
        return self._deadline()[0]

    def advance(self, t: float) -> list[Signal]:
        """Fire every signal due at or before `t`, in time order."""
        self._now = max(self._now, t)
        out: list[Signal] = []
        while True:
            deadline, what = self._deadline()
            if deadline is None or deadline > self._now:
                return out
            out.append(self._fire(what, deadline))

    def _deadline(self) -> tuple[float | None, str]:
        best: float | None = None
        what = ""
        # Timers before confirmation on ties: the debounced state was still active then.
        if self.active and not self.stuck:
            if self._next_hold < len(self.hold_times):
                best, what = self._active_since + self.hold_times[self._next_hold], "held"
            if self.stuck_time is not None:
                at = self._active_since + self.stuck_time
                if best is None or at < best:
                    best, what = at, "stuck"
        if self.raw != self.active:
            at = self._raw_since + self.stable
            if best is None or at < best:
                best, what = at, "confirm"
        return best, what

    def _fire(self, what: str, at: float) -> Signal:
        if what == "held":
            seconds = self.hold_times[self._next_hold]
            self._next_hold += 1
            return Signal("held", at, seconds)
        if what == "stuck":
            self.stuck = True
            assert self.stuck_time is not None
            return Signal("stuck", at, self.stuck_time)
        self.active = self.raw
        if self.active:
            self._active_since = at
            self._next_hold = 0
            return Signal("pressed", at)
        seconds = at - self._active_since
        if self.stuck:
            self.stuck = False
            return Signal("unstuck", at, seconds)
        return Signal("released", at, seconds)

    def __repr__(self) -> str:
        return (
            f"Debouncer(stable={self.stable!r}, hold_times={self.hold_times!r}, "
            f"stuck_time={self.stuck_time!r})"
        )


class DebouncedInputs:
    """A bank of debouncers for the 20 pits and up to 4 controls, producing `InputEvent`s.

    Slots 0…pits-1 are pits; slots pits… are control buttons 0…3. With `sensor=True` the
    pits are seed sensors: activation reports `dropped`, release and holds report nothing,
    and a blocked sensor still reports `stuck`/`unstuck`. Not thread-safe: the driver
    serialises calls.
    """

    def __init__(
        self,
        pits: int = 20,
        controls: int = 0,
        *,
        stable: float = 0.02,
        hold_times: Sequence[float] = (1.0,),
        stuck_time: float | None = 30.0,
        sensor: bool = False,
        sensor_stable: float | None = None,
    ) -> None:
        """Configure every slot; `sensor_stable` overrides `stable` for seed sensors."""
        if not (0 <= controls <= 4):
            raise ValueError(f"at most 4 control buttons, got {controls!r}")
        self.pits = pits
        self.controls = controls
        self.sensor = sensor
        pit_stable = stable if sensor_stable is None or not sensor else sensor_stable
        self._slots = [
            Debouncer(
                stable=pit_stable,
                hold_times=() if sensor else hold_times,
                stuck_time=stuck_time,
            )
            for _ in range(pits)
        ] + [
            Debouncer(stable=stable, hold_times=hold_times, stuck_time=stuck_time)
            for _ in range(controls)
        ]

    def __len__(self) -> int:
        return len(self._slots)

    def slot(self, index: int) -> Debouncer:
        """The debouncer of one slot."""
        return self._slots[index]

    def feed(self, slot: int, level: bool, t: float) -> list[InputEvent]:
        """A raw level on one slot at time `t`; returns that slot's events due up to `t`."""
        return self._events(slot, self._slots[slot].feed(level, t))

    def advance(self, t: float) -> list[InputEvent]:
        """Every slot's events due at or before `t`, in time order (slot order on ties)."""
        out: list[InputEvent] = []
        for slot, debouncer in enumerate(self._slots):
            out.extend(self._events(slot, debouncer.advance(t)))
        out.sort(key=lambda e: e.time)
        return out

    def _events(self, slot: int, signals: list[Signal]) -> list[InputEvent]:
        out: list[InputEvent] = []
        for s in signals:
            if slot >= self.pits:
                out.append(InputEvent(s.kind, -1, s.time, s.seconds, control=slot - self.pits))
            elif not self.sensor:
                out.append(InputEvent(s.kind, slot, s.time, s.seconds))
            elif s.kind == "pressed":
                out.append(InputEvent("dropped", slot, s.time))
            elif s.kind in ("stuck", "unstuck"):
                out.append(InputEvent(s.kind, slot, s.time, s.seconds))
        return out
