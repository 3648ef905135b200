"""The plain built-in players by match spec: `level:1`…`level:9` (or a level's name),
`level:baseline` and the novices. Shared by the roster (`roster.builtin_player`, which adds
`level:adaptive`) and the adaptive level's rungs, so a spec is parsed in one place."""

from __future__ import annotations

from kiothi_board.ai.novice import NovicePlayer
from kiothi_board.ai.player import AIPlayer, baseline_player
from kiothi_board.clock import Clock


def plain_player(spec: str, seed: int = 0, *, clock: Clock | None = None) -> AIPlayer:
    """The non-adaptive player named by `spec`; ValueError when it is not one.

    `clock` is given to the searching levels (novices answer at once and need none)."""
    kind, _, which = spec.partition(":")
    if kind == "novice":
        return NovicePlayer(which, seed)
    if kind == "level" and which != "adaptive":
        if which == "baseline":
            return baseline_player(seed, clock=clock)
        return AIPlayer(which, seed, clock=clock)
    raise ValueError(f"not a plain engine spec: {spec!r}")
