"""The actions of a remote match: what one board tells the other, as typed values.

Every action carries the match id, its sequence number in the match's log and the hash of
the position after it, so the receiving board can check it before applying it (`match.py`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal, get_args

from kiothi_board.errors import KiothiError
from kiothi_board.rules import Position, Side

__all__ = ["KINDS", "PLAYS", "Action", "BadActionError", "Kind", "position_hash"]


class BadActionError(KiothiError, ValueError):
    """A message on a match's topics that is not a well-formed action or spec."""


Kind = Literal[
    "opening", "move", "resign", "offer", "accept", "takeback", "takeback_accept", "claim"
]
KINDS: tuple[str, ...] = get_args(Kind)
PLAYS: frozenset[str] = frozenset(KINDS[:2])
"""The kinds that play the board (an opening action, a move); the rest end or ask."""
_MAX_VALUE = 400  # an opening action of 20 lifts with their places fits


def position_hash(position: Position) -> str:
    """The position's hash: 16 hex digits of SHA-256 over its lossless JSON (history
    included, so a repeated board at another ply hashes apart)."""
    return hashlib.sha256(position.dumps(full=True).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Action:
    """One action of one side: `value` is the opening action's or the move's text, the
    claim's `win`/`draw`, or empty."""

    match: str
    seq: int
    kind: Kind
    side: Side
    value: str
    hash: str

    def to_json(self) -> dict[str, Any]:
        """The action on the bus."""
        return {
            "match": self.match,
            "seq": self.seq,
            "kind": self.kind,
            "side": self.side.letter,
            "value": self.value,
            "hash": self.hash,
        }

    def dumps(self) -> str:
        """One line of JSON, keys in a fixed order (both boards write the same bytes)."""
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Read an action from the bus; a BadActionError says what is wrong."""
        if not isinstance(data, dict) or set(data) != set(_FIELDS):
            raise BadActionError(f"not an action: {str(data)[:80]!r}")
        match, seq, kind, side = data["match"], data["seq"], data["kind"], data["side"]
        value, digest = data["value"], data["hash"]
        if not isinstance(match, str) or not 0 < len(match) <= 64:
            raise BadActionError(f"bad match id {str(match)[:80]!r}")
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 10**6:
            raise BadActionError(f"bad sequence number {seq!r}")
        if kind not in KINDS:
            raise BadActionError(f"bad action kind {str(kind)[:40]!r}")
        if side not in ("S", "N"):
            raise BadActionError(f"bad side {str(side)[:10]!r}")
        if not isinstance(value, str) or len(value) > _MAX_VALUE:
            raise BadActionError("bad action value")
        if not isinstance(digest, str) or len(digest) != 16:
            raise BadActionError(f"bad hash {str(digest)[:40]!r}")
        return cls(match, seq, kind, Side.parse(side), value, digest)

    @classmethod
    def loads(cls, text: str | bytes) -> Action:
        """Read one line of JSON from the bus."""
        try:
            return cls.from_json(json.loads(text))
        except (ValueError, UnicodeDecodeError) as exc:
            if isinstance(exc, BadActionError):
                raise
            raise BadActionError(f"not JSON: {exc}") from None


_FIELDS = ("match", "seq", "kind", "side", "value", "hash")
