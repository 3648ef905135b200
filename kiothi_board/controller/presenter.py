"""The presenter: what the board shows and says.

The controller hands it each of the session's notices; it keeps the LED guide's overlays
(a wrong press, a hint) and the words of the moment, and returns the notices as the
outside sees them: a wrong press with its reason in words, and a `Guided` line after each
change of what the guide shows. `render()` draws the game's frame (an immutable `Frame`,
compared by value); `state()` is the API's snapshot. It calls nobody and makes no JSON
but the snapshot's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kiothi_board.controller.events import Select, Undo
from kiothi_board.controller.game import expected_board
from kiothi_board.controller.language import picture
from kiothi_board.controller.notices import (
    Applied,
    Changed,
    Failure,
    Guided,
    HintReady,
    Idle,
    Inputted,
    LanguageChanged,
    Notice,
    Started,
    Wrong,
)
from kiothi_board.controller.seat import live_offer, offer_line
from kiothi_board.controller.session import Session
from kiothi_board.frame import Frame
from kiothi_board.guide import (
    ERROR_SECONDS,
    HINT_SECONDS,
    BlankView,
    CheckView,
    Cue,
    IdleView,
    OpeningView,
    Overlay,
    OverView,
    Palette,
    Renderer,
    StepsView,
    View,
    render,
)
from kiothi_board.guide.address import speaks_to_player
from kiothi_board.guide.instructions import Situation, instruction, wrong_text
from kiothi_board.guide.restore import Purpose, RestoreView
from kiothi_board.guide.tutorial import Tutorial, tutorial_line
from kiothi_board.i18n import tr
from kiothi_board.rules import pit_name

__all__ = ["SAY_SECONDS", "Presenter"]

SAY_SECONDS = 6.0
"""How long a wrong press's reason (or a failed command's message) stays on the screen."""


def _name(pit: int | None) -> str | None:
    return None if pit is None or pit < 0 else pit_name(pit)


class Presenter:
    """The session's notices in; the guide's overlays, words and frames out."""

    def __init__(self, session: Session, leds_per_ring: int, palette: Palette) -> None:
        """Present `session`'s game on rings of `leds_per_ring` LEDs, in `palette`."""
        self.session = session
        self.leds_per_ring = leds_per_ring
        self._renderer = Renderer(palette, leds_per_ring)
        self._overlays: list[Overlay] = []
        self._idle: IdleView | None = None
        self._said: tuple[str, float] | None = None  # a message and until when it shows
        self._said_hint = False  # the message is a hint's reason, not a wrong press's
        self.tutorial: Callable[[], Tutorial | None] = lambda: None  # the coach's part

    def observe(self, notices: list[Notice]) -> list[Notice]:
        """Take in a step's notices, in order; the notices the outside sees for them."""
        out: list[Notice] = []
        for notice in notices:
            out.extend(self.on_notice(notice))
        return out

    def set_palette(self, palette: Palette) -> list[Notice]:
        """Draw with `palette` from the next frame on."""
        self._renderer = Renderer(palette, self.leds_per_ring)
        return [self.guided()]

    # ------------------------------------------------------------------ notices
    def on_notice(self, notice: Notice) -> list[Notice]:
        """Take in one of the session's notices; the notices the outside sees for it."""
        now = self.session.clock.now()
        match notice:
            case Inputted(ev):
                if ev.kind == "pressed":  # a hint lasts until the next press, a message too
                    self._overlays = [o for o in self._overlays if o.cue != Cue.HINT]
                    self._said = None
                return [notice]
            case Started():
                self._overlays = []
                self._said = None
                return [notice, self.guided()]
            case Applied(event):
                if isinstance(event, Undo):
                    self._said = None  # a wrong press's words do not outlive the undo
                if isinstance(event, Select):
                    self._overlays = [o for o in self._overlays if o.cue != Cue.HINT]
                return [notice, self.guided()]
            case Changed(reverted=int(pit)):
                # The press a hold takes back was no wrong press (a hold on an empty pit
                # passes the opening, R3): its red ring and its words go with it.
                self._overlays = [o for o in self._overlays if o.pit != pit or o.cue == Cue.HINT]
                if not self._said_hint:
                    self._said = None
                return [notice, self.guided()]
            case Changed() | Idle():
                return [notice, self.guided()]
            case Wrong(pit, endless):
                cue = Cue.ENDLESS if endless else Cue.ERROR
                self._overlays = [o for o in self._overlays if o.pit != pit or o.cue == Cue.HINT]
                self._overlays.append(Overlay(pit, cue, now, now + ERROR_SECONDS))
                message = wrong_text(
                    self.view(), pit, ai=self._ai(), endless=endless, web=self._web()
                )
                self._said = (message, now + SAY_SECONDS)
                self._said_hint = False
                return [replace(notice, message=message)]
            case HintReady(pit, why, _):
                self._overlays = [o for o in self._overlays if o.cue != Cue.HINT]
                self._overlays.append(Overlay(pit, Cue.HINT, now, now + HINT_SECONDS))
                # The hint's words replace a wrong press's (they last as long as the ring).
                self._said = (why, now + HINT_SECONDS) if why else None
                self._said_hint = bool(why)
                return [notice, self.guided()]
            case Failure(message):
                self._said = (message, now + SAY_SECONDS)
                self._said_hint = False
            case LanguageChanged():
                self._overlays = [o for o in self._overlays if o.cue != Cue.WIN]
                self._overlays.extend(picture(notice, now))
                return [notice, self.guided()]
        return [notice]

    def guided(self) -> Guided:
        """What the guide shows now, with its line of words."""
        s = self.session
        game = s.game
        step = None if game is None else game.step
        return Guided(
            "none" if game is None else game.stage,
            step,
            0 if game is None else game.index,
            s.check is not None,
            self.instruction(),
        )

    # ------------------------------------------------------------------ the LEDs
    def view(self) -> View:
        """The guide view the board shows now (without transient overlays)."""
        s = self.session
        game = s.game
        if game is None:
            return BlankView()
        if s.check is not None:
            return CheckView(expected_board(game), game.mover, s.check)
        if game.stage == "over":
            assert game.result is not None
            stuck = game.position.to_move if game.result.end == "no-moves" else None
            return OverView(game.result, stuck)
        if game.stage == "set" and not s.settings.auto and game.steps:
            # The whole board at once: targets on every ring, one hold confirms it.
            purpose: Purpose = "undo" if game.target is not None else "long-move"
            first, last = game.steps[0].board, game.steps[-1].board
            return RestoreView(first, last, game.mover, purpose, s.ticks)
        if game.step is not None:
            return StepsView(game.steps, game.index, game.mover, game.trace, s.paused)
        if game.stage == "open" and not s.settings.is_ai(game.mover):
            board = game.board if game.board is not None else game.position.board
            legal = tuple(p for p in game.mover.pits if board[p])
            placed = [0] * 20
            for p in game.placing:
                placed[p] += 1
            return OpeningView(
                board, game.mover, game.lifted, game.hand, tuple(placed),
                legal if game.lifted is None else (),
            )  # fmt: skip
        if s.settings.is_ai(game.mover):
            return IdleView(game.position, ())
        cached = self._idle
        if cached is None or cached.position is not game.position:
            # Legal moves cost a few sowings; work them out once per position, not per tick.
            cached = self._idle = IdleView.of(game.position)
        return cached

    def render(self) -> Frame:
        """The game's frame for now."""
        now = self.session.clock.now()
        if self._overlays:
            self._overlays = [o for o in self._overlays if o.until > now]
        return render(self.view(), now, self._renderer, self._overlays)

    # ------------------------------------------------------------------ words
    def _ai(self) -> bool:
        s = self.session
        return s.game is not None and s.settings.is_ai(s.game.mover)

    def _web(self) -> bool:
        s = self.session
        return s.game is not None and s.settings.is_web(s.game.mover)

    def instruction(self) -> str:
        """The one line that says what to do now (guide.instructions), with a lesson if any."""
        s = self.session
        now = s.clock.now()
        hint = next((o.pit for o in self._overlays if o.cue == Cue.HINT and o.until > now), None)
        view = self.view()
        # A side played from another board says its name and presence (kiothi_board.remote).
        who = None if s.game is None else getattr(s.opponents.get(s.game.mover), "who", None)
        remote = who() if callable(who) else None
        line = instruction(
            Situation(view, self._ai(), s.thinking, s.settings.pace, hint, self._web(), remote)
        )
        offer = live_offer(s.offer, s.seq)
        if offer is not None and s.game is not None and s.game.stage != "over":
            line = tr("{line} {extra}", line=offer_line(offer, s.settings), extra=line)
        tutorial = self.tutorial()
        return line if tutorial is None else tutorial_line(tutorial, view, line)

    def said(self) -> str | None:
        """Why the last press did nothing (or a command failed), while it shows."""
        if self._said is None or self._said[1] <= self.session.clock.now():
            return None
        return self._said[0]

    def board(self) -> tuple[int, ...] | None:
        """The counts the game has the pits hold now (a reset's targets while one is on)."""
        game = self.session.game
        if game is None:
            return None
        view = self.view()
        return view.target if isinstance(view, RestoreView) else expected_board(game)

    # ------------------------------------------------------------------ the API snapshot
    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot for the API: settings, stage, position, guide step, check."""
        s = self.session
        game = s.game
        out: dict[str, Any] = {
            "game_id": s.game_id,
            "events": s.seq,
            "settings": s.settings.to_json(),
            "stage": "none" if game is None else game.stage,
            "check": None if s.check is None else sorted(pit_name(p) for p in s.check),
            "paused": s.paused,
            "thinking": s.thinking,
            "instruction": (line := self.instruction()),
            "to_player": speaks_to_player(line),  # a watcher's page says it another way
            "said": self.said(),
            "said_kind": None if self.said() is None else "hint" if self._said_hint else "wrong",
            "tutorial": None if (t := self.tutorial()) is None else t.part,
        }
        if game is None:
            return out
        step = game.step
        view = self.view()
        restore = view if isinstance(view, RestoreView) else None
        guide = None
        if step is not None:
            guide = {
                "index": game.index,
                "steps": len(game.steps),
                "kind": step.kind,
                "pit": _name(step.pit),
                "lap": step.lap,
                "hand": step.hand,
            }
        out.update(
            position=game.position.to_json(),
            board=list(expected_board(game) if restore is None else restore.target),
            restore=None if restore is None else restore.to_json(),
            actions=list(game.actions),
            pending=game.pending,
            guide=guide,
            expect=_name(s.expected_pit()),
            lifted=_name(game.lifted),
            result=None if game.result is None else game.result.to_json(),
            ended=game.ended,
            ai_to_move=game.stage in ("turn", "open") and s.settings.is_ai(game.mover),
            offer=None if (offer := live_offer(s.offer, s.seq)) is None else offer.to_json(),
        )
        return out
