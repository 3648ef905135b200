"""The game controller (L3): input events and ticks in; frames, store writes and API events out.

Threading: the pit input may call `handle_event` from its own thread while the daemon's
loop calls `tick()`; one re-entrant lock serialises them. The controller starts no thread;
only an opponent's handle may search on one, and it is polled, never waited on.

Persistence: each change of the game is an event dict, validated by `game.apply`, appended
to the store, and only then shown. `Controller.resume` replays the current game's events.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from kiothi_board.controller.game import (
    DEFAULT_LONG_MOVE_LAPS,
    Game,
    Mode,
    Pace,
    Settings,
    apply,
    expected_board,
    new_game,
)
from kiothi_board.controller.opponent import (
    Opponent,
    OpponentFactory,
    OpponentHandle,
    RandomOpponent,
)
from kiothi_board.errors import KiothiError
from kiothi_board.guide import (
    DEFAULT,
    ERROR_SECONDS,
    BlankView,
    CheckView,
    Cue,
    IdleView,
    OpeningView,
    Overlay,
    OverView,
    Palette,
    Renderer,
    Ring,
    StepsView,
    View,
    render,
)
from kiothi_board.guide.instructions import Situation, instruction, wrong_text
from kiothi_board.hardware.protocols import Clock, InputEvent, PixelSink
from kiothi_board.listeners import Listener, Listeners
from kiothi_board.rules import OpeningAction, Side, Variant, parse_pit, pit_name
from kiothi_board.store.base import GameStore

__all__ = ["CHORDS", "CONTROLS", "Controller", "ControllerError", "Listener"]


class ControllerError(KiothiError, RuntimeError):
    """An API call that does not fit the game's state (no game, not the human's turn)."""


# Two-pit chords (RULES.md names) and the command each fires when held; see docs/controls.md.
CHORDS: dict[frozenset[int], str] = {
    frozenset((0, 9)): "check",  # S1+S10: the two ends of South's row
    frozenset((10, 19)): "check",  # N1+N10
    frozenset((4, 5)): "undo",  # S5+S6: the middle of the row
    frozenset((14, 15)): "undo",  # N5+N6
    frozenset((0, 1)): "resign S",  # S1+S2: South's own left corner
    frozenset((10, 11)): "resign N",  # N1+N2
    frozenset((9, 10)): "end",  # S10+N1: facing pits, one finger from each player
    frozenset((0, 19)): "new",  # S1+N10: the other facing pair
}

# The optional control buttons, by index (board.control_pins in the config).
CONTROLS: dict[int, str] = {0: "undo", 1: "hint", 2: "check", 3: "new"}

_AUTO_SECONDS = {"lift": 0.6, "relay": 0.6, "drop": 1.0, "capture": 2.5, "set": 1.5, "done": 0.0}


@dataclass(slots=True)
class _Press:
    """What a press changed, so a hold or chord that began with it can take it back."""

    game: Game
    seq: int
    check: frozenset[int] | None
    paused: bool
    chord: frozenset[int] | None = None
    acted: bool = False  # a hold or chord command already fired for this press


class Controller:
    """The state machine between the board, the rules, the guide, the store and the API.

    Construct with the injected sink, clock and store (and optionally an opponent factory
    and a palette); feed every `InputEvent` to `handle_event` (pass it to
    `PitInput.start`); call `tick()` 20–60 times a second.
    """

    def __init__(
        self,
        *,
        sink: PixelSink,
        clock: Clock,
        store: GameStore,
        opponent_factory: OpponentFactory | None = None,
        palette: Palette = DEFAULT,
        hold_seconds: float = 1.0,
        flow_seconds: float = 0.5,
        over_seconds: float = 10.0,
        resume: bool = True,
    ) -> None:
        """Wire the controller; with `resume`, continue the store's current game if any."""
        self._sink = sink
        self._clock = clock
        self._store = store
        self._factory: OpponentFactory = opponent_factory or (lambda level: RandomOpponent(level))
        self._renderer = Renderer(palette, sink.leds_per_ring)
        self._hold = hold_seconds
        self._flow = flow_seconds
        self._over_seconds = over_seconds
        self._lock = threading.RLock()
        self._listeners = Listeners()
        self._game: Game | None = None
        self._game_id: int | None = None
        self._seq = 0
        self._settings = Settings()
        self._opponents: dict[Side, Opponent] = {}
        self._thinking: OpponentHandle | None = None
        self._thinking_for: tuple[int, int] | None = None
        self._hint: OpponentHandle | None = None
        self._overlays: list[Overlay] = []
        self._check: frozenset[int] | None = None
        self._paused = False
        self._step_since = clock.now()
        self._over_since = 0.0
        self._down: dict[int, _Press] = {}
        self._last_frame: list[Ring] | None = None
        self._idle: IdleView | None = None
        self._closed = False
        if resume:
            self._resume()
        self._show()

    # ------------------------------------------------------------------ construction
    @classmethod
    def resume(cls, store: GameStore, **kwargs: Any) -> Controller:
        """A controller continuing `store`'s current game (same position, same guide step)."""
        kwargs.pop("resume", None)
        return cls(store=store, resume=True, **kwargs)

    def _resume(self) -> None:
        current = self._store.current_game()
        if current is None:
            return
        gid, meta, events = current
        settings = Settings.from_json(meta)
        stack = [new_game(settings)]
        for ev in events:
            if ev.get("type") == "revert":
                del stack[len(stack) - int(ev["n"]) :]
            else:
                stack.append(apply(stack[-1], ev))
        self._settings = settings
        self._game = stack[-1]
        self._game_id = gid
        self._seq = len(events)
        self._step_since = self._clock.now()
        self._make_opponents()

    # ------------------------------------------------------------------ listeners
    def add_listener(self, listener: Listener) -> None:
        """Receive every API event dict (`position`, `guide`, `move`, `capture`, …)."""
        self._listeners.add(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop sending events to `listener`."""
        self._listeners.remove(listener)

    def _emit(self, event: dict[str, Any]) -> None:
        self._listeners.emit(event)

    # ------------------------------------------------------------------ API methods
    def new_game(
        self,
        mode: Mode = "two",
        sides: str = "S",
        level: int = 3,
        pace: Pace = "step",
        variant: Variant | dict[str, Any] | str | None = None,
        *,
        long_move_laps: int = DEFAULT_LONG_MOVE_LAPS,
    ) -> int:
        """Start a game; returns its store id.

        `mode`: `two` (two players), `ai` (a human plays `sides`, "S" or "N", against the
        AI at `level`), `demo` (AI against AI). `pace`: `step`, `flow` or `instant`.
        """
        if mode not in ("two", "ai", "demo"):
            raise ValueError(f"bad mode {mode!r}: expected 'two', 'ai' or 'demo'")
        if pace not in ("step", "flow", "instant"):
            raise ValueError(f"bad pace {pace!r}: expected 'step', 'flow' or 'instant'")
        if isinstance(variant, str):
            var = Variant.parse(variant)
        elif isinstance(variant, dict):
            var = Variant.from_json(variant)
        else:
            var = variant or Variant()
        humans: tuple[Side, ...]
        if mode == "two":
            humans = (Side.S, Side.N)
        elif mode == "ai":
            humans = tuple(Side.parse(s) for s in sides if s.strip()) or (Side.S,)
        else:
            humans = ()
        settings = Settings(mode, humans, level, pace, var, long_move_laps)
        with self._lock:
            self._cancel_thinking()
            self._settings = settings
            self._game_id = self._store.begin_game(settings.to_json())
            self._seq = 0
            self._game = new_game(settings)
            self._reset_view()
            self._make_opponents()
            self._emit({"type": "new_game", "id": self._game_id, **settings.to_json()})
            self._changed()
            self._show()
            return self._game_id

    def press(self, pit: int | str) -> None:
        """A tap on a pit, as if pressed and released on the board."""
        index = parse_pit(pit) if isinstance(pit, str) else pit
        now = self._clock.now()
        self.handle_event(InputEvent("pressed", index, now))
        self.handle_event(InputEvent("released", index, now))

    def move(self, pit: int | str) -> None:
        """Choose a sowing move for the human to move (as the API does); guided like a press."""
        index = parse_pit(pit) if isinstance(pit, str) else pit
        with self._lock:
            game = self._need_game()
            if game.stage != "turn" or self._settings.is_ai(game.mover):
                raise ControllerError("no human move is awaited now")
            self._select(index, lifted=False)
            self._show()

    def opening(self, action: OpeningAction | str) -> None:
        """Submit a whole opening action for the human to move; its seeds are then guided."""
        with self._lock:
            game = self._need_game()
            if game.stage != "open" or self._settings.is_ai(game.mover):
                raise ControllerError("no human opening action is awaited now")
            self._commit({"type": "open_guided", "action": str(action)})
            self._show()

    def undo(self) -> None:
        """Take back the last move (or the move in progress), guided back to the old counts."""
        with self._lock:
            self._need_game()
            self._cancel_thinking()
            self._commit({"type": "undo"})
            self._show()

    def hint(self) -> None:
        """Ask the AI (at the game's level) for a move and show it on its pit."""
        with self._lock:
            game = self._need_game()
            if game.stage in ("turn", "open"):
                self._hint = self._factory(self._settings.level).start(game.position)

    def resign(self, side: Side | str | None = None) -> None:
        """The given side (by default the side to move) resigns."""
        with self._lock:
            game = self._need_game()
            who = Side.parse(side) if isinstance(side, str) else side or game.mover
            self._cancel_thinking()
            self._commit({"type": "resign", "side": who.letter})
            self._show()

    def end(self) -> None:
        """End the game by agreement: each player takes the seeds in their own row (R11)."""
        with self._lock:
            self._need_game()
            self._cancel_thinking()
            self._commit({"type": "agree"})
            self._show()

    def check_board(self, on: bool | None = None) -> bool:
        """Enter (or leave, or toggle with None) board check; returns whether it is on."""
        with self._lock:
            want = self._check is None if on is None else on
            self._check = frozenset() if want else None
            self._changed()
            self._show()
            return want

    def walk(self) -> None:
        """Walk a long move drop by drop instead of setting the resulting counts."""
        with self._lock:
            self._commit({"type": "walk"})
            self._show()

    def pause(self, paused: bool | None = None) -> bool:
        """Pause or resume (None: toggle) a flow animation; returns whether it is paused."""
        with self._lock:
            self._paused = (not self._paused) if paused is None else paused
            self._step_since = self._clock.now()
            self._changed()
            self._show()
            return self._paused

    def set_palette(self, palette: Palette) -> None:
        """Switch the LED palette (default, colour-blind, night) from the next frame on."""
        with self._lock:
            self._renderer = Renderer(palette, self._sink.leds_per_ring)
            self._changed()
            self._show()

    def expected_pit(self) -> int | None:
        """The pit the guide is pointing the hand at now (None when it is not pointing)."""
        with self._lock:
            game = self._game
            if game is None or self._check is not None:
                return None
            step = game.step
            if step is not None and step.kind != "done":
                return step.pit
            return None

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot for the API: settings, stage, position, guide step, check."""
        with self._lock:
            game = self._game
            out: dict[str, Any] = {
                "game_id": self._game_id,
                "events": self._seq,
                "settings": self._settings.to_json(),
                "stage": "none" if game is None else game.stage,
                "check": None if self._check is None else sorted(pit_name(p) for p in self._check),
                "paused": self._paused,
                "thinking": self._thinking is not None,
                "instruction": self.instruction(),
            }
            if game is None:
                return out
            step = game.step
            expect = self.expected_pit()
            out.update(
                position=game.position.to_json(),
                board=list(expected_board(game)),
                actions=list(game.actions),
                pending=game.pending,
                guide=None
                if step is None
                else {
                    "index": game.index,
                    "steps": len(game.steps),
                    "kind": step.kind,
                    "pit": None if step.pit < 0 else pit_name(step.pit),
                    "lap": step.lap,
                    "hand": step.hand,
                },
                expect=None if expect is None else pit_name(expect),
                lifted=None if game.lifted is None else pit_name(game.lifted),
                result=None
                if game.result is None and game.position.result is None
                else (game.result or game.position.result).to_json(),  # type: ignore[union-attr]
                ended=game.ended,
                ai_to_move=game.stage in ("turn", "open") and self._settings.is_ai(game.mover),
            )
            return out

    def _situation(self) -> Situation:
        game = self._game
        hint = next((o.pit for o in self._overlays if o.cue == Cue.HINT), None)
        return Situation(
            self.view(),
            ai=game is not None and self._settings.is_ai(game.mover),
            thinking=self._thinking is not None,
            pace=self._settings.pace,
            hint=hint,
        )

    def instruction(self) -> str:
        """The one line that says what to do now (guide.instructions)."""
        with self._lock:
            return instruction(self._situation())

    def close(self) -> None:
        """Cancel any search; the sink and store belong to the caller. Idempotent."""
        with self._lock:
            self._cancel_thinking()
            self._closed = True

    def __enter__(self) -> Controller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ inputs
    def handle_event(self, event: InputEvent) -> None:
        """Feed one input event (the handler to give `PitInput.start`)."""
        with self._lock:
            if self._closed:
                return
            self._emit(
                {
                    "type": "input",
                    "kind": event.kind,
                    "pit": pit_name(event.pit) if event.pit >= 0 else None,
                    "control": event.control,
                }
            )
            if event.control is not None:
                if event.kind == "pressed":
                    self._on_control(event.control)
                return
            if not 0 <= event.pit < 20:
                return
            kind, pit = event.kind, event.pit
            if kind == "pressed":
                self._on_pressed(pit)
            elif kind in ("released", "stuck"):
                self._down.pop(pit, None)
            elif kind == "held":
                self._on_held(pit, event.seconds)
            elif kind == "dropped":
                self._on_dropped(pit)
            self._show()

    def _on_control(self, index: int) -> None:
        """The optional control buttons: undo, hint, check the board, new game."""
        command = CONTROLS.get(index)
        try:
            if command == "undo":
                self.undo()
            elif command == "hint":
                self.hint()
            elif command == "check":
                self.check_board()
            elif command == "new":
                s = self._settings
                humans = "".join(h.letter for h in s.humans) or "S"
                self.new_game(
                    s.mode, humans, s.level, s.pace, s.variant, long_move_laps=s.long_move_laps
                )
        except KiothiError as exc:
            self._emit({"type": "error", "message": str(exc)})

    def _on_pressed(self, pit: int) -> None:
        if self._down:
            first = next(iter(self._down.values()))
            chord = frozenset((*self._down, pit))
            if chord in CHORDS:
                # A chord: whatever the first press did is taken back; the command fires on hold.
                self._revert(first)
                for p in self._down.values():
                    p.chord = chord
                self._down[pit] = _Press(
                    self._game_state(), self._seq, self._check, self._paused, chord
                )
                return
        snap = _Press(self._game_state(), self._seq, self._check, self._paused)
        self._down[pit] = snap
        self._tap(pit)

    def _game_state(self) -> Game:
        return self._game if self._game is not None else new_game(self._settings)

    def _revert(self, press: _Press) -> None:
        n = self._seq - press.seq
        if n > 0 and self._game is not None:
            self._append({"type": "revert", "n": n})
            self._game = press.game
            self._step_since = self._clock.now()
        self._check = press.check
        self._paused = press.paused
        self._changed()

    def _on_held(self, pit: int, seconds: float) -> None:
        press = self._down.get(pit)
        if press is None or press.acted or seconds < self._hold:
            return
        if press.chord is not None:
            if not press.chord <= set(self._down):
                return
            for p in self._down.values():
                p.acted = True
            self._command(CHORDS[press.chord])
            return
        if len(self._down) > 1:
            return
        press.acted = True
        self._revert(press)
        self._hold_command(pit)

    def _on_dropped(self, pit: int) -> None:
        game = self._game
        step = None if game is None else game.step
        if game is None or step is None or self._check is not None:
            return
        if step.kind == "drop" and pit == step.pit:
            self._advance()
        elif step.kind == "relay":
            # A sensor cannot feel a lift: a seed landing on the next drop implies it (R5).
            nxt = game.steps[game.index + 1]
            if nxt.kind == "drop" and nxt.pit == pit:
                self._advance()
                self._advance()
        else:
            self._error(pit)

    def _command(self, name: str) -> None:
        try:
            if name == "check":
                self.check_board()
            elif name == "undo":
                self.undo()
            elif name.startswith("resign"):
                self.resign(name.split()[1])
            elif name == "end":
                self.end()
            elif name == "new":
                self._new_same()
        except KiothiError as exc:
            self._emit({"type": "error", "message": str(exc)})

    def _hold_command(self, pit: int) -> None:
        game = self._game
        if game is None or game.stage == "over":
            self._new_same()
            return
        if self._check is not None:
            return
        try:
            if game.stage == "open" and not self._settings.is_ai(game.mover):
                self._commit({"type": "open_end"})  # R3: pass (or, under V1, one lift only)
            elif game.stage == "set" and game.target is None:
                self._commit({"type": "walk"})
            elif game.stage in ("turn", "open"):
                self.hint()
        except KiothiError as exc:
            self._emit({"type": "error", "message": str(exc)})

    def _new_same(self) -> None:
        s = self._settings
        sides = "".join(side.letter for side in s.humans) or "S"
        self.new_game(s.mode, sides, s.level, s.pace, s.variant, long_move_laps=s.long_move_laps)

    def _tap(self, pit: int) -> None:
        game = self._game
        if game is None or game.stage == "over":
            return
        if self._check is not None:
            # Board check: a first press marks a pit wrong (it blinks), a second clears it.
            self._check = self._check ^ {pit}
            self._changed()
            return
        ai_turn = self._settings.is_ai(game.mover)
        if game.stage == "turn":
            pos = game.position
            if not ai_turn and pit in pos.legal_moves():
                self._select(pit, lifted=True)
            elif not ai_turn and pit in pos.endless_moves():
                self._error(pit, Cue.ENDLESS)
            else:
                self._error(pit)
            return
        if game.stage == "open":
            if ai_turn:
                self._error(pit)
            elif game.lifted is None:
                board = game.board if game.board is not None else game.position.board
                if pit in game.mover.pits and board[pit]:
                    self._commit({"type": "open_lift", "pit": pit_name(pit)})
                else:
                    self._error(pit)
            else:
                self._commit({"type": "open_place", "pit": pit_name(pit)})
            return
        step = game.step
        assert step is not None
        if self._auto(step.kind):
            # Flow: the animation leads and the hand follows; a press pauses and resumes.
            self.pause()
        elif pit == step.pit:
            self._advance()
        else:
            self._error(pit)

    # ------------------------------------------------------------------ the game flow
    def _need_game(self) -> Game:
        if self._game is None:
            raise ControllerError("no game: start one with new_game()")
        return self._game

    def _select(self, pit: int, *, lifted: bool) -> None:
        self._overlays = [o for o in self._overlays if o.cue != Cue.HINT]
        self._hint = None
        self._commit({"type": "select", "pit": pit_name(pit), "lifted": lifted})

    def _auto(self, kind: str) -> bool:
        """Whether a step of this kind advances by itself at the current pace."""
        s = self._settings
        if s.auto:
            return True
        return s.pace == "flow" and kind in ("lift", "relay", "drop")

    def _advance(self) -> None:
        self._commit({"type": "step"})

    def _commit(self, event: dict[str, Any]) -> None:
        """Validate, store, then apply and show one game event."""
        game = self._need_game()
        new = apply(game, event)  # raises before anything is stored
        self._append(event)
        self._game = new
        self._step_since = self._clock.now()
        self._after(game, new, event)
        self._follow_up()
        self._changed()

    def _append(self, event: dict[str, Any]) -> None:
        assert self._game_id is not None
        self._store.append_event(self._game_id, event)
        self._seq += 1

    def _follow_up(self) -> None:
        """Events that follow by themselves: a finished sequence completes; instant pace."""
        game = self._game
        if game is None:
            return
        step = game.step
        if step is not None:
            instant = self._settings.pace == "instant" and game.target is None
            if step.kind == "done" or instant:
                self._commit({"type": "complete"})

    def _after(self, old: Game, new: Game, event: dict[str, Any]) -> None:
        """API events and store finishing for one applied event."""
        kind = event["type"]
        if self._listeners:
            self._tell(old, new, kind, event)
        if new.stage == "over" and old.stage != "over":
            self._finish(new)

    def _tell(self, old: Game, new: Game, kind: str, event: dict[str, Any]) -> None:
        if kind == "select" and new.trace is not None:
            self._emit({"type": "move", "pit": event["pit"], "trace": new.trace.to_json()})
        if (
            kind == "complete"
            and old.trace is not None
            and old.target is None
            and old.trace.captures
        ):
            self._emit({"type": "capture", "captures": [c.to_json() for c in old.trace.captures]})
        if new.position is not old.position:
            self._emit({"type": "position", "position": new.position.to_json()})

    def _finish(self, new: Game) -> None:
        assert self._game_id is not None
        record = new.record().to_json()
        self._store.finish_game(self._game_id, record)
        self._over_since = self._clock.now()
        result = new.result or new.position.result
        self._emit(
            {
                "type": "game_over",
                "id": self._game_id,
                "result": None if result is None else result.to_json(),
                "ended": new.ended,
                "record": record,
            }
        )
        self._cancel_thinking()

    def _error(self, pit: int, cue: Cue = Cue.ERROR) -> None:
        now = self._clock.now()
        self._overlays = [o for o in self._overlays if o.pit != pit or o.cue == Cue.HINT]
        self._overlays.append(Overlay(pit, cue, now, now + ERROR_SECONDS))
        expect = self.expected_pit()
        self._emit(
            {
                "type": "wrong",
                "pit": pit_name(pit),
                "reason": "endless" if cue == Cue.ENDLESS else "not expected",
                "expect": None if expect is None else pit_name(expect),
                "message": wrong_text(
                    self.view(),
                    pit,
                    ai=self._situation().ai,
                    endless=cue == Cue.ENDLESS,
                ),
            }
        )

    # ------------------------------------------------------------------ ticks
    def tick(self) -> None:
        """Advance timers and animations at the clock's now; show the frame. Never blocks."""
        with self._lock:
            if self._closed:
                return
            now = self._clock.now()
            if self._overlays:
                self._overlays = [o for o in self._overlays if o.until > now]
            self._poll_opponent()
            self._poll_hint()
            game = self._game
            step = None if game is None else game.step
            if (
                game is not None
                and step is not None
                and not self._paused
                and self._check is None
                and self._auto(step.kind)
                and now - self._step_since >= _AUTO_SECONDS[step.kind] * self._flow
            ):
                self._advance()
            if (
                game is not None
                and game.stage == "over"
                and self._over_seconds >= 0
                and (now - self._over_since >= self._over_seconds)
            ):
                self._game = None  # back to idle; the finished game is in the store
                self._changed()
            self._show()

    def _make_opponents(self) -> None:
        self._opponents = {
            side: self._factory(self._settings.level)
            for side in (Side.S, Side.N)
            if self._settings.is_ai(side)
        }

    def _poll_opponent(self) -> None:
        game = self._game
        if (
            game is None
            or game.stage not in ("turn", "open")
            or not self._settings.is_ai(game.mover)
        ):
            self._cancel_thinking()
            return
        if game.lifted is not None:
            return
        key = (id(game.position), game.position.ply)
        if self._thinking is None or self._thinking_for != key:
            self._cancel_thinking()
            self._thinking = self._opponents[game.mover].start(game.position)
            self._thinking_for = key
            self._changed()
        if not self._thinking.done():
            return
        choice = self._thinking.result()
        self._thinking = None
        self._thinking_for = None
        try:
            if isinstance(choice, OpeningAction):
                self._commit({"type": "open_guided", "action": str(choice)})
            else:
                self._select(choice, lifted=False)
        except KiothiError as exc:
            self._emit({"type": "error", "message": f"the AI chose badly: {exc}"})

    def _poll_hint(self) -> None:
        if self._hint is None or not self._hint.done():
            return
        choice = self._hint.result()
        self._hint = None
        pit = choice if isinstance(choice, int) else (choice.lifts[0].pit if choice.lifts else None)
        if pit is not None:
            self._overlays.append(Overlay(pit, Cue.HINT, self._clock.now()))
            self._emit({"type": "hint", "pit": pit_name(pit)})
            self._changed()

    def _cancel_thinking(self) -> None:
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None
            self._thinking_for = None

    # ------------------------------------------------------------------ output
    def _reset_view(self) -> None:
        self._overlays = []
        self._check = None
        self._paused = False
        self._down.clear()
        self._step_since = self._clock.now()

    def view(self) -> View:
        """The guide view the board shows now (without transient overlays)."""
        with self._lock:
            game = self._game
            if game is None:
                return BlankView()
            if self._check is not None:
                return CheckView(expected_board(game), game.mover, self._check)
            if game.stage == "over":
                result = game.result or game.position.result
                assert result is not None
                return OverView(result)
            step = game.step
            if step is not None:
                return StepsView(game.steps, game.index, game.mover, game.trace, self._paused)
            if game.stage == "open" and not self._settings.is_ai(game.mover):
                board = game.board if game.board is not None else game.position.board
                legal = tuple(p for p in game.mover.pits if board[p])
                placed = [0] * 20
                for p in game.placing:
                    placed[p] += 1
                hand = 0 if game.lifted is None else self._hand(game)
                return OpeningView(
                    board,
                    game.mover,
                    game.lifted,
                    hand,
                    tuple(placed),
                    legal if game.lifted is None else (),
                )
            if self._settings.is_ai(game.mover):
                return IdleView(game.position, ())
            cached = self._idle
            if cached is None or cached.position is not game.position:
                # Legal moves cost a few sowings; work them out once per position, not per tick.
                cached = self._idle = IdleView.of(game.position)
            return cached

    @staticmethod
    def _hand(game: Game) -> int:
        before = list(game.position.board)
        for lift in game.lifts:
            before[lift.pit] = 0
            for p in lift.place:
                before[p] += 1
        assert game.lifted is not None
        return before[game.lifted] - len(game.placing)

    def _changed(self) -> None:
        if not self._listeners:
            return
        game = self._game
        step = None if game is None else game.step
        self._emit(
            {
                "type": "guide",
                "stage": "none" if game is None else game.stage,
                "step": None if step is None else {**step.to_json(), "index": game.index},  # type: ignore[union-attr]
                "check": self._check is not None,
            }
        )

    def frame(self) -> list[Ring]:
        """The frame for now (what `tick` would show)."""
        with self._lock:
            return render(self.view(), self._clock.now(), self._renderer, self._overlays)

    def _show(self) -> None:
        frame = self.frame()
        if frame != self._last_frame:
            self._last_frame = frame
            self._sink.show(frame)
