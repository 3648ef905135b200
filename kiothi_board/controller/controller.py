"""The controller: gestures, session, coach and presenter, one step at a time.

`handle(event)`, `tick()` and `run(command)` each take the game one step and return a
`Step`: the typed notices of what happened, in order, and the game's frame when it
changed. The controller calls nobody outside itself: no sink, no listener, no store write
(its writes wait in the journal; the board loop commits them). Inside, a press walks
gestures → session (command table → reducer → journal) → coach → presenter, once each, in
that order (docs/architecture.md): the session notes what happened and calls nobody back;
the controller then hands the notices to the coach and the presenter.

Not thread-safe and needs no lock: the board loop (kiothi_board.board) is its one caller.
An opponent's handle may search on a thread of its own; it is polled on `tick`.
"""

from __future__ import annotations

import copy
import functools
import random
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.clock import Clock
from kiothi_board.controller.coach import Coach
from kiothi_board.controller.commands import NewGame
from kiothi_board.controller.gestures import Command, Gestures
from kiothi_board.controller.glance import Glance
from kiothi_board.controller.language import Language
from kiothi_board.controller.notices import Notice, SettingsChanged, Started
from kiothi_board.controller.opponent import OpponentFactory
from kiothi_board.controller.presenter import Presenter
from kiothi_board.controller.session import Session
from kiothi_board.controller.settings import DEFAULT_LONG_MOVE_LAPS, Mode, Pace
from kiothi_board.controller.step import Step
from kiothi_board.controller.table import TABLE, CommandTable
from kiothi_board.errors import BadArgumentError
from kiothi_board.frame import Frame
from kiothi_board.guide import DEFAULT, PALETTES, Palette, View
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.rules import Variant
from kiothi_board.store.base import GameStore
from kiothi_board.store.journal import Journal

__all__ = ["Controller", "Glance", "default_settings"]


def default_settings() -> dict[str, Any]:
    """The operator settings a fresh board starts with (stored under "operator")."""
    return {
        "palette": "default",
        "brightness": 0.5,
        "mode": "ai",
        "sides": "S",
        "level": 3,
        "pace": "step",
        "variant": {},
    }


