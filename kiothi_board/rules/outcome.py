"""How a game ended: the `Outcome` of RULES.md R10–R13 (and its JSON form)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kiothi_board.errors import NotationError
from kiothi_board.rules.board import Side

__all__ = ["ENDS", "END_BY_PLAYERS", "End", "Outcome"]

End = Literal["no-moves", "repetition", "ply-limit", "resign", "agreement", "abandoned"]
ENDS: tuple[End, ...] = ("no-moves", "repetition", "ply-limit", "resign", "agreement", "abandoned")
END_BY_PLAYERS: frozenset[str] = frozenset({"resign", "agreement", "abandoned"})
"""R13: the endings the players choose off the board (a record replays them last)."""


@dataclass(frozen=True, slots=True, repr=False)
class Outcome:
    """One ending of R10–R13: the winner, the final captures, how it ended, who resigned.

    R10–R12 and `agreement`: R12 decides the winner from `captured`. `resign`: the opponent of
    `by` wins whatever the counts. `abandoned`: no winner. Build with `of`, `resign` or
    `abandoned` so the winner always follows the rules.
    """

    winner: Side | None
    captured: tuple[int, int]
    end: End
    by: Side | None = None

    def __post_init__(self) -> None:
        if self.end not in ENDS:
            raise NotationError(f"bad ending {self.end!r}: expected one of {', '.join(ENDS)}")
        if (self.end == "resign") != (self.by is not None):
            raise NotationError("'by' names who resigned, and only a resignation has it")
        if self.winner != _winner(self.captured, self.end, self.by):
            raise NotationError(f"the winner {self.winner} does not follow from {self!r}")

    # ----------------------------------------------------------------- construction
    @classmethod
    def of(cls, captured: tuple[int, int], end: End) -> Outcome:
        """An ending decided by the counts (R12: more captured seeds wins; 30–30 draws)."""
        return cls(_winner(captured, end, None), captured, end)

    @classmethod
    def resignation(cls, by: Side, captured: tuple[int, int]) -> Outcome:
        """`by` resigned (R13): the opponent wins whatever the counts."""
        return cls(by.other, captured, "resign", by)

    @classmethod
    def abandonment(cls, captured: tuple[int, int]) -> Outcome:
        """The game was left unfinished (R13): no winner."""
        return cls(None, captured, "abandoned")

    # ----------------------------------------------------------------- formats
    def to_json(self) -> dict[str, Any]:
        """`{"winner": "S"|"N"|null, "captured": [s, n], "end": …}` (+ `"by"` after a resign)."""
        out: dict[str, Any] = {
            "winner": None if self.winner is None else self.winner.letter,
            "captured": list(self.captured),
            "end": self.end,
        }
        if self.by is not None:
            out["by"] = self.by.letter
        return out

    @classmethod
    def from_json(cls, data: Any) -> Outcome:
        """Read a result object; `winner` may be omitted (it follows from the rest)."""
        if not isinstance(data, dict):
            raise NotationError(f"bad result {data!r}: expected an object")
        cap = data.get("captured")
        if (
            not isinstance(cap, list)
            or len(cap) != 2
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in cap)
        ):
            raise NotationError(f"bad result {data!r}: 'captured' must be [south, north]")
        end = data.get("end")
        if end not in ENDS:
            raise NotationError(f"bad result {data!r}: 'end' must be one of {', '.join(ENDS)}")
        by = data.get("by")
        if (end == "resign") != (by is not None) or by not in (None, "S", "N"):
            raise NotationError(f"bad result {data!r}: 'by' ('S' or 'N') goes with 'resign'")
        captured = (cap[0], cap[1])
        by_side = None if by is None else Side.parse(by)
        winner = _winner(captured, end, by_side)
        if "winner" in data:
            given = data["winner"]
            if given is not None and given not in ("S", "N"):
                raise NotationError(f"bad result {data!r}: 'winner' must be 'S', 'N' or null")
            if (None if given is None else Side.parse(given)) != winner:
                raise NotationError(f"bad result {data!r}: 'winner' disagrees with the ending")
        return cls(winner, captured, end, by_side)

    def __repr__(self) -> str:
        by = "" if self.by is None else f", by=Side.{self.by.letter}"
        winner = "None" if self.winner is None else f"Side.{self.winner.letter}"
        return f"Outcome({winner}, {self.captured!r}, {self.end!r}{by})"

    def __str__(self) -> str:
        who = "draw" if self.winner is None else f"{self.winner.letter} wins"
        if self.end == "abandoned":
            who = "no winner"
        by = "" if self.by is None else f" by {self.by.letter}"
        return f"{who} {self.captured[0]}-{self.captured[1]} ({self.end}{by})"


def _winner(captured: tuple[int, int], end: str, by: Side | None) -> Side | None:
    if end == "resign":
        return None if by is None else by.other
    if end == "abandoned":
        return None
    s, n = captured
    return Side.S if s > n else Side.N if n > s else None
