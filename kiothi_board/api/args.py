"""Strict readers for a command's `args`: wrong types and unknown keys are `bad_args`."""

from __future__ import annotations

from typing import Any

from kiothi_board.ai.levels import MAX_LEVEL, LevelChoice
from kiothi_board.api.protocol import ApiError
from kiothi_board.errors import RulesError
from kiothi_board.rules import Variant, parse_pit

__all__ = ["Args", "short"]

_MODES = ("two", "ai", "demo")
_PACES = ("step", "flow", "instant")


class Args:
    """Strict readers for a command's `args`: wrong types and unknown keys are `bad_args`."""

    def __init__(self, cmd: str, args: dict[str, Any], topics: tuple[str, ...] = ()) -> None:
        self._cmd = cmd
        self._topics = topics
        self._args = args
        self._seen: set[str] = set()

    def __contains__(self, key: str) -> bool:
        return key in self._args

    def _bad(self, key: str, want: str) -> ApiError:
        got = short(repr(self._args.get(key)))
        return ApiError("bad_args", f"{self._cmd}: {key} must be {want}, got {got}")

    def _get(self, key: str) -> Any:
        self._seen.add(key)
        return self._args.get(key)

    def done(self) -> None:
        extra = set(self._args) - self._seen
        if extra:
            raise ApiError("bad_args", f"{self._cmd}: unknown args {sorted(extra)!r}")

    def text(self, key: str, max_len: int) -> str:
        value = self._get(key)
        if not isinstance(value, str) or not value or len(value) > max_len:
            raise self._bad(key, f"a non-empty string of at most {max_len} characters")
        return value

    def opt_text(self, key: str, max_len: int) -> str | None:
        return None if self._get(key) is None else self.text(key, max_len)

    def choice(self, key: str, options: tuple[str, ...]) -> str:
        value = self._get(key)
        if value not in options or not isinstance(value, str):
            raise self._bad(key, "one of " + ", ".join(repr(o) for o in options))
        return value

    def opt_choice(self, key: str, options: tuple[str, ...]) -> str | None:
        return None if self._get(key) is None else self.choice(key, options)

    def boolean(self, key: str) -> bool:
        value = self._get(key)
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def opt_bool(self, key: str) -> bool | None:
        value = self._get(key)
        if value is not None and not isinstance(value, bool):
            raise self._bad(key, "true, false or null")
        return value

    def integer(self, key: str, lo: int, hi: int, default: int | None = None) -> int:
        value = self._get(key)
        if value is None and default is not None:
            return default
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise self._bad(key, f"an integer from {lo} to {hi}")
        return value

    def level(self) -> LevelChoice:
        """The `level` argument: 1…MAX_LEVEL or "adaptive"."""
        value = self._get("level")
        if value != "adaptive" and (not isinstance(value, int) or isinstance(value, bool)):
            raise self._bad("level", f'an integer from 1 to {MAX_LEVEL} or "adaptive"')
        try:
            return LevelChoice.parse(value)
        except ValueError:
            raise self._bad("level", f'an integer from 1 to {MAX_LEVEL} or "adaptive"') from None

    def number(self, key: str, lo: float, hi: float) -> float:
        value = self._get(key)
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not lo <= value <= hi:
            raise self._bad(key, f"a number from {lo} to {hi}")
        return float(value)

    def pit(self, key: str) -> int:
        value = self._get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 20:
            return value
        if isinstance(value, str) and len(value) <= 3:
            try:
                return parse_pit(value.upper())
            except (RulesError, ValueError):
                pass
        raise self._bad(key, "a pit name S1…S10, N1…N10 or an index 0…19")

    def topics(self) -> frozenset[str] | None:
        value = self._get("topics")
        if value is None:
            return None
        if (
            not isinstance(value, list)
            or len(value) > len(self._topics)
            or not all(isinstance(t, str) and t in self._topics for t in value)
        ):
            raise self._bad("topics", "a list of " + ", ".join(self._topics))
        return frozenset(value)

    def game_settings(self, *, required: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "mode" in self:
            out["mode"] = self.choice("mode", _MODES)
        if "sides" in self:
            sides = self._get("sides")
            if sides not in ("S", "N", "SN", "NS", ""):
                raise self._bad("sides", "'S', 'N', 'SN' or ''")
            out["sides"] = sides
        if "level" in self:
            out["level"] = self.level().to_json()
        if "pace" in self:
            out["pace"] = self.choice("pace", _PACES)
        if "variant" in self:
            variant = self._get("variant")
            if not isinstance(variant, dict):
                raise self._bad("variant", 'an object like {"V3": true, "ply_limit": 40}')
            try:
                out["variant"] = Variant.from_json(variant).to_json()
            except (RulesError, ValueError, TypeError) as exc:
                raise ApiError("bad_args", f"{self._cmd}: variant: {short(str(exc))}") from exc
        return out


def short(text: str, limit: int = 120) -> str:
    """Quote input in messages, but never echo a whole flood back."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
