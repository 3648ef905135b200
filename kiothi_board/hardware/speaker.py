"""The speaker: a worker thread in front of a voice output, so that speech never blocks the
board loop.

The loop hands it an `Utterance` (one or more sentences, each in its language) and goes on at
once. One utterance waits at most: a newer one replaces an older one not yet begun (the board
moved on; the old line is stale), and `interrupt()` (a press) cuts what is being said and
drops what waits. The worker is the only caller of the output's `speak`, so two sentences are
never said at once.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from kiothi_board.hardware.protocols import VoiceOutput
from kiothi_board.i18n import render

__all__ = ["Speaker", "Utterance"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Utterance:
    """What to say: sentences as (language, text), said one after the other. A text that is
    a catalog `Msg` is rendered in its language by the worker, off the board loop."""

    parts: tuple[tuple[str, str], ...]

    @classmethod
    def one(cls, lang: str, text: str) -> Utterance:
        """A single sentence."""
        return cls(((lang, text),))


class Speaker:
    """The worker (see the module docstring); `close()` stops it."""

    def __init__(self, output: VoiceOutput) -> None:
        """Start the worker thread in front of `output` (which this speaker then owns)."""
        self.output = output
        self._cond = threading.Condition()
        self._waiting: Utterance | None = None
        self._busy = False
        self._closed = False
        self._gen = 0  # bumped by interrupt: the sentences of an older utterance stop
        self.spoken = 0  # sentences handed to the output
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
        self._thread.start()

    def say(self, utterance: Utterance) -> None:
        """Queue `utterance` in place of any that has not begun; returns at once."""
        with self._cond:
            self._waiting = utterance
            self._cond.notify_all()

    def interrupt(self) -> None:
        """Cut what is being said and drop what waits (a press: the visitor acts)."""
        with self._cond:
            self._waiting = None
            self._gen += 1
            busy = self._busy
        if busy:
            self.output.stop()

    def idle(self, timeout: float = 10.0) -> bool:
        """Wait until nothing is said or waiting (tests, the CLI); whether it got there."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and self._waiting is None, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._waiting is not None or self._closed)
                if self._closed:
                    return
                utterance, self._waiting = self._waiting, None
                self._busy, gen = True, self._gen
            try:
                self._speak(utterance, gen)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _speak(self, utterance: Utterance | None, gen: int) -> None:
        for lang, text in utterance.parts if utterance else ():
            with self._cond:
                if gen != self._gen or self._closed or self._waiting is not None:
                    return  # interrupted, or a newer line replaces the rest of this one
                self.spoken += 1
            try:
                self.output.speak(str(render(text, lang)), lang)
            except Exception:  # a broken voice must never stop the board
                log.exception("voice: could not say %r (%s)", text[:60], lang)

    def close(self) -> None:
        """Stop the worker and the output; idempotent."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._waiting = None
            self._cond.notify_all()
        self.output.stop()
        self._thread.join(timeout=5.0)
        self.output.close()

    def __enter__(self) -> Speaker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
