"""A first-game tutorial: the guide walks a new player through one opening and one relay move.

The tutorial is an ordinary game against the AI in which the player's own first two actions
are *guided* like the AI's: the board lights South's opening lift and each placement, then a
first move chosen to have a relay (R5), step by step. Each instruction gets a short lesson in
front. After that move the game goes on as usual. Pure: the controller decides when to play
the tutorial's actions; this module chooses them and words the lessons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kiothi_board.guide.address import to_player
from kiothi_board.guide.views import IdleView, OpeningView, StepsView, View
from kiothi_board.i18n import Msg, tr
from kiothi_board.rules import Position

__all__ = [
    "TUTORIAL_OPENING",
    "Part",
    "Tutorial",
    "tutorial_line",
    "tutorial_move",
]

TUTORIAL_OPENING = "S7>S1,S1,N3,N3,N4,S2"
"""South's opening in the tutorial (the example of RULES.md)."""

Part = Literal["opening", "their-opening", "move", "play-on", "done"]
_ORDER: tuple[Part, ...] = ("opening", "their-opening", "move", "play-on", "done")
_SHOWN = 4  # parts with a lesson


@dataclass(frozen=True, slots=True)
class Tutorial:
    """Where the tutorial is: which part, and whether it still has a lesson to tell."""

    part: Part = "opening"

    @property
    def active(self) -> bool:
        """Whether a lesson is still shown."""
        return self.part != "done"

    def next(self) -> Tutorial:
        """The following part."""
        i = _ORDER.index(self.part)
        return Tutorial(_ORDER[min(i + 1, len(_ORDER) - 1)])


def tutorial_move(position: Position) -> int:
    """South's tutorial move: a legal move with a relay, the shortest; else the first legal."""
    legal = position.legal_moves()
    if not legal:
        raise ValueError("the tutorial needs a position with a legal move")
    best: tuple[int, int] | None = None
    for pit in legal:
        _, trace = position.play_traced(pit)
        laps = len(trace.laps)
        if trace.relays and (best is None or laps < best[0]):
            best = (laps, pit)
    return legal[0] if best is None else best[1]


_LESSONS: dict[tuple[Part, str], Msg] = {
    ("opening", "lift"): to_player(
        tr(
            "The opening: before the first move you may lift one of your pits "
            "and spread its seeds anywhere."
        )
    ),
    ("opening", "drop"): tr("Place one seed in each lit pit; its ring counts up."),
    ("their-opening", "any"): tr(
        "North opens the same way; on a real board, follow its light too."
    ),
    ("move", "lift"): to_player(tr("Your first move: lift every seed of the white pit.")),
    ("move", "drop"): tr("Sow: one seed in each lit pit, counter-clockwise."),
    ("move", "relay"): tr("A move goes on while its last seed lands in a pit that had seeds."),
    ("move", "capture"): to_player(tr("You ended in your row after crossing: capture!")),
    ("move", "done"): tr("The move ends when the last seed falls in an empty pit."),
    ("play-on", "idle"): to_player(tr("That is all: play on; your pits that can move breathe.")),
}


def _kind(view: View) -> str:
    if isinstance(view, StepsView):
        return view.step.kind
    if isinstance(view, OpeningView):
        return "drop" if view.lifted is not None else "lift"
    if isinstance(view, IdleView):
        return "idle"
    return "other"


def tutorial_line(tutorial: Tutorial, view: View, base: Msg) -> Msg:
    """The instruction `base` with the tutorial's lesson for this moment in front (if any)."""
    if not tutorial.active:
        return base
    part = tutorial.part
    lesson = _LESSONS.get((part, _kind(view))) or _LESSONS.get((part, "any"))
    if lesson is None:
        return base
    number = _ORDER.index(part) + 1
    return tr(
        "Tutorial {number}/{total} · {lesson} {line}",
        number=number,
        total=_SHOWN,
        lesson=lesson,
        line=base,
    )
