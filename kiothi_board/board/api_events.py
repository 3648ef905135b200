"""The JSON boundary: a step's typed notices as the API's event dicts (docs/api.md).

This is the one place where the board's events become JSON-able dicts: the board loop
publishes what `api_events` makes of each notice, and the frame it showed as `frame_event`.
"""

from __future__ import annotations

from typing import Any

from kiothi_board.controller.events import Complete, Select
from kiothi_board.controller.notices import (
    Applied,
    Failure,
    Finished,
    Guided,
    HintReady,
    Inputted,
    LanguageChanged,
    Notice,
    SettingsChanged,
    Started,
    Wrong,
)
from kiothi_board.frame import Frame
from kiothi_board.rules import pit_name

__all__ = ["api_events", "frame_event"]

Event = dict[str, Any]


def _name(pit: int | None) -> str | None:
    return None if pit is None or pit < 0 else pit_name(pit)


def api_events(notice: Notice) -> list[Event]:
    """The API events one notice makes (none for what only the board needs to know)."""
    match notice:
        case Inputted(ev):
            return [{"type": "input", "kind": ev.kind, "pit": _name(ev.pit), "control": ev.control}]
        case Started(gid, settings, game):
            return [
                {"type": "new_game", "id": gid, **settings.to_json()},
                {"type": "position", "position": game.position.to_json()},
            ]
        case Applied(event, old, new):
            return _applied(event, old, new)
        case Guided(stage, step, index, check, text):
            return [
                {
                    "type": "guide",
                    "stage": stage,
                    "step": None if step is None else {**step.to_json(), "index": index},
                    "check": check,
                    "text": text,
                }
            ]
        case Finished(gid, outcome, ended, record):
            result = None if outcome is None else outcome.to_json()
            return [
                {
                    "type": "game_over",
                    "id": gid,
                    "result": result,
                    "ended": ended,
                    "record": record.to_json(),
                }
            ]
        case Wrong(pit, endless, expect, message):
            return [
                {
                    "type": "wrong",
                    "pit": pit_name(pit),
                    "reason": "endless" if endless else "not expected",
                    "expect": _name(expect),
                    "message": message,
                }
            ]
        case HintReady(pit, why, _):
            return [{"type": "hint", "pit": pit_name(pit), "why": why}]
        case Failure(message):
            return [{"type": "error", "message": message}]
        case SettingsChanged(settings):
            return [{"type": "settings", "settings": settings}]
        case LanguageChanged(lang, index):
            return [{"type": "language", "lang": lang, "index": index}]
    return []


def _applied(event: Any, old: Any, new: Any) -> list[Event]:
    out: list[Event] = []
    if isinstance(event, Select) and new.trace is not None:
        out.append({"type": "move", "pit": pit_name(event.pit), "trace": new.trace.to_json()})
    trace = old.trace
    if isinstance(event, Complete) and trace is not None and old.target is None and trace.captures:
        out.append({"type": "capture", "captures": [c.to_json() for c in trace.captures]})
    if new.position is not old.position:
        out.append({"type": "position", "position": new.position.to_json()})
    return out


def frame_event(frame: Frame) -> Event:
    """The `frame` event of a frame the rings show (the page draws the same)."""
    return {"type": "frame", "leds_per_ring": frame.leds_per_ring, "frame": frame}
