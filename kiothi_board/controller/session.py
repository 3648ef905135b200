"""The session: one game at a time, its store, its opponents and the one command table.

Every way of acting on the game (pit gestures, control buttons, the simulator's keys, the
API) runs a command of `Session.commands`; other parts add their own with `register`.
Each change of the game is a typed event, checked by the reducer, written to the journal
(committed by the board loop with the rest of the step), applied, and noted as an
`Applied` notice (see kiothi_board.controller.notices); `press`, `perform` and `tick` return
what happened. Reads go to the store. The session calls
nobody back, and is not thread-safe: the board loop is its only caller.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kiothi_board.clock import Clock
from kiothi_board.controller.ai_turns import AiTurns
from kiothi_board.controller.events import (
    Abandon,
    Advance,
    Complete,
    GameEvent,
    Revert,
    Select,
    from_json,
    to_json,
)
from kiothi_board.controller.game import Game, Settings, apply, new_game
from kiothi_board.controller.gestures import Command
from kiothi_board.controller.notices import (
    Applied,
    Changed,
    Failure,
    Finished,
    Idle,
    Inputted,
    Notice,
    Started,
    Wrong,
)
from kiothi_board.controller.opponent import Opponent, OpponentFactory, OpponentHandle
from kiothi_board.controller.opponent import random_opponents as _random_opponents
from kiothi_board.controller.seat import Offer
from kiothi_board.errors import ConflictError, KiothiError
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.i18n import Msg, tr
from kiothi_board.rules import Side
from kiothi_board.store.base import GameStore
from kiothi_board.store.journal import Journal

log = logging.getLogger(__name__)

__all__ = ["AUTO_SECONDS", "Session"]

AUTO_SECONDS = {"lift": 0.6, "relay": 0.6, "drop": 1.0, "capture": 2.5, "set": 1.5, "done": 0.0}
"""Seconds each step kind shows before it advances by itself (times `flow_seconds`)."""


@dataclass(frozen=True, slots=True)
class _Mark:
    """What a press changed, so a hold or chord that began with it can take it back."""

    game: Game
    seq: int
    check: frozenset[int] | None
    paused: bool


class Session(AiTurns):
    """The game, the store and the opponents; commands in, typed notices out."""

    def __init__(
        self,
        *,
        clock: Clock,
        store: GameStore,
        journal: Journal | None = None,
        opponent_factory: OpponentFactory | None = None,
        rng: random.Random | None = None,
        flow_seconds: float = 0.5,
        over_seconds: float = 10.0,
    ) -> None:
        """No game yet (`resume` continues the store's); opponents default to random ones."""
        self.clock = clock
        self.store = store
        self.journal = journal or Journal(store)
        self.factory = opponent_factory or _random_opponents(rng or random.Random(0))
        self.flow_seconds = flow_seconds
        self.over_seconds = over_seconds
        self._told: list[Notice] = []
        self.game: Game | None = None
        self.game_id: int | None = None
        self.tutorial_game = False  # the first-game tutorial (controller.coach)
        self.seq = 0  # events stored for the current game
        self.settings = Settings()
        self.check: frozenset[int] | None = None  # board check: the pits marked wrong
        self.ticks: frozenset[int] = frozenset()  # setting the board: pits ticked off as set
        self.paused = False
        self.opponents: dict[Side, Opponent] = {}  # read by the presenter (a remote side's name)
        self._thinking: OpponentHandle | None = None
        self._thinking_for: tuple[int, int] | None = None
        self._hint: OpponentHandle | None = None
        self._hint_offered = False
        self.offer: Offer | None = None  # an agreement or takeback one player asked for
        self._marks: dict[int, _Mark] = {}
        self._step_since = clock.now()
        self._over_since = 0.0
        self.commands: dict[str, Callable[[Any], object]] = {}  # filled by commands.install

    # ------------------------------------------------------------------ the command table
    def register(self, name: str, fn: Callable[[Any], object]) -> None:
        """Add (or replace) the command `name`; `fn` receives the command's argument."""
        self.commands[name] = fn

    def run(self, command: Command | str, arg: Any = None) -> Any:
        """Run one command of the table; its result. Unknown names are a ConflictError."""
        if isinstance(command, str):
            command = Command(command, arg)
        fn = self.commands.get(command.name)
        if fn is None:
            raise ConflictError(f"unknown command {command.name!r}")
        return fn(command.arg)

    def run_reported(self, command: Command) -> None:
        """Run a gesture's command; a project error becomes a `Failure` notice."""
        try:
            self.run(command)
        except KiothiError as exc:
            said = exc.args[0] if exc.args and isinstance(exc.args[0], Msg) else str(exc)
            self.tell(Failure(said))

    def tell(self, notice: Notice) -> None:
        """Note what happened, for the controller to take."""
        self._told.append(notice)

    def take_notices(self) -> list[Notice]:
        """What happened since the last call, in order."""
        told, self._told = self._told, []
        return told

    def press(self, event: InputEvent, commands: list[Command]) -> list[Notice]:
        """One input event and the commands its gestures fired; what happened, in order."""
        self.tell(Inputted(event))
        for command in commands:
            self.run_reported(command)
        return self.take_notices()

    def perform(self, command: Command | str, arg: Any = None) -> tuple[Any, list[Notice]]:
        """`run` a command; its result and what happened (even when it raises, what
        happened before stays for `take_notices`)."""
        result = self.run(command, arg)
        return result, self.take_notices()

    # ------------------------------------------------------------------ games
    def resume(self) -> None:
        """Continue the store's current game at the same position and guide step.

        A game this build cannot read (a level or a rule of a newer build, a damaged event)
        is logged and left in the store as it is, and the board starts without it: one bad
        record must not stop the board at every start."""
        current = self.store.current_game()
        if current is None:
            return
        gid, meta, stored = current
        try:
            settings, game = _rebuild(meta, stored)
            opponents = self._opponents_for(settings)
        except (KiothiError, ValueError, KeyError, TypeError) as exc:
            log.error("stored game %d cannot be resumed (kept in the store): %s", gid, exc)
            return
        self.settings = settings
        self.game = game
        self.game_id = gid
        self.tutorial_game = meta.get("tutorial") is True
        self.seq = len(stored)
        self._step_since = self.clock.now()
        self.opponents = opponents

    def begin(self, settings: Settings, *, tutorial: bool = False) -> int:
        """Start a game with `settings`; its store id. A game left unfinished is abandoned.
        `tutorial`: the first-game tutorial, marked in the stored meta so a restart
        resumes it as one."""
        self.cancel_thinking()
        if self.game is not None and self.game.stage != "over":
            self.commit(Abandon())  # R13: stored as abandoned, not left "unfinished"
        self.settings = settings
        self.tutorial_game = tutorial
        meta = settings.to_stored()
        self.game_id = self.journal.begin_game({**meta, "tutorial": True} if tutorial else meta)
        self.seq = 0
        self.game = new_game(settings)
        self.check = None
        self.ticks = frozenset()
        self.paused = False
        self._marks.clear()
        self._hint = None
        self._step_since = self.clock.now()
        self._make_opponents()
        self.tell(Started(self.game_id, settings, self.game))
        return self.game_id

    def need_game(self) -> Game:
        """The game, or a ConflictError when there is none."""
        if self.game is None:
            raise ConflictError(tr("no game: start one with new_game()"))
        return self.game

    def commit(self, event: GameEvent) -> None:
        """Validate, journal, then apply and tell one game event (and what follows it)."""
        game = self.need_game()
        new = apply(game, event)  # raises before anything is stored
        self._append(event)
        self.game = new
        self.ticks = frozenset()
        self._step_since = self.clock.now()
        if isinstance(event, Select):
            self._hint = None
        self.tell(Applied(event, game, new))
        if new.stage == "over" and game.stage != "over":
            self._finish(new)
        self._follow_up()

    def _append(self, event: GameEvent) -> None:
        assert self.game_id is not None
        self.journal.append_event(self.game_id, to_json(event))
        self.seq += 1

    def _follow_up(self) -> None:
        """Events that follow by themselves: a finished sequence completes; instant pace."""
        game = self.game
        step = None if game is None else game.step
        if game is not None and step is not None:
            instant = self.settings.pace == "instant" and game.target is None
            if step.kind == "done" or instant:
                self.commit(Complete())

    def _finish(self, game: Game) -> None:
        assert self.game_id is not None
        record = game.record()
        self.journal.finish_game(self.game_id, record.to_json())
        self._over_since = self.clock.now()
        self.cancel_thinking()
        self.tell(Finished(self.game_id, game.result, game.ended, record))

    # ------------------------------------------------------------------ presses
    def mark(self, pit: int) -> None:
        """Remember the state before a press, for a hold or chord to take it back."""
        game = self.game if self.game is not None else new_game(self.settings)
        self._marks[pit] = _Mark(game, self.seq, self.check, self.paused)

    def revert(self, pit: int) -> None:
        """Take back what the press on `pit` changed (stored as a `Revert`)."""
        mark = self._marks.get(pit)
        if mark is None:
            return
        n = self.seq - mark.seq
        if n > 0 and self.game is not None:
            self._append(Revert(n))
            self.game = mark.game
            self._step_since = self.clock.now()
        self.check = mark.check
        self.paused = mark.paused
        self.tell(Changed(reverted=pit))

    def release(self, pit: int) -> None:
        """The press on `pit` is over."""
        self._marks.pop(pit, None)

    def wrong(self, pit: int, *, endless: bool = False) -> None:
        """Tell of a press the guide did not ask for."""
        self.tell(Wrong(pit, endless, self.expected_pit()))

    def expected_pit(self) -> int | None:
        """The pit the guide is pointing the hand at now (None when it is not pointing)."""
        game = self.game
        if game is None or self.check is not None:
            return None
        if game.stage == "set" and not self.settings.auto:
            return None  # the whole board is set at once: no one pit is asked for
        step = game.step
        return step.pit if step is not None and step.kind != "done" else None

    def auto(self, kind: str) -> bool:
        """Whether a step of this kind advances by itself at the current pace."""
        return self.settings.auto or (
            self.settings.pace == "flow" and kind in ("lift", "relay", "drop")
        )

    def select(self, pit: int, *, lifted: bool) -> None:
        """Choose a sowing move (a press lifted the pit, or the API or the AI chose it)."""
        self.commit(Select(pit, lifted))

    def set_pause(self, paused: bool | None) -> bool:
        """Pause or resume (None: toggle) a flow animation; whether it is paused."""
        self.paused = (not self.paused) if paused is None else paused
        self._step_since = self.clock.now()
        self.tell(Changed())
        return self.paused

    # ------------------------------------------------------------------ time (the AI: ai_turns.py)
    def tick(self) -> list[Notice]:
        """Advance animations, poll the AI and the hint, time out the over view; what
        happened."""
        self._tick()
        return self.take_notices()

    def _tick(self) -> None:
        now = self.clock.now()
        # A game resumed after a crash between a sequence's last step and its completion
        # completes now (the store holds the step, not yet the `complete`).
        self._follow_up()
        self._poll_opponent()
        self._poll_hint()
        game = self.game
        step = None if game is None else game.step
        if (
            step is not None
            and not self.paused
            and self.check is None
            and self.auto(step.kind)
            and now - self._step_since >= AUTO_SECONDS[step.kind] * self.flow_seconds
        ):
            self.commit(Advance())
        game = self.game
        if (
            game is not None
            and game.stage == "over"
            and self.over_seconds >= 0
            and now - self._over_since >= self.over_seconds
        ):
            self.game = None  # back to idle; the finished game is in the store
            self.tell(Idle())


def _rebuild(meta: dict[str, Any], stored: list[dict[str, Any]]) -> tuple[Settings, Game]:
    """A stored game's settings and its game now, replayed from its events."""
    settings = Settings.from_json(meta)
    stack = [new_game(settings)]
    for data in stored:
        match from_json(data):
            case Revert(n):
                del stack[len(stack) - n :]
            case event:
                stack.append(apply(stack[-1], event))
    return settings, stack[-1]
