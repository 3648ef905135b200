"""The exhibition's attendant: who is at the board, and what it should do next (L3, pure).

A state machine fed with input events, game events and time; it returns actions for the
caller (the exhibit director) to carry out. Every phase leaves by input or by time, so
the board can never be stuck:

    closed    --opening time-->                 attract   (or reset, if one is pending)
    attract   --press-->                        waking
    attract   --closing time-->                 closed
    waking    --press on the other side-->      StartGame(two)      -> playing
    waking    --two_player_window passes-->     StartGame(ai, side) -> playing
    playing   --no input for hint_after-->      OfferHint (once per pause)
    playing   --no input for idle_after-->      countdown
    countdown --press-->                        playing (the press is taken, not played)
    countdown --countdown_seconds pass-->       AbandonGame -> reset
    playing   --game over, over_seconds pass--> reset (the result shows; input does nothing)
    reset     --confirm gesture (or sensors)--> attract (or closed)

At start-up with no game to resume the attendant asks for a reset: after a power cut
nobody knows where the seeds lie.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.hardware.protocols import InputEvent

__all__ = [
    "AbandonGame",
    "Action",
    "Attendant",
    "Forward",
    "OfferHint",
    "Phase",
    "ResetDone",
    "StartGame",
    "Timing",
]

Phase = Literal["closed", "attract", "waking", "playing", "countdown", "reset"]
FIRST_LEVEL = LevelChoice(1)


@dataclass(frozen=True, slots=True)
class StartGame:
    """Start a game: `mode` "ai" (the visitor plays `side`) or "two"; the director fills
    in the venue's level, pace and rules."""

    mode: Literal["ai", "two"]
    side: str = "S"
    level: LevelChoice = FIRST_LEVEL
    pace: str = "step"
    variant: str = ""
    long_move_laps: int = 30


@dataclass(frozen=True, slots=True)
class AbandonGame:
    """Store the current game as abandoned (RULES.md R13)."""


@dataclass(frozen=True, slots=True)
class OfferHint:
    """Show the visitor a suggested move."""


@dataclass(frozen=True, slots=True)
class Forward:
    """Pass this input event to the game controller."""

    event: InputEvent


@dataclass(frozen=True, slots=True)
class ResetDone:
    """The board was confirmed back at the start position."""


Action = StartGame | AbandonGame | OfferHint | Forward | ResetDone


@dataclass(frozen=True, slots=True)
class Timing:
    """The attendant's times, in seconds (from the `[exhibit]` config)."""

    idle_after: float = 90.0
    countdown: float = 20.0
    hint_after: float = 40.0
    two_player_window: float = 3.0
    over_seconds: float = 10.0
    confirm_hold: float = 1.0


class Attendant:
    """See the module docstring. Feed `on_input`, `on_game_*` and `tick`; act on the result."""

    def __init__(self, timing: Timing, now: float, *, playing: bool, is_open: bool = True) -> None:
        """Start in `playing` (a game was resumed) or else `reset`."""
        self.timing = timing
        self.phase: Phase = "playing" if playing else "reset"
        self.since = now
        self._last_input = now
        self._hinted = False
        self._first_side: str | None = None
        self._over_at: float | None = None
        self._open = is_open

    # ------------------------------------------------------------------ queries
    def countdown_left(self, now: float) -> float | None:
        """Seconds until an idle game is abandoned (None unless counting down)."""
        if self.phase != "countdown":
            return None
        return max(0.0, self.timing.countdown - (now - self.since))

    @property
    def showing_result(self) -> bool:
        """Whether a finished game's result shows (for `over_seconds`, before the reset)."""
        return self.phase == "playing" and self._over_at is not None

    def _enter(self, phase: Phase, now: float) -> None:
        self.phase = phase
        self.since = now

    # ------------------------------------------------------------------ inputs
    def on_input(self, event: InputEvent, now: float) -> list[Action]:
        """An input event from the board; returns what to do with it."""
        if self.showing_result:
            return []  # a hold here would start a game nobody plays: the reset comes first
        if self.phase in ("playing", "countdown"):
            self._last_input = now
            self._hinted = False
            if self.phase == "countdown":
                if event.kind == "pressed":
                    self._enter("playing", now)  # welcome back; this press is not a move
                return []
            return [Forward(event)]
        if event.control is not None or not 0 <= event.pit < 20:
            return []
        side = "S" if event.pit < 10 else "N"
        if self.phase == "attract" and event.kind == "pressed":
            self._first_side = side
            self._enter("waking", now)
        elif self.phase == "waking" and event.kind == "pressed" and side != self._first_side:
            return self._start(StartGame("two"), now)
        elif (
            self.phase == "reset"
            and event.kind == "held"
            and event.seconds >= self.timing.confirm_hold
        ):
            return self._reset_done(now)
        return []

    def on_sensors_confirm(self, now: float) -> list[Action]:
        """Seed sensors report the start position: the reset confirms itself."""
        return self._reset_done(now) if self.phase == "reset" else []

    def _reset_done(self, now: float) -> list[Action]:
        self._enter("attract" if self._open else "closed", now)
        return [ResetDone()]

    def _start(self, action: StartGame, now: float) -> list[Action]:
        self._enter("playing", now)
        self._last_input = now
        self._hinted = False
        self._over_at = None
        return [action]

    # ------------------------------------------------------------------ game events
    def on_game_started(self, now: float) -> None:
        """A game began by other means (API, control button): the attendant follows it."""
        self._enter("playing", now)
        self._last_input = now
        self._over_at = None

    def on_game_activity(self, now: float) -> None:
        """The game moved on by itself (the AI played, an animation ran): not idle."""
        if self.phase == "playing":
            self._last_input = now
            self._hinted = False

    def on_game_over(self, now: float) -> None:
        """The game ended; its result shows for `over_seconds`, then a reset is asked."""
        if self.phase in ("playing", "countdown"):
            self.phase = "playing"
            self._over_at = now

    # ------------------------------------------------------------------ time
    def tick(self, now: float, *, is_open: bool, human_to_move: bool) -> list[Action]:
        """Time passes: opening hours, the waking window, hints, the countdown, results."""
        self._open = is_open
        t = self.timing
        if self.phase == "attract" and not is_open:
            self._enter("closed", now)
        elif self.phase == "closed" and is_open:
            self._enter("attract", now)
        elif self.phase == "waking" and now - self.since >= t.two_player_window:
            return self._start(StartGame("ai", self._first_side or "S"), now)
        elif self.phase == "playing":
            return self._playing(now, human_to_move)
        elif self.phase == "countdown" and now - self.since >= t.countdown:
            self._enter("reset", now)
            return [AbandonGame()]
        return []

    def _playing(self, now: float, human_to_move: bool) -> list[Action]:
        t = self.timing
        if self._over_at is not None:
            if now - self._over_at >= t.over_seconds:
                self._over_at = None
                self._enter("reset", now)
            return []
        idle = now - self._last_input
        if idle >= t.idle_after:
            self._enter("countdown", now)
            return []
        if human_to_move and not self._hinted and idle >= t.hint_after:
            self._hinted = True
            return [OfferHint()]
        return []
