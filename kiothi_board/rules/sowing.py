"""The traced path: one sowing move told drop by drop as a `SowTrace` (R4–R9).

This is the readable reference implementation; the LED guide and the API tell its story.
The fast path (`fast.py`) must agree with it exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kiothi_board.errors import IllegalMoveError
from kiothi_board.rules.board import PITS, Side, opposite, owner, pit_name
from kiothi_board.rules.fast import MAX_LAPS
from kiothi_board.rules.variant import Variant

CaptureRule = Literal["R8 landing", "R8 opposite", "R9 chain"]


@dataclass(frozen=True, slots=True)
class Lap:
    """One lap: the pit lifted, the seeds in hand and every drop in order."""

    lifted: int
    seeds: int
    drops: tuple[int, ...]
    relay: bool
    flag_set: bool

    def to_json(self) -> dict[str, Any]:
        """This lap as JSON, pits by name."""
        return {
            "lifted": pit_name(self.lifted),
            "seeds": self.seeds,
            "drops": [pit_name(p) for p in self.drops],
            "relay": self.relay,
            "flag_set": self.flag_set,
        }


@dataclass(frozen=True, slots=True)
class Capture:
    """Seeds taken from one pit, and the rule that took them."""

    pit: int
    seeds: int
    rule: CaptureRule

    def to_json(self) -> dict[str, Any]:
        """This capture as JSON."""
        return {"pit": pit_name(self.pit), "seeds": self.seeds, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class Saved:
    """Seeds a capture rule would have taken but the pit was unsown (R7; V7 for the landing)."""

    pit: int
    seeds: int
    rule: CaptureRule

    def to_json(self) -> dict[str, Any]:
        """This saved pit as JSON."""
        return {"pit": pit_name(self.pit), "seeds": self.seeds, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class SowTrace:
    """The complete story of one sowing move, in the order the hand plays it.

    `crossing` is `(lap index, drop index)` of the first seed dropped into the opponent's
    row, or None; `crossed` is whether R8 counts the move as having crossed (under V6 only
    the final lap counts).
    """

    side: Side
    pit: int
    laps: tuple[Lap, ...]
    crossing: tuple[int, int] | None
    crossed: bool
    landing: int
    captures: tuple[Capture, ...]
    saved: tuple[Saved, ...]
    flags_set: tuple[int, ...]
    board_before: tuple[int, ...]
    board_after: tuple[int, ...]

    @property
    def captured(self) -> int:
        """Seeds captured by this move."""
        return sum(c.seeds for c in self.captures)

    @property
    def relays(self) -> int:
        """The number of relays (laps after the first)."""
        return len(self.laps) - 1

    @property
    def drops(self) -> int:
        """Seeds dropped in all laps."""
        return sum(len(lap.drops) for lap in self.laps)

    def summary(self) -> str:
        """One line: laps, drops, crossing, landing and captures, for goldens and logs."""
        caps = " ".join(f"{pit_name(c.pit)}:{c.seeds}({c.rule})" for c in self.captures)
        saved = " ".join(f"{pit_name(s.pit)}:{s.seeds}({s.rule})" for s in self.saved)
        cross = "-" if self.crossing is None else f"{self.crossing[0]}.{self.crossing[1]}"
        parts = [
            f"{pit_name(self.pit)} laps={len(self.laps)} drops={self.drops}",
            f"cross={cross}{'' if self.crossed else '(no)'}",
            f"land={pit_name(self.landing)}",
            f"cap=[{caps}]",
        ]
        if saved:
            parts.append(f"saved=[{saved}]")
        if self.flags_set:
            parts.append("sown+=" + ",".join(pit_name(p) for p in self.flags_set))
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The trace as JSON (what the API sends with a `move` event)."""
        return {
            "side": self.side.letter,
            "pit": pit_name(self.pit),
            "laps": [lap.to_json() for lap in self.laps],
            "crossing": list(self.crossing) if self.crossing else None,
            "crossed": self.crossed,
            "landing": pit_name(self.landing),
            "captures": [c.to_json() for c in self.captures],
            "saved": [s.to_json() for s in self.saved],
            "flags_set": [pit_name(p) for p in self.flags_set],
            "board_before": list(self.board_before),
            "board_after": list(self.board_after),
        }


