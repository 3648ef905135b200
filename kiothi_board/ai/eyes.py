"""`Eyes`: a beginner's blind spots, as the weak levels play them (`human.py` says how).

A value of its own, so the ladder (`levels.py`) can be read without the search, the
evaluation or the rules' fast path (the config checks a level with `LevelChoice`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Eyes"]


@dataclass(frozen=True, slots=True)
class Eyes:
    """A beginner's blind spots (see `kiothi_board/ai/human.py`'s docstring): how many relays
    a sowing may take before the player loses count, whether they see the R9 chain, how
    often they grab the first capture seen, whether they look at the reply at all."""

    relays_seen: int
    sees_chain: bool
    grab: float
    looks_ahead: bool
