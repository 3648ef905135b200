"""Golden playthroughs in OpenSpiel style: every step's position, legal moves, action, trace.

Each file holds one complete game. The test replays the recorded actions and compares
what the engine says now, line by line. Regenerate only with `make goldens`
(`pytest tests/rules/test_goldens.py --update-goldens`) and review the diff.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kiothi_board import native
from kiothi_board.native import Core
from kiothi_board.rules import Lift, OpeningAction, Position, Variant, pit_name
from tests.rules.cores import CORES

GOLDENS = Path(__file__).parent / "goldens"

# (name, variant, seed): the games the goldens were generated from.
SPECS: list[tuple[str, Variant, int]] = [
    ("standard-a", Variant(), 1),
    ("standard-b", Variant(), 2),
    ("standard-c", Variant(), 3),
    ("v1-two-lifts", Variant(V1=True), 4),
    ("v2-no-opening", Variant(V2=True), 5),
    ("v3-skip-origin", Variant(V3=True), 6),
    ("v4-any-sower", Variant(V4=True), 7),
    ("v5-empty-sown", Variant(V5=True), 8),
    ("v6-final-lap", Variant(V6=True), 9),
    ("v7-landing-safe", Variant(V7=True), 10),
    ("v8-chain-stops", Variant(V8=True), 11),
    ("ply-limit", Variant(ply_limit=120), 12),
]


def _random_opening(pos: Position, rng: random.Random) -> OpeningAction:
    if rng.random() < 0.2:
        return OpeningAction()
    lifts = []
    board = list(pos.board)
    for _ in range(2 if pos.variant.V1 else 1):
        own = [p for p in pos.to_move.pits if board[p]]
        pit = rng.choice(own)
        place = tuple(rng.randrange(20) for _ in range(board[pit]))
        board[pit] = 0
        for p in place:
            board[p] += 1
        lifts.append(Lift(pit, place))
    return OpeningAction(tuple(lifts))


def _choose(pos: Position, rng: random.Random) -> int:
    """Half the time the greediest capture, else a random move: games end in a few hundred plies."""
    legal = pos.legal_moves()
    if rng.random() < 0.5:
        b, s, side = pos.packed
        gains = [(pos.engine.sow(b, s, side, p) or (0, 0, 0))[2] for p in legal]
        return legal[max(range(len(legal)), key=gains.__getitem__)]
    return rng.choice(legal)


def generate(variant: Variant, seed: int) -> list[str]:
    """Play a seeded game and return its action texts."""
    rng = random.Random(seed)
    pos = Position.initial(variant)
    actions = []
    while not pos.over:
        if pos.phase == "opening":
            action = _random_opening(pos, rng)
            pos = pos.open(action)
            actions.append(str(action))
        else:
            pit = _choose(pos, rng)
            pos = pos.play(pit)
            actions.append(pit_name(pit))
    return actions


def playthrough(name: str, variant: Variant, actions: list[str]) -> list[str]:
    """The golden lines for a game: header, then per step position, legal, action, trace."""
    lines = [
        f"# kiothi-board golden playthrough {name}",
        f"variant: {json.dumps(variant.to_json(), sort_keys=True)}",
        f"actions: {' '.join(actions)}",
    ]
    pos = Position.initial(variant)
    for i, text in enumerate(actions):
        lines.append(f"position: {json.dumps(pos.to_json(), separators=(',', ':'))}")
        lines.append(f"legal: {' '.join(pit_name(p) for p in pos.legal_moves())}")
        lines.append(f"action {i}: {text}")
        if pos.phase == "opening":
            pos = pos.open(text)
        else:
            pos, trace = pos.play_traced(text)
            lines.append(f"trace: {trace.summary()}")
    lines.append(f"position: {json.dumps(pos.to_json(), separators=(',', ':'))}")
    lines.append(f"result: {pos.result}")
    return lines


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize(("name", "variant", "seed"), SPECS, ids=[s[0] for s in SPECS])
def test_golden_playthrough(
    name: str, variant: Variant, seed: int, core: Core, update_goldens: bool
) -> None:
    with native.forced(core):  # the legal moves and the game's end come from this core
        golden_playthrough(name, variant, seed, update_goldens and core == "python")


def golden_playthrough(name: str, variant: Variant, seed: int, update_goldens: bool) -> None:
    """Compare (or, when asked, rewrite) one golden playthrough."""
    path = GOLDENS / f"{name}.txt"
    if update_goldens:
        path.write_text("\n".join(playthrough(name, variant, generate(variant, seed))) + "\n")
    expected = path.read_text().splitlines()
    assert expected[1] == f"variant: {json.dumps(variant.to_json(), sort_keys=True)}"
    actions = expected[2].removeprefix("actions: ").split(" ")
    got = playthrough(name, variant, actions)
    for i, (line, want) in enumerate(zip(got, expected, strict=False)):
        assert line == want, f"{path.name}:{i + 1} differs"
    assert len(got) == len(expected)
    assert expected[-1].startswith("result: ")
    assert "wins" in expected[-1] or "draw" in expected[-1], "a golden is a complete game"