class Controller:
    """The game, one step at a time (see the module docstring)."""

    def __init__(
        self,
        *,
        clock: Clock,
        store: GameStore,
        journal: Journal | None = None,
        opponent_factory: OpponentFactory | None = None,
        rng: random.Random | None = None,
        palette: Palette = DEFAULT,
        leds_per_ring: int = 16,
        hold_seconds: float = 1.0,
        flow_seconds: float = 0.5,
        over_seconds: float = 10.0,
        resume: bool = True,
        defaults: dict[str, Any] | None = None,
        languages: tuple[str, ...] = ("en",),
        table: CommandTable = TABLE,
    ) -> None:
        """Wire the parts; with `resume`, continue the store's current game if any.

        `defaults` overrides `default_settings()` (the daemon passes the config's game
        settings), so `settings.get` and a bare `new_game` match the game the board runs.
        `table`: the commands (their handlers run on this controller; chords and buttons).
        """
        self._store = store
        self.journal = journal or Journal(store)
        self._defaults = {**default_settings(), **(defaults or {})}
        self._notices: list[Notice] = []
        self.gestures = Gestures(hold_seconds, chords=table.chords(), controls=table.controls())
        self.session = Session(
            clock=clock,
            store=store,
            journal=self.journal,
            opponent_factory=opponent_factory,
            rng=rng,
            flow_seconds=flow_seconds,
            over_seconds=over_seconds,
        )
        for spec in table:
            if spec.handler is not None:
                self.session.register(spec.name, functools.partial(spec.handler, self))
        self.language = Language(languages)
        self.coach = Coach(self.session, level=LevelChoice.parse(self._defaults["level"]))
        self.presenter = Presenter(self.session, leds_per_ring, palette)
        self.presenter.tutorial = lambda: self.coach.active
        self._closed = False
        if resume:
            self.session.resume()
            self.coach.resume()
        self._frame = self.presenter.render()

    def _heard(self, notices: list[Notice]) -> None:
        """What the session did: the coach follows the lessons first (so a lesson is never
        a step late), the presenter adds its words; the gestures forget a finished game's
        presses. Kept for the step."""
        if not notices:
            return
        self.coach.observe(notices)
        self._notices.extend(self.presenter.observe(notices))
        if any(isinstance(n, Started) for n in notices):
            self.gestures.reset()

    # ------------------------------------------------------------------ steps
    def take(self, result: object = None) -> Step:
        """What happened since the last step: its notices, and the frame if it changed."""
        self._heard(self.session.take_notices())  # a command that raised left these
        return self._step(result)

    def _step(self, result: object = None) -> Step:
        notices, self._notices = tuple(self._notices), []
        frame = self.presenter.render()
        if frame == self._frame:
            return Step(notices, None, result)
        self._frame = frame
        return Step(notices, frame, result)

    def handle(self, event: InputEvent) -> Step:
        """One input event from the board (or a press from the page): gestures, then the
        commands they fire."""
        if self._closed:
            return Step()
        self._heard(self.session.press(event, self.gestures.feed(event)))
        return self._step()

    def tick(self) -> Step:
        """Timers, animations and the AI at the clock's now."""
        if self._closed:
            return Step()
        self._heard(self.session.tick())  # the coach must know what the tick did first
        self.coach.tick()
        return self.take()

    def run(self, command: Command | str, arg: Any = None) -> Step:
        """One command of the session's table; its result is the step's `result`. A project
        error is raised; what happened before it is still in `take()`."""
        result, notices = self.session.perform(command, arg)
        self._heard(notices)
        return self._step(result)

    def start_tutorial(self) -> int:
        """The `tutorial` command: a first game, guided with lessons; its id."""
        return self.coach.start()

    def choose_language(self, lang: str | None = None) -> str:
        """The `language` command: the next of the venue's languages, or `lang`, or with
        "default" the venue's default (a new visitor); the board's language now."""
        if lang == "default":
            change = self.language.reset()
        elif lang:
            try:
                change = self.language.choose(lang)
            except ValueError as exc:
                raise BadArgumentError(str(exc)) from None
        else:
            change = self.language.cycle()
        if change is not None:
            self.session.tell(change)
        return self.language.current

    def language_default(self) -> None:
        """Back to the venue's default language (told with the next step's notices)."""
        change = self.language.reset()
        if change is not None:
            self.session.tell(change)

    def new_game(
        self,
        mode: Mode | str = "two",
        sides: str = "S",
        level: LevelChoice | int | str = 3,
        pace: Pace | str = "step",
        variant: Variant | dict[str, Any] | str | None = None,
        *,
        long_move_laps: int = DEFAULT_LONG_MOVE_LAPS,
    ) -> Step:
        """Start a game (its store id is the step's result).

        `mode`: `two` (two players), `ai` (a human plays `sides`, "S" or "N", against the
        AI at `level`), `demo` (AI against AI). `pace`: `step`, `flow` or `instant`.
        """
        return self.run("new_game", NewGame(mode, sides, level, pace, variant, long_move_laps))

    def set_palette(self, palette: Palette) -> Step:
        """Switch the LED palette from the next frame on."""
        self._notices.extend(self.presenter.set_palette(palette))
        return self.take()

    def set_settings(self, values: dict[str, Any]) -> Step:
        """`apply_settings` as a step of its own; the merged settings are its result."""
        return self.take(self.apply_settings(values))

    def apply_settings(self, values: dict[str, Any]) -> dict[str, Any]:
        """The `settings.set` command: merge `values` into the operator settings, journal
        them, switch the palette, tell `SettingsChanged`; the merged settings."""
        merged = {**self.get_settings(), **values}
        stored = self._store.load_settings()
        stored["operator"] = merged
        self.journal.save_settings(stored)
        palette = PALETTES.get(str(merged.get("palette")))
        if palette is not None and "palette" in values:
            self._notices.extend(self.presenter.set_palette(palette))
        self._notices.append(SettingsChanged(copy.deepcopy(merged)))
        return merged

    # ------------------------------------------------------------------ reads
    @property
    def leds_per_ring(self) -> int:
        """LEDs in each pit's ring."""
        return self.presenter.leds_per_ring

    @property
    def frame(self) -> Frame:
        """The game's frame as last drawn."""
        return self._frame

    def glance(self) -> Glance:
        """Where the game stands, as typed values."""
        s = self.session
        game = s.game
        stage = "none" if game is None else game.stage
        ai = game is not None and stage in ("open", "turn") and s.settings.is_ai(game.mover)
        expect = s.expected_pit()
        return Glance(
            game_id=s.game_id,
            stage=stage,
            expect=expect,
            ai_to_move=ai,
            human_to_move=expect is not None or (stage in ("open", "turn") and not ai),
            thinking=s.thinking or s.hinting,
            settings=s.settings,
            position=None if game is None else game.position,
            board=None if game is None else self.presenter.board(),
        )

    def expected_pit(self) -> int | None:
        """The pit the guide is pointing the hand at now (None when it is not pointing)."""
        return self.session.expected_pit()

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot for the API (see docs/api.md, `state`)."""
        return self.presenter.state()

    def instruction(self) -> str:
        """The one line that says what to do now (the terminal, the page and the API show it)."""
        return self.presenter.instruction()

    def view(self) -> View:
        """The guide view the board shows now (without transient overlays)."""
        return self.presenter.view()

    def get_settings(self) -> dict[str, Any]:
        """Defaults overlaid with the stored operator settings."""
        stored = self._store.load_settings().get("operator", {})
        return copy.deepcopy({**self._defaults, **(stored if isinstance(stored, dict) else {})})

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Stored games, newest first."""
        return self._store.list_games(limit, offset)

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """One stored game, or None when the store has none of that id."""
        try:
            return self._store.get_game(game_id)
        except KeyError:
            return None

    def close(self) -> None:
        """Cancel any search; the store belongs to the caller. Idempotent."""
        self.session.cancel_thinking()
        self._closed = True