def trace_move(
    board: Sequence[int], sown: Sequence[bool], side: Side, pit: int, variant: Variant
) -> SowTrace:
    """Sow `pit` for `side` drop by drop and tell it as a `SowTrace`.

    Raises IllegalMoveError for a pit that is not the mover's, an empty pit or an endless
    move (R4, R6). The caller checks the phase.
    """
    if not 0 <= pit < PITS:
        raise IllegalMoveError(f"pit index {pit!r} out of range")
    name = pit_name(pit)
    if owner(pit) != side:
        raise IllegalMoveError(f"{name} is not {side.letter}'s pit (R4)")
    if board[pit] == 0:
        raise IllegalMoveError(f"{name} is empty (R4)")
    b = list(board)
    flags = list(sown)
    before = tuple(board)
    laps: list[Lap] = []
    flags_set: list[int] = []
    crossing: tuple[int, int] | None = None
    crossed_any = False
    crossed_last = False
    lifted = pit
    relay = False
    while True:
        if len(laps) == MAX_LAPS:
            raise IllegalMoveError(
                f"{name} is an endless move: not ended after {MAX_LAPS} laps (R6)"
            )
        seeds = b[lifted]
        b[lifted] = 0
        # R7: the owner lifting to sow (first lap or a relay of their own move) sows the pit;
        # V4: any player's sowing from a pit does.
        flag_set = False
        if (variant.V4 or owner(lifted) == side) and not flags[lifted]:
            flags[lifted] = True
            flags_set.append(lifted)
            flag_set = True
        drops: list[int] = []
        at = lifted
        crossed_last = False
        for _ in range(seeds):
            at = (at + 1) % PITS
            if variant.V3 and seeds >= PITS and at == lifted:
                at = (at + 1) % PITS
            b[at] += 1
            if owner(at) != side:
                crossed_last = True
                if crossing is None:
                    crossing = (len(laps), len(drops))
            drops.append(at)
        crossed_any = crossed_any or crossed_last
        laps.append(Lap(lifted, seeds, tuple(drops), relay, flag_set))
        if b[at] == 1:  # R5: it fell into a pit that was empty before this drop
            landing = at
            break
        lifted = at  # R5: relay, in either row
        relay = True
    crossed = crossed_last if variant.V6 else crossed_any
    captures: list[Capture] = []
    saved: list[Saved] = []
    if crossed and owner(landing) == side:  # R8.3
        # Read every condition on the board after the last drop, before removing any seed (R9).
        after_drop = list(b)
        if not variant.V7 or flags[landing]:
            captures.append(Capture(landing, 1, "R8 landing"))
        else:
            saved.append(Saved(landing, 1, "R8 landing"))
        opp = opposite(landing)
        if after_drop[opp]:
            if flags[opp]:
                captures.append(Capture(opp, after_drop[opp], "R8 opposite"))
            else:
                saved.append(Saved(opp, after_drop[opp], "R8 opposite"))
            if landing == side.leftmost:  # R9: the leftmost chain
                run = range(opp - 1, side.other.leftmost - 1, -1)
                for r in run:
                    if not after_drop[r]:
                        break
                    if flags[r]:
                        captures.append(Capture(r, after_drop[r], "R9 chain"))
                    else:
                        saved.append(Saved(r, after_drop[r], "R9 chain"))
                        if variant.V8:
                            break
        for c in captures:
            b[c.pit] -= c.seeds
    return SowTrace(
        side=side,
        pit=pit,
        laps=tuple(laps),
        crossing=crossing,
        crossed=crossed,
        landing=landing,
        captures=tuple(captures),
        saved=tuple(saved),
        flags_set=tuple(flags_set),
        board_before=before,
        board_after=tuple(b),
    )


def apply_flags(sown: Sequence[bool], trace: SowTrace) -> tuple[bool, ...]:
    """The sown flags after a traced move."""
    flags = list(sown)
    for p in trace.flags_set:
        flags[p] = True
    return tuple(flags)


__all__ = [
    "Capture",
    "CaptureRule",
    "Lap",
    "Saved",
    "SowTrace",
    "apply_flags",
    "trace_move",
]
