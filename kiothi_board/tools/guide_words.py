"""The table of docs/led-guide.md: what the guide says in every state, beside its picture.

The rows are the pictures' own scenes (tools.guide_scenes.scenes) plus the states that
have no picture of their own; the text of each is `guide.instructions.instruction`, the
same function the terminal, the web twin and the API use.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kiothi_board.guide.instructions import Situation, instruction, wrong_text
from kiothi_board.guide.palette import Cue
from kiothi_board.guide.tutorial import Tutorial, tutorial_line
from kiothi_board.guide.views import IdleView, OpeningView, StepsView
from kiothi_board.rules import Position, Side
from kiothi_board.tools.guide_scenes import scenes

__all__ = ["BEGIN", "END", "rows", "table", "write_table"]

BEGIN = "<!-- instructions:begin -->"
END = "<!-- instructions:end -->"
_AI_SCENES = {"lift", "opening-guided"}  # a lift step is only lit for a move not pressed


def rows() -> list[tuple[str, str, str]]:
    """(state, picture or '', the instruction) for every state of the guide."""
    out: list[tuple[str, str, str]] = []
    for stem, _title, view, _t, overlays, palette in scenes():
        if palette.name != "default":
            continue
        hint = next((o.pit for o in overlays if o.cue is Cue.HINT), None)
        s = Situation(view, ai=stem in _AI_SCENES, hint=hint)
        if stem == "error" and overlays:
            text = wrong_text(view, overlays[0].pit)
        elif stem == "endless" and overlays:
            text = wrong_text(view, overlays[0].pit, endless=True)
        else:
            text = instruction(s)
        out.append((stem, f"led-guide/{stem}.png", text))
    start = Position.initial().open("pass").open("pass")
    steps_scene = next(v for stem, _, v, *_ in scenes() if stem == "drop")
    assert isinstance(steps_scene, StepsView)
    opening = OpeningView(Position.initial().board, Side.S, legal=tuple(range(5, 10)))
    extra = [
        ("AI thinking", instruction(Situation(IdleView(start, ()), ai=True, thinking=True))),
        ("AI to move", instruction(Situation(IdleView(start, ()), ai=True))),
        ("flow pace", instruction(Situation(steps_scene, pace="flow"))),
        ("paused", instruction(Situation(replace(steps_scene, paused=True), pace="flow"))),
        ("empty pit pressed", wrong_text(IdleView.of(start), 0)),
        ("opponent's pit pressed", wrong_text(IdleView.of(start), 12)),
        ("tutorial: opening", tutorial_line(Tutorial(), opening, instruction(Situation(opening)))),
    ]
    out += [(name, "", text) for name, text in extra]
    return out


def table() -> str:
    """The Markdown table, between its markers."""
    lines = [BEGIN, "| State | Picture | What the guide says |", "|---|---|---|"]
    for state, picture, text in rows():
        pic = f"[{state}]({picture})" if picture else "—"
        lines.append(f"| {state} | {pic} | {text.replace('|', '/')} |")
    lines.append(END)
    return "\n".join(lines)


def write_table(path: Path) -> None:
    """Replace the table between the markers in `path` (which must hold both markers)."""
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ValueError(f"{path}: needs the markers {BEGIN} and {END}")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    path.write_text(head + table() + tail, encoding="utf-8")
