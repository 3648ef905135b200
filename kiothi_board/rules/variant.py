"""Rule variants V1…V8 of RULES.md and the optional ply limit of R11."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from kiothi_board.errors import NotationError

_DESCRIPTIONS = {
    "V1": "each player lifts up to 2 pits in the opening",
    "V2": "no opening phase",
    "V3": "a lap of 20 or more seeds skips the pit it was lifted from",
    "V4": "any player's sowing from a pit makes it sown",
    "V5": "only pits holding seeds when sowing starts are protected",
    "V6": "only the final lap counts as having crossed",
    "V7": "the landing seed is safe while the landing pit is unsown",
    "V8": "an unsown pit ends the leftmost chain",
}


@dataclass(frozen=True, slots=True, repr=False)
class Variant:
    """The rules in force: each flag turns on one variant; all off is the standard game.

    `ply_limit` is R11's optional tournament limit (None: no limit); in a record it is
    written in the `variant` object as `"ply_limit": N`.
    """

    V1: bool = False
    V2: bool = False
    V3: bool = False
    V4: bool = False
    V5: bool = False
    V6: bool = False
    V7: bool = False
    V8: bool = False
    ply_limit: int | None = None

    def __post_init__(self) -> None:
        if self.ply_limit is not None and (
            not isinstance(self.ply_limit, int)
            or isinstance(self.ply_limit, bool)
            or self.ply_limit < 1
        ):
            raise NotationError(f"ply_limit must be a positive integer, got {self.ply_limit!r}")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Variant:
        """Read the `variant` object of a record (`{"V3": true}`); unknown keys are errors."""
        if not isinstance(data, Mapping):
            raise NotationError(f"variant must be an object, got {data!r}")
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key in _DESCRIPTIONS:
                if not isinstance(value, bool):
                    raise NotationError(f"variant {key} must be true or false, got {value!r}")
                kwargs[key] = value
            elif key == "ply_limit":
                kwargs[key] = value
            else:
                raise NotationError(f"unknown variant {key!r}: expected V1…V8 or ply_limit")
        return cls(**kwargs)

    def to_json(self) -> dict[str, Any]:
        """The `variant` object of a record: only what differs from the standard rules."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "ply_limit":
                if value is not None:
                    out["ply_limit"] = value
            elif value:
                out[f.name] = True
        return out

    @classmethod
    def parse(cls, text: str) -> Variant:
        """Read a comma-separated list such as `V3,V7` or `V1,ply_limit=200` (CLI form)."""
        kwargs: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = part.partition("=")
            if name in _DESCRIPTIONS and not value:
                kwargs[name] = True
            elif name == "ply_limit" and value.isdigit():
                kwargs[name] = int(value)
            else:
                raise NotationError(
                    f"bad variant {part!r} in {text!r}: expected V1…V8 or ply_limit=N"
                )
        return cls(**kwargs)

    def __repr__(self) -> str:
        args = [f"{k}=True" for k in _DESCRIPTIONS if getattr(self, k)]
        if self.ply_limit is not None:
            args.append(f"ply_limit={self.ply_limit}")
        return f"Variant({', '.join(args)})"

    def __str__(self) -> str:
        names = [k for k in _DESCRIPTIONS if getattr(self, k)]
        if self.ply_limit is not None:
            names.append(f"ply_limit={self.ply_limit}")
        return ",".join(names) or "standard"

    @staticmethod
    def describe(name: str) -> str:
        """One line on what a variant changes."""
        return _DESCRIPTIONS[name]


STANDARD = Variant()
