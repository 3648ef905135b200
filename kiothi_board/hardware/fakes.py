"""Fakes that ship in the package: a scripted pit input and a recording pixel sink.

They serve tests (the controller's among them) and the `--sim` mode, so they check their
input as strictly as the real drivers do.
"""

from __future__ import annotations

import threading
from collections import deque

from kiothi_board.clock import Clock
from kiothi_board.hardware.frames import PITS, NormalFrame, black_frame, normalize_frame
from kiothi_board.hardware.protocols import EventHandler, EventKind, Frame, InputEvent

__all__ = ["CONTROLS", "FakePitInput", "FakePixelSink"]

CONTROLS = 4
"""Control buttons a board may have (numbered 0…3)."""

_KINDS: frozenset[str] = frozenset(("pressed", "released", "held", "dropped", "stuck", "unstuck"))


class FakePitInput:
    """A `PitInput` whose events are injected by hand, already debounced, stamped `clock.now()`.

    Events injected before `start()` are queued and delivered, in order, on start. Events
    injected after `close()` are dropped, as a released pin would drop them. Every delivered
    event is also kept in `.events` (the last `keep` of them).
    """

    def __init__(self, clock: Clock, keep: int = 10_000) -> None:
        """Stamp events with `clock`; `.events` keeps the last `keep` (a sim runs for days)."""
        self._clock = clock
        self._lock = threading.RLock()
        self._handler: EventHandler | None = None
        self._pending: list[InputEvent] = []
        self.events: deque[InputEvent] = deque(maxlen=keep)
        self.closed = False
        self.polls = 0

    # -- PitInput ---------------------------------------------------------------------------

    def start(self, handler: EventHandler) -> None:
        """Begin delivering events to `handler`, first any queued before start."""
        with self._lock:
            if self.closed:
                raise RuntimeError("FakePitInput.start() after close()")
            if self._handler is not None:
                raise RuntimeError("FakePitInput.start() called twice")
            self._handler = handler
            pending, self._pending = self._pending, []
            for event in pending:
                self._deliver(event)

    def poll(self) -> None:
        """Nothing is time-based here (events arrive debounced); counts calls for tests."""
        self.polls += 1

    def close(self) -> None:
        """Stop delivering events; idempotent."""
        with self._lock:
            self.closed = True
            self._pending.clear()

    def __enter__(self) -> FakePitInput:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- injection helpers ------------------------------------------------------------------

    def emit(self, event: InputEvent) -> None:
        """Deliver (or queue, before start) an arbitrary event."""
        with self._lock:
            if self.closed:
                return
            if self._handler is None:
                self._pending.append(event)
            else:
                self._deliver(event)

    def press(self, pit: int) -> None:
        """The pit's button went active."""
        self._pit_event("pressed", pit)

    def release(self, pit: int) -> None:
        """The pit's button went inactive."""
        self._pit_event("released", pit)

    def tap(self, pit: int) -> None:
        """A short press: pressed then released."""
        self.press(pit)
        self.release(pit)

    def hold(self, pit: int, seconds: float, *, release: bool = True) -> None:
        """A long press: pressed, held for `seconds`, then released (unless `release=False`)."""
        if seconds <= 0:
            raise ValueError(f"hold seconds must be > 0, got {seconds!r}")
        self.press(pit)
        self._pit_event("held", pit, seconds)
        if release:
            self.release(pit)

    def chord(self, first: int, second: int, seconds: float) -> None:
        """Two pits held together for `seconds` (a chord), then both released."""
        if seconds <= 0:
            raise ValueError(f"hold seconds must be > 0, got {seconds!r}")
        self.press(first)
        self.press(second)
        self._pit_event("held", second, seconds)
        self.release(second)
        self.release(first)

    def drop(self, pit: int) -> None:
        """A seed sensor saw a seed fall into the pit."""
        self._pit_event("dropped", pit)

    def stuck(self, pit: int, seconds: float = 0.0) -> None:
        """The pit's input has been active too long and is masked."""
        self._pit_event("stuck", pit, seconds)

    def unstuck(self, pit: int) -> None:
        """A stuck input cleared."""
        self._pit_event("unstuck", pit)

    def control(self, index: int, kind: EventKind = "pressed", seconds: float = 0.0) -> None:
        """An event from control button `index` (0…3), reported with pit -1."""
        if not (isinstance(index, int) and 0 <= index < CONTROLS):
            raise ValueError(f"control index must be 0…{CONTROLS - 1}, got {index!r}")
        if kind not in _KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        self.emit(InputEvent(kind, -1, self._clock.now(), seconds, control=index))

    # -- internals --------------------------------------------------------------------------

    def _pit_event(self, kind: EventKind, pit: int, seconds: float = 0.0) -> None:
        if not (isinstance(pit, int) and not isinstance(pit, bool) and 0 <= pit < PITS):
            raise ValueError(f"pit index must be 0…{PITS - 1}, got {pit!r}")
        self.emit(InputEvent(kind, pit, self._clock.now(), seconds))

    def _deliver(self, event: InputEvent) -> None:
        assert self._handler is not None
        self.events.append(event)
        self._handler(event)

    def __repr__(self) -> str:
        return f"FakePitInput({self._clock!r})"


class FakePixelSink:
    """A `PixelSink` that records (checked, immutable copies of) the frames it is shown."""

    def __init__(self, leds_per_ring: int = 16, keep: int = 1000) -> None:
        """Record up to `keep` most recent frames of `leds_per_ring` LEDs per ring."""
        if not (isinstance(leds_per_ring, int) and leds_per_ring > 0):
            raise ValueError(f"leds_per_ring must be a positive int, got {leds_per_ring!r}")
        if not (isinstance(keep, int) and keep > 0):
            raise ValueError(f"keep must be a positive int, got {keep!r}")
        self._leds = leds_per_ring
        self._lock = threading.Lock()
        self.frames: deque[NormalFrame] = deque(maxlen=keep)
        self.shown = 0
        self.closed = False
        self.brightness: float | None = None
        """The last brightness set (None: never set): frames are recorded as given."""

    @property
    def leds_per_ring(self) -> int:
        """LEDs in each ring."""
        return self._leds

    @property
    def last(self) -> NormalFrame | None:
        """The most recent frame shown, or None."""
        with self._lock:
            return self.frames[-1] if self.frames else None

    def history(self) -> list[NormalFrame]:
        """The frames recorded so far, oldest first (a copy, safe while others show)."""
        with self._lock:
            return list(self.frames)

    def show(self, frame: Frame) -> None:
        """Record a frame; ignored once closed, so a late render cannot relight a dark board."""
        checked = normalize_frame(frame, self._leds)
        with self._lock:
            if self.closed:
                return
            self._record(checked)

    def set_brightness(self, value: float) -> None:
        """Record the brightness asked for (0…1; ValueError otherwise)."""
        if not (isinstance(value, int | float) and 0.0 <= value <= 1.0):
            raise ValueError(f"brightness must be in [0, 1], got {value!r}")
        with self._lock:
            self.brightness = float(value)

    def close(self) -> None:
        """Show one all-black frame and stop; idempotent."""
        with self._lock:
            if self.closed:
                return
            self._record(black_frame(self._leds))
            self.closed = True

    def __enter__(self) -> FakePixelSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _record(self, frame: NormalFrame) -> None:
        self.frames.append(frame)
        self.shown += 1

    def __repr__(self) -> str:
        return f"FakePixelSink(leds_per_ring={self._leds!r}, keep={self.frames.maxlen!r})"
