"""Every built-in player by its match spec: `level:1`…`level:9`, `level:baseline`,
`level:adaptive` and the novices (`novice:random`, `novice:greedy`, `novice:greedy-<p>`)."""

from __future__ import annotations

from kiothi_board.ai.adaptive import AdaptivePlayer
from kiothi_board.ai.player import AIPlayer
from kiothi_board.ai.specs import plain_player

SPEC_HELP = "level:1…9, level:baseline, level:adaptive, novice:random, novice:greedy[-P]"


def is_builtin(spec: str) -> bool:
    """True for a spec this module builds (it may still be malformed)."""
    return spec.startswith(("level:", "novice:"))


def builtin_player(spec: str, seed: int = 0) -> AIPlayer:
    """The player named by `spec`; ValueError naming the spec when it is not one."""
    try:
        if spec == "level:adaptive":
            return AdaptivePlayer(seed)
        if is_builtin(spec):
            return plain_player(spec, seed)
    except ValueError as exc:
        raise ValueError(f"bad engine {spec!r}: {exc}") from None
    raise ValueError(f'bad engine {spec!r}: expected {SPEC_HELP} or cmd:"…"')
