"""The presenter: what the board shows and what the API hears.

It listens to the session's typed notices and turns them into the LED guide (view,
overlays, one de-duplicated frame per change, pushed to the sink) and into API event
dicts (the JSON boundary), including a `frame` event for every new frame. `state()` is
the API's snapshot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kiothi_board.controller.events import Complete, Select
from kiothi_board.controller.game import expected_board
from kiothi_board.controller.notices import (
    Applied,
    Changed,
    Finished,
    HintReady,
    Idle,
    Inputted,
    Notice,
    Problem,
    Started,
    Wrong,
)
from kiothi_board.controller.session import Session
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
    Ring,
    StepsView,
    View,
    render,
)
from kiothi_board.guide.instructions import Situation, instruction, wrong_text
from kiothi_board.guide.restore import Purpose, RestoreView
from kiothi_board.guide.tutorial import Tutorial, tutorial_line
from kiothi_board.hardware.protocols import PixelSink
from kiothi_board.listeners import Listeners
from kiothi_board.rules import pit_name

__all__ = ["SAY_SECONDS", "Presenter"]

SAY_SECONDS = 6.0
"""How long a wrong press's reason (or a failed command's message) stays on the screen."""


def _name(pit: int | None) -> str | None:
    return None if pit is None or pit < 0 else pit_name(pit)


class Presenter:
    """The session's notices in; LED frames to the sink and API event dicts out."""

    def __init__(self, session: Session, sink: PixelSink, palette: Palette) -> None:
        """Listen to `session`; draw into `sink` with `palette`."""
        self.session = session
        self.sink = sink
        self.listeners: Listeners[dict[str, Any]] = Listeners("the API events")
        self._renderer = Renderer(palette, sink.leds_per_ring)
        self._overlays: list[Overlay] = []
        self._idle: IdleView | None = None
        self._said: tuple[str, float] | None = None  # a message and until when it shows
        self.tutorial: Callable[[], Tutorial | None] = lambda: None  # the coach's part
        self.last_frame: list[Ring] | None = None
        session.notices.add(self.on_notice)

    def emit(self, event: dict[str, Any]) -> None:
        """Send one API event dict to every listener."""
        self.listeners.emit(event)

    def set_palette(self, palette: Palette) -> None:
        """Draw with `palette` from the next frame on."""
        self._renderer = Renderer(palette, self.sink.leds_per_ring)
        self._guide()

    # ------------------------------------------------------------------ notices
    def on_notice(self, notice: Notice) -> None:
        """Turn one session notice into overlays and API events."""
        now = self.session.clock.now()
        match notice:
            case Inputted(ev):
                if ev.kind == "pressed":  # a hint lasts until the next press, a message too
                    self._overlays = [o for o in self._overlays if o.cue != Cue.HINT]
                    self._said = None
                self.emit(
                    {"type": "input", "kind": ev.kind, "pit": _name(ev.pit), "control": ev.control}
                )
            case Started(gid, settings):
                self._overlays = []
                self._said = None
                self.emit({"type": "new_game", "id": gid, **settings.to_json()})
                game = self.session.game
                if game is not None and self.listeners:
                    self.emit({"type": "position", "position": game.position.to_json()})
                self._guide()
            case Applied(event, old, new):
                self._applied(event, old, new)
            case Finished(gid, outcome, ended, record):
                result = None if outcome is None else outcome.to_json()
                self.emit(
                    {
                        "type": "game_over",
                        "id": gid,
                        "result": result,
                        "ended": ended,
                        "record": record.to_json(),
                    }
                )
            case Changed() | Idle():
                self._guide()
            case Wrong(pit, endless, expect):
                cue = Cue.ENDLESS if endless else Cue.ERROR
                self._overlays = [o for o in self._overlays if o.pit != pit or o.cue == Cue.HINT]
                self._overlays.append(Overlay(pit, cue, now, now + ERROR_SECONDS))
                reason = "endless" if endless else "not expected"
                message = wrong_text(self.view(), pit, ai=self._ai(), endless=endless)
                self._said = (message, now + SAY_SECONDS)
                self.emit(
                    {
                        "type": "wrong",
                        "pit": pit_name(pit),
                        "reason": reason,
                        "expect": _name(expect),
                        "message": message,
                    }
                )
            case HintReady(pit, why):
                self._overlays = [o for o in self._overlays if o.cue != Cue.HINT]
                self._overlays.append(Overlay(pit, Cue.HINT, now, now + HINT_SECONDS))
                if why:
                    self._said = (why, now + HINT_SECONDS)  # the words last as long as the ring
                self.emit({"type": "hint", "pit": pit_name(pit), "why": why})
                self._guide()
            case Problem(message):
                self._said = (message, now + SAY_SECONDS)
                self.emit({"type": "error", "message": message})

    def _applied(self, event: Any, old: Any, new: Any) -> None:
        if isinstance(event, Select):
            self._overlays = [o for o in self._overlays if o.cue != Cue.HINT]
        if not self.listeners:
            return
        self._tell(event, old, new)
        self._guide()

    def _tell(self, event: Any, old: Any, new: Any) -> None:
        if isinstance(event, Select) and new.trace is not None:
            self.emit({"type": "move", "pit": pit_name(event.pit), "trace": new.trace.to_json()})
        trace = old.trace
        if (
            isinstance(event, Complete)
            and trace is not None
            and old.target is None
            and trace.captures
        ):
            self.emit({"type": "capture", "captures": [c.to_json() for c in trace.captures]})
        if new.position is not old.position:
            self.emit({"type": "position", "position": new.position.to_json()})

    def _guide(self) -> None:
        if not self.listeners:
            return
        s = self.session
        game = s.game
        step = None if game is None else game.step
        self.emit(
            {
                "type": "guide",
                "stage": "none" if game is None else game.stage,
                "step": None
                if game is None or step is None
                else {**step.to_json(), "index": game.index},
                "check": s.check is not None,
                "text": self.instruction(),
            }
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
            return OverView(game.result)
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

    def render(self) -> list[Ring]:
        """The frame for now (what `show` would push)."""
        now = self.session.clock.now()
        if self._overlays:
            self._overlays = [o for o in self._overlays if o.until > now]
        return render(self.view(), now, self._renderer, self._overlays)

    def show(self) -> None:
        """Render; push the frame to the sink and the listeners only when it changed."""
        frame = self.render()
        if frame != self.last_frame:
            self.last_frame = frame
            self.sink.show(frame)
            if self.listeners:
                self.emit(
                    {"type": "frame", "leds_per_ring": self.sink.leds_per_ring, "frame": frame}
                )

    # ------------------------------------------------------------------ words
    def _ai(self) -> bool:
        s = self.session
        return s.game is not None and s.settings.is_ai(s.game.mover)

    def instruction(self) -> str:
        """The one line that says what to do now (guide.instructions), with a lesson if any."""
        s = self.session
        now = s.clock.now()
        hint = next((o.pit for o in self._overlays if o.cue == Cue.HINT and o.until > now), None)
        view = self.view()
        line = instruction(Situation(view, self._ai(), s.thinking, s.settings.pace, hint))
        tutorial = self.tutorial()
        return line if tutorial is None else tutorial_line(tutorial, view, line)

    def said(self) -> str | None:
        """Why the last press did nothing (or a command failed), while it shows."""
        if self._said is None or self._said[1] <= self.session.clock.now():
            return None
        return self._said[0]

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
            "instruction": self.instruction(),
            "said": self.said(),
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
        )
        return out
