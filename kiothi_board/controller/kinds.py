"""The kinds of a command's arguments: what each accepts, its limits, its JSON schema.

`read(value)` returns the typed value or raises (ValueError, TypeError or a project error);
the spec turns that into a `bad_args` message with `want()`. Values read are JSON-able, so
a read argument can be stored, sent and read again. Python callers (`Board.call`) may also
pass the typed values themselves (a `Side`, a `Variant`, a `LevelChoice`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.rules import PITS, Side, Variant, parse_pit

__all__ = [
    "Bool",
    "Choice",
    "Flag",
    "Integer",
    "Kind",
    "LevelArg",
    "Number",
    "Pit",
    "SideOf",
    "Text",
    "Topics",
    "VariantOf",
]


class Kind:
    """An argument's kind (see the module docstring)."""

    def read(self, value: Any) -> Any:
        """The typed value, or an exception."""
        raise NotImplementedError

    def want(self) -> str:
        """What a value must be, for a bad-argument message ("true or false")."""
        raise NotImplementedError

    def schema(self) -> dict[str, Any]:
        """The JSON schema of a value."""
        raise NotImplementedError

    def usage(self, name: str, required: bool) -> str:
        """The argument as the API reference writes it: `name` or `name?`, with limits."""
        return f"`{name}{'' if required else '?'}` ({self.want()})"


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Text(Kind):
    """A non-empty string of at most `max_len` characters."""

    max_len: int

    def read(self, value: Any) -> str:
        if not isinstance(value, str) or not value or len(value) > self.max_len:
            raise ValueError(value)
        return value

    def want(self) -> str:
        return f"a non-empty string of at most {self.max_len} characters"

    def usage(self, name: str, required: bool) -> str:
        return f"`{name}{'' if required else '?'}` (text, 1…{self.max_len} characters)"

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "minLength": 1, "maxLength": self.max_len}


@dataclass(frozen=True, slots=True)
class Choice(Kind):
    """One of a few strings; `options` may be a function (the catalogs installed now),
    and then the schema says only what such a string looks like (`pattern`)."""

    options: tuple[str, ...] | Callable[[], tuple[str, ...]]
    pattern: str | None = None

    def _options(self) -> tuple[str, ...]:
        return self.options() if callable(self.options) else self.options

    def read(self, value: Any) -> str:
        if not isinstance(value, str) or value not in self._options():
            raise ValueError(value)
        return value

    def want(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self._options())

    def usage(self, name: str, required: bool) -> str:
        if self.pattern is None:
            return Kind.usage(self, name, required)
        return f"`{name}{'' if required else '?'}` (a language of the board's catalogs)"

    def schema(self) -> dict[str, Any]:
        if self.pattern is not None:
            return {"type": "string", "pattern": self.pattern}
        return {"enum": list(self._options())}


@dataclass(frozen=True, slots=True)
class Flag(Kind):
    """True or false (absent or null: the command's default, often "toggle")."""

    def read(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise ValueError(value)
        return value

    def want(self) -> str:
        return "true, false or null"

    def schema(self) -> dict[str, Any]:
        return {"type": ["boolean", "null"]}


@dataclass(frozen=True, slots=True)
class Bool(Kind):
    """True or false, never null (an argument a request must give)."""

    def read(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise ValueError(value)
        return value

    def want(self) -> str:
        return "true or false"

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


@dataclass(frozen=True, slots=True)
class Integer(Kind):
    """An integer from `lo` to `hi`."""

    lo: int
    hi: int

    def read(self, value: Any) -> int:
        if not _int(value) or not self.lo <= value <= self.hi:
            raise ValueError(value)
        return int(value)

    def want(self) -> str:
        return f"an integer from {self.lo} to {self.hi}"

    def schema(self) -> dict[str, Any]:
        return {"type": "integer", "minimum": self.lo, "maximum": self.hi}


@dataclass(frozen=True, slots=True)
class Number(Kind):
    """A number from `lo` to `hi`."""

    lo: float
    hi: float

    def read(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(value)
        if not self.lo <= value <= self.hi:
            raise ValueError(value)
        return float(value)

    def want(self) -> str:
        return f"a number from {self.lo} to {self.hi}"

    def schema(self) -> dict[str, Any]:
        return {"type": "number", "minimum": self.lo, "maximum": self.hi}


@dataclass(frozen=True, slots=True)
class Pit(Kind):
    """A pit: a name S1…S10, N1…N10 (any case) or an index 0…19; read as the index."""

    def read(self, value: Any) -> int:
        if _int(value) and 0 <= value < PITS:
            return int(value)
        if isinstance(value, str) and len(value) <= 3:
            return parse_pit(value.upper())
        raise ValueError(value)

    def want(self) -> str:
        return "a pit name S1…S10, N1…N10 or an index 0…19"

    def schema(self) -> dict[str, Any]:
        return {"$ref": "common.json#/$defs/pit_in"}


@dataclass(frozen=True, slots=True)
class SideOf(Kind):
    """A side, `S` or `N` (or a `Side`); read as its letter."""

    def read(self, value: Any) -> str:
        if isinstance(value, Side):
            return value.letter
        return Side.parse(value).letter if isinstance(value, str) else _no(value)

    def want(self) -> str:
        return "one of 'S', 'N'"

    def schema(self) -> dict[str, Any]:
        return {"oneOf": [{"$ref": "common.json#/$defs/side"}, {"type": "null"}]}


@dataclass(frozen=True, slots=True)
class LevelArg(Kind):
    """A playing level (`LevelChoice.read`); read as the API writes it."""

    def read(self, value: Any) -> int | str:
        return LevelChoice.read(value).to_json()

    def want(self) -> str:
        return LevelChoice.want()

    def schema(self) -> dict[str, Any]:
        return LevelChoice.schema()


@dataclass(frozen=True, slots=True)
class VariantOf(Kind):
    """A variant as an object (`{"V3": true, "ply_limit": 40}`), or a `Variant`."""

    def read(self, value: Any) -> dict[str, Any]:
        if isinstance(value, Variant):
            return value.to_json()
        if not isinstance(value, dict):
            raise ValueError(value)
        return Variant.from_json(value).to_json()

    def want(self) -> str:
        return 'an object like {"V3": true, "ply_limit": 40}'

    def schema(self) -> dict[str, Any]:
        return {"$ref": "common.json#/$defs/variant"}


@dataclass(frozen=True, slots=True)
class Topics(Kind):
    """A list of event topics, each one of `options`."""

    options: tuple[str, ...]

    def read(self, value: Any) -> frozenset[str]:
        if not isinstance(value, list) or len(value) > len(self.options):
            raise ValueError(value)
        if not all(isinstance(t, str) and t in self.options for t in value):
            raise ValueError(value)
        return frozenset(value)

    def want(self) -> str:
        return "a list of " + ", ".join(self.options)

    def usage(self, name: str, required: bool) -> str:
        return f"`{name}{'' if required else '?'}` (a list of the topics below)"

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "items": {"enum": list(self.options)}}


def _no(value: Any) -> Any:
    raise ValueError(value)
