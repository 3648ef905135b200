"""Guide steps: a move, an opening lift or a board correction told as presses to make.

Each `GuideStep` is one thing the hand does next, with the counts the board holds *before*
it: the controller advances an index through a tuple of steps, and the guide draws the
step at that index. The last step is always `done`, holding the counts the board ends with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kiothi_board.rules import Lift, SowTrace

__all__ = ["GuideStep", "StepKind", "opening_steps", "set_steps", "sow_steps"]

StepKind = Literal["lift", "drop", "relay", "capture", "set", "done"]


@dataclass(frozen=True, slots=True)
class GuideStep:
    """One action of the hand: lift/drop/relay at `pit`, capture from it, or set its count."""

    kind: StepKind
    pit: int  # -1 for done
    lap: int
    board: tuple[int, ...]  # counts on the board before this step
    hand: int  # seeds in the hand before this step

    def to_json(self) -> dict[str, object]:
        """The step as the API reports it (pit by index; the controller adds names)."""
        return {"kind": self.kind, "pit": self.pit, "lap": self.lap, "hand": self.hand}


def sow_steps(trace: SowTrace) -> tuple[GuideStep, ...]:
    """The steps of a sowing move: lift, drops, relay lifts (R5), captures (R8, R9), done."""
    board = list(trace.board_before)
    out: list[GuideStep] = []
    hand = 0
    for index, lap in enumerate(trace.laps):
        out.append(
            GuideStep("relay" if lap.relay else "lift", lap.lifted, index, tuple(board), hand)
        )
        hand = board[lap.lifted]
        board[lap.lifted] = 0
        for pit in lap.drops:
            out.append(GuideStep("drop", pit, index, tuple(board), hand))
            board[pit] += 1
            hand -= 1
    last = len(trace.laps) - 1
    for cap in trace.captures:
        out.append(GuideStep("capture", cap.pit, last, tuple(board), 0))
        board[cap.pit] -= cap.seeds
    out.append(GuideStep("done", -1, last, tuple(board), 0))
    return tuple(out)


def opening_steps(board: Sequence[int], lifts: Sequence[Lift]) -> tuple[GuideStep, ...]:
    """The steps of an opening action decided elsewhere (the AI, the API): lift, places (R3)."""
    b = list(board)
    out: list[GuideStep] = []
    for index, lift in enumerate(lifts):
        out.append(GuideStep("lift", lift.pit, index, tuple(b), 0))
        hand = b[lift.pit]
        b[lift.pit] = 0
        for pit in lift.place:
            out.append(GuideStep("drop", pit, index, tuple(b), hand))
            b[pit] += 1
            hand -= 1
    out.append(GuideStep("done", -1, max(len(lifts) - 1, 0), tuple(b), 0))
    return tuple(out)


def set_steps(before: Sequence[int], after: Sequence[int]) -> tuple[GuideStep, ...]:
    """Pit-by-pit corrections from `before` to `after` counts (a long move, an undo)."""
    b = list(before)
    out: list[GuideStep] = []
    for pit, want in enumerate(after):
        if b[pit] != want:
            out.append(GuideStep("set", pit, 0, tuple(b), 0))
            b[pit] = want
    out.append(GuideStep("done", -1, 0, tuple(b), 0))
    return tuple(out)
