"""The board loop: one queue of inputs, one thread that owns the game.

Every input enters one queue: pit and control events (GPIO, the co-processor, the
simulator's keys, a press from the page or the API), the co-processor link's state, and
calls (the API's commands and queries, fake time). The inputs that must be polled (the
pins' debouncers) are the loop's `sources`: at the top of each turn it polls them, and what
they find is queued like every other input, on the loop's own thread too. Then it takes
what is queued, one at a time, and walks each through the parts once, in this order
(docs/architecture.md, "One press"):

    attendant decides -> controller handles -> attendant observes -> frame composed
    -> sink shows -> voice hears -> one store transaction -> API publishes

and at `tick_hz` it does the same for the clock's tick. The controller and the director
return what they did and call nobody; only this loop calls the sink, the journal and the
listeners. Threads outside the loop put inputs on the queue (and wait for a call's
answer), read `shown`, the frame of the moment, and read the store (thread-safe, off the
loop so that a long query never holds up the rings); all else is read through `ask`.

Run by nobody (a test, a tool), the caller's thread takes the queue's turn itself, one
caller at a time: an input or a call is queued, then the queue is drained on that thread
(`tick()` polls the sources first). An input queued by the thread that is taking the queue
(a hook, a source) waits its turn in the queue; nothing is ever taken inside another step.

The store transaction comes after the rings change and before anyone is told: a press
lights the next step without waiting for an fsync, and no client ever hears of a step
that is not on disk. A power cut between the two costs that one step: on restart the
guide asks for the same seed again (board check, S1+S10, sets a miscount right).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from kiothi_board.board.api_events import api_events, frame_event
from kiothi_board.board.speech import Voice
from kiothi_board.clock import Clock
from kiothi_board.controller import Controller, Step
from kiothi_board.controller.notices import Notice, SettingsChanged
from kiothi_board.errors import KiothiError, StoreError
from kiothi_board.exhibit.attendant import (
    AbandonGame,
    Action,
    Forward,
    OfferHint,
    ResetDone,
    StartGame,
)
from kiothi_board.exhibit.director import Director
from kiothi_board.exhibit.health import RateMeter
from kiothi_board.frame import Frame
from kiothi_board.hardware.link_types import LinkChange
from kiothi_board.hardware.protocols import InputEvent, PixelSink
from kiothi_board.listeners import Listeners

__all__ = ["BoardLoop"]

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Call:
    """Run `fn` on the loop; its answer (a Step's result, or a value) goes to `future`."""

    fn: Callable[[], Any]
    future: Future[Any]


class _Stop:
    """Wakes the loop to see that it is stopping."""


_STOP = _Stop()
Item = InputEvent | LinkChange | _Call | _Stop


class BoardLoop:
    """See the module docstring."""

    def __init__(
        self,
        controller: Controller,
        *,
        sink: PixelSink,
        clock: Clock,
        director: Director | None = None,
        tick_hz: float = 50.0,
        ticking: bool = True,
        store_log_seconds: float = 60.0,
        voice: Voice | None = None,
    ) -> None:
        """Own `controller` (and `director`, the exhibition); draw into `sink`; speak with
        `voice` (none: a silent one, still walked).

        `ticking` False: the clock only moves by a call (fake time), so the loop never
        ticks by itself.
        """
        self.controller = controller
        self.director = director
        self.sink = sink
        self.voice = voice or Voice.silent()
        self.clock = clock
        self.journal = controller.journal
        self.period = 1.0 / tick_hz
        self.ticking = ticking
        self.listeners: Listeners[dict[str, Any]] = Listeners("the API events")
        self.notice_listeners: Listeners[Notice] = Listeners("the board's notices")
        self.sources: list[Callable[[], None]] = []  # polled at the top of each turn
        self.on_tick: list[Callable[[], None]] = []  # run after each tick, on the loop
        self.frames = RateMeter()
        self.ticks = RateMeter()
        self.stopping = False
        self._queue: queue.SimpleQueue[Item] = queue.SimpleQueue()
        self._owner: int | None = None  # the thread taking the queue now
        self._running = False  # run() owns the queue (else callers take turns)
        self._turns = threading.Lock()  # one caller at a time, when nobody runs the loop
        self._thread: threading.Thread | None = None
        self._store_log_seconds = store_log_seconds
        self._store_logged = -store_log_seconds
        self._sunk: Frame | None = None
        self._game_frame = controller.frame  # the game's frame, as its last step drew it
        self.shown: Frame = self._game_frame  # what the rings show (the page's snapshot)
        self._finish(Step())

    # ------------------------------------------------------------------ inputs
    def feed(self, event: InputEvent) -> None:
        """An input event from any thread (the pit input's handler): queued."""
        self._submit(event)

    def link_changed(self, change: LinkChange) -> None:
        """The co-processor link's state changed (its listener, on the link's thread)."""
        self._submit(change)

    def call(self, fn: Callable[[], Step | None]) -> Any:
        """Run `fn` (a command of the controller's) on the loop, finish the Step it returns
        and return the step's result; what `fn` raises is raised here, after the step."""
        future: Future[Any] = Future()
        self._submit(_Call(fn, future), future)
        return future.result()

    def ask(self, fn: Callable[[], T]) -> T:
        """Run `fn` (a query) on the loop and return what it returns."""
        future: Future[T] = Future()
        self._submit(_Call(fn, future), future)
        return future.result()

    def _submit(self, item: Item, future: Future[Any] | None = None) -> None:
        """Queue `item`. The loop's own thread takes a call it waits for (and what was queued
        before it) now; nobody running the loop, the caller takes the queue's turn."""
        self._queue.put(item)
        if threading.get_ident() == self._owner:
            if future is not None:  # a hook or fake time waits for its call
                self._take(future)
        elif not self._running:
            self._turn(lambda: self._take(future))

    def _turn(self, fn: Callable[[], None]) -> None:
        """Run `fn` as the thread that takes the queue (nobody runs the loop)."""
        with self._turns:
            self._owner = threading.get_ident()
            try:
                fn()
            finally:
                self._owner = None

    def _poll(self) -> None:
        for poll in self.sources:
            poll()

    def _take(self, until: Future[Any] | None = None, limit: int = 256) -> None:
        """Take what is queued: at most `limit` items (the running loop ticks between), or
        with `until` every item up to that call's, however many are before it."""
        taken = 0
        while until is not None or taken < limit:
            if until is not None and until.done():
                return
            taken += 1
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            self._process(item)

    def _process(self, item: Item) -> None:
        if isinstance(item, InputEvent):
            self._input(item)
        elif isinstance(item, LinkChange):
            if item.state == "down" and self.director is not None:
                self.director.link_down()
                self._finish(Step())
        elif isinstance(item, _Call):
            self._call(item)

    def _call(self, call: _Call) -> None:
        if not call.future.set_running_or_notify_cancel():
            return
        try:
            got = call.fn()
        except BaseException as exc:
            self._finish(self.controller.take())  # what happened before the error stands
            call.future.set_exception(exc)
            return
        if isinstance(got, Step):
            self._finish(got)
            call.future.set_result(got.result)
        else:
            call.future.set_result(got)

    # ------------------------------------------------------------------ one step
    def _input(self, event: InputEvent) -> None:
        actions = self.director.decide(event) if self.director else [Forward(event)]
        self._finish(Step.joined(self._act(a) for a in actions))

    def tick(self) -> None:
        """One turn with a tick of the clock: the sources polled, what is queued taken, then
        the controller's timers and the attendant's (what the running loop does `tick_hz`
        times a second)."""
        if threading.get_ident() == self._owner:
            self._ticked()
        elif self._running:
            self.ask(self._ticked)
        else:
            self._turn(self._ticked)

    def _ticked(self) -> None:
        self._poll()
        self._take()
        self._tick()
        self._take()  # what the hooks queued

    def _tick(self) -> None:
        self.ticks.mark(self.clock.now())
        step = self.controller.tick()
        if self.director is not None:
            human = self.controller.glance().human_to_move
            acted = [self._act(a) for a in self.director.tick(human)]
            step = Step.joined([step, *acted])
        self._finish(step)
        for hook in self.on_tick:
            hook()

    def _act(self, action: Action) -> Step:
        """Carry out one of the attendant's actions on the controller."""
        c = self.controller
        try:
            if isinstance(action, Forward):
                return c.handle(action.event)
            if isinstance(action, StartGame):
                c.language_default()  # a new visitor: the venue's own language again
                return c.new_game(action.mode, action.side, action.level, action.pace,
                                  action.variant, long_move_laps=action.long_move_laps)  # fmt: skip
            if isinstance(action, AbandonGame):
                return c.run("abandon")
            if isinstance(action, OfferHint):
                return c.run("hint", "offer")
            assert isinstance(action, ResetDone)
            c.language_default()  # set for the next visitor: the venue's language again
            return c.take()
        except KiothiError as exc:
            log.info("exhibit: %s failed: %s", type(action).__name__, exc)
            return c.take()

    def _finish(self, step: Step) -> None:
        """After the controller: observe, compose, show, speak, write, publish."""
        if step.frame is not None:
            self._game_frame = step.frame
        director = self.director
        counts: dict[str, dict[str, int]] = {}
        if director is not None:
            director.observe(step.notices)
            counts = director.take_counts()
            frame, level = director.compose(self._game_frame)
        else:
            frame, level = self._game_frame, 1.0
        self._settings(step)
        out = frame.dim(level)
        if out != self._sunk:
            self.sink.show(out)
            self._sunk = out
            self.frames.mark(self.clock.now())
        self.voice.hear(step.notices, director)  # hands sentences to its worker: no wait
        self._write(counts)
        self._publish(step, frame)

    def _settings(self, step: Step) -> None:
        for notice in step.notices:
            if isinstance(notice, SettingsChanged):
                brightness = notice.settings.get("brightness")
                if isinstance(brightness, int | float) and not isinstance(brightness, bool):
                    self.sink.set_brightness(float(brightness))  # every PixelSink has it

    def _write(self, counts: dict[str, dict[str, int]]) -> None:
        for day, day_counts in counts.items():
            self.journal.add_counts(day, day_counts)
        try:
            self.journal.commit()
        except StoreError as exc:  # kept for the next step; the board plays on
            now = self.clock.now()
            if now - self._store_logged >= self._store_log_seconds:
                self._store_logged = now
                log.error("game store: this step is not written yet (kept, retried): %s", exc)
        except KiothiError as exc:
            log.error("game store refused a step's writes (dropped): %s", exc)

    def _publish(self, step: Step, frame: Frame) -> None:
        events = [e for n in step.notices for e in api_events(n)] if self.listeners else []
        if frame != self.shown:
            self.shown = frame
            if self.listeners:
                events.append(frame_event(frame))
        for notice in step.notices:
            self.notice_listeners.emit(notice)
        for event in events:
            self.listeners.emit(event)

    # ------------------------------------------------------------------ running
    def run(self) -> None:
        """Take inputs and tick until `stop()` (on the calling thread, which owns the game
        from now on). A signal handler may call `stop()`: it only sets a flag and puts a
        wake-up on a queue made for that."""
        self._own()
        clock, period = self.clock, self.period
        next_tick = clock.now()
        try:
            while not self.stopping:
                wait = max(0.0, next_tick - clock.now()) if self.ticking else period
                try:
                    item: Item | None = self._queue.get(timeout=wait)
                except queue.Empty:
                    item = None
                self._poll()  # the top of the turn: what the sources found is queued
                if item is not None:
                    self._process(item)
                self._take()
                now = clock.now()
                if self.ticking and now >= next_tick:
                    self._tick()
                    next_tick = max(next_tick + period, now)  # late: no burst to catch up
        finally:
            self._owner, self._running = None, False
            self._refuse_queued()

    def _own(self) -> None:
        """This thread runs the loop from now on (after a caller's turn, if one is taken)."""
        with self._turns:
            self._owner, self._running = threading.get_ident(), True

    def _refuse_queued(self) -> None:
        """Answer what was queued when the loop stopped: calls fail, inputs are dropped."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, _Call) and item.future.set_running_or_notify_cancel():
                item.future.set_exception(KiothiError("the board is stopping"))

    def start(self) -> BoardLoop:
        """Run the loop on a thread of its own (tests, tools); `close()` stops it."""
        if self._thread is None:
            started = threading.Event()

            def run() -> None:
                self._own()
                started.set()
                self.run()

            self._thread = threading.Thread(target=run, name="board-loop", daemon=True)
            self._thread.start()
            started.wait()
        return self

    def stop(self, *_: object) -> None:
        """Ask the loop to end soon; safe from a signal handler and from any thread."""
        self.stopping = True
        self._queue.put(_STOP)  # SimpleQueue.put is reentrant: a handler may call it

    def close(self) -> None:
        """Stop the loop (and its thread), cancel any search. Idempotent."""
        self.stop()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10.0)
        if threading.get_ident() == self._owner:
            self.controller.close()
        else:
            with self._turns:
                self.controller.close()
        self.voice.close()
