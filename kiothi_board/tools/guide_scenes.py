"""The guide's scenes: every picture (and line of words) the docs show, drawn from real
views of the guide. `guide_pictures` draws them; `guide_words` tables their words."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from kiothi_board.guide.palette import COLOUR_BLIND, DEFAULT, NIGHT, Cue, Palette
from kiothi_board.guide.restore import RestoreView
from kiothi_board.guide.steps import StepKind, opening_steps, set_steps, sow_steps
from kiothi_board.guide.views import (
    BlankView,
    CheckView,
    IdleView,
    OpeningView,
    Overlay,
    OverView,
    StepsView,
    View,
)
from kiothi_board.rules import Lift, Position, Result, Side, SowTrace, pit_name

__all__ = ["scenes"]


def _rich_move() -> tuple[Position, SowTrace]:
    rng = random.Random(7)
    for _ in range(400):
        pos = Position.initial().open("pass").open("pass")
        while not pos.over:
            nxt, trace = pos.play_traced(rng.choice(pos.legal_moves()))
            if trace.relays and trace.captures and trace.saved:
                return pos, trace
            pos = nxt
    raise RuntimeError("no move with relay, capture and saved pit found")


def _at(steps: Sequence[Any], kind: StepKind) -> int:
    return next(i for i, s in enumerate(steps) if s.kind == kind)


def scenes() -> list[tuple[str, str, View, float, list[Overlay], Palette]]:
    """(file stem, title, view, time, overlays, palette) for every picture of the docs."""
    start = Position.initial().open("pass").open("pass")
    pos, trace = _rich_move()
    steps = sow_steps(trace)
    side = pos.to_move
    first_drop = _at(steps, "drop")
    relay = _at(steps, "relay")
    capture = _at(steps, "capture")
    done = len(steps) - 1
    opening_board = list(Position.initial().board)
    opening_board[6] = 0
    opening_board[0] += 2
    opening_board[12] += 1
    placed = [0] * 20
    placed[0], placed[12] = 2, 1
    guided = opening_steps(Position.initial().board, [Lift(6, (0, 0, 12, 12, 13, 1))])
    fix = set_steps(trace.board_after, pos.board)
    out: list[tuple[str, str, View, float, list[Overlay], Palette]] = [
        (
            "idle",
            "Idle: counts, South to move in blue, legal pits breathing",
            IdleView.of(start),
            1.0,
            [],
            DEFAULT,
        ),
        ("lift", f"Lift {pit_name(trace.pit)}", StepsView(steps, 0, side, trace), 0.0, [], DEFAULT),
        (
            "drop",
            "Next drop bright, the following two dim",
            StepsView(steps, first_drop, side, trace),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "relay",
            f"Relay: lift {pit_name(steps[relay].pit)} again (off the drop beat)",
            StepsView(steps, relay, side, trace),
            0.3,
            [],
            DEFAULT,
        ),
        (
            "capture",
            "Captures flashing; landing and saved (unsown) pits marked",
            StepsView(steps, capture, side, trace),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "done",
            "Done: every ring shows its new count",
            StepsView(steps, done, side, trace),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "opening",
            "Opening: S7 lifted (seeds in hand), placed seeds counting up",
            OpeningView(tuple(opening_board), Side.S, 6, 3, tuple(placed)),
            0.6,
            [],
            DEFAULT,
        ),
        (
            "opening-guided",
            "The AI's opening: place the next seed on the lit pit",
            StepsView(guided, 3, Side.S),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "error",
            "A wrong press flashes red; the expected pit keeps its cue",
            StepsView(steps, first_drop, side, trace),
            5.0,
            [Overlay((steps[first_drop].pit + 5) % 20, Cue.ERROR, 5.0, 6.2)],
            DEFAULT,
        ),
        (
            "endless",
            "A press on a pit whose move never ends (R6)",
            IdleView.of(start),
            5.0,
            [Overlay(9, Cue.ENDLESS, 5.0, 6.2)],
            DEFAULT,
        ),
        ("hint", "A hint", IdleView.of(start), 1.0, [Overlay(7, Cue.HINT, 0.0)], DEFAULT),
        (
            "set",
            "Setting counts pit by pit (a long move, an undo)",
            StepsView(fix, 0, side),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "restore",
            "Undo: every ring shows its target, pits that change blink (hold a pit to confirm)",
            RestoreView.of(trace.board_after, pos.board, side, "undo"),
            0.2,
            [],
            DEFAULT,
        ),
        (
            "check",
            "Board check: S6 marked wrong blinks",
            CheckView(start.board, Side.S, frozenset({5})),
            0.0,
            [],
            DEFAULT,
        ),
        (
            "over",
            "Game over 38-22: South's bar breathes",
            OverView(Result.of((38, 22), "no-moves"), Side.N),
            0.75,
            [],
            DEFAULT,
        ),
        ("blank", "No game: hold a pit to start", BlankView(), 2.0, [], DEFAULT),
        (
            "drop-colour-blind",
            "Colour-blind palette: next drop (full), following (two dots)",
            StepsView(steps, first_drop, side, trace),
            0.0,
            [],
            COLOUR_BLIND,
        ),
        (
            "capture-colour-blind",
            "Colour-blind palette: capture (half ring), saved (pairs)",
            StepsView(steps, capture, side, trace),
            0.0,
            [],
            COLOUR_BLIND,
        ),
        (
            "relay-colour-blind",
            "Colour-blind palette: relay (every other LED)",
            StepsView(steps, relay, side, trace),
            0.3,
            [],
            COLOUR_BLIND,
        ),
        ("drop-night", "Night palette", StepsView(steps, first_drop, side, trace), 0.0, [], NIGHT),
    ]
    return out
