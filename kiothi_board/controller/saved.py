"""Whether the saved operator settings can be used: each value of the type it is saved as.

The store reads its settings row as JSON and knows nothing of what is in it; a flipped
byte can leave JSON that parses but holds a brightness of "x" or a level of [3]. The
daemon hands this check to the store (`SqliteStore(settings_check=…)`), which then treats
such a row like one it cannot read: the config's settings, `degraded`, one warning.
"""

from __future__ import annotations

from typing import Any, get_args

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.controller.settings import Mode, Pace
from kiothi_board.rules import Variant

__all__ = ["saved_settings_problem"]

_SIDES = ("S", "N", "SN", "NS", "")


def _value_problem(key: str, value: Any) -> str | None:
    """Why an operator setting's saved value cannot be used (None: it can)."""
    if key == "brightness":
        ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1
        return None if ok else f"{value!r:.40} is not a number from 0 to 1"
    if key in ("mode", "pace", "sides"):
        allowed = {"mode": get_args(Mode), "pace": get_args(Pace), "sides": _SIDES}[key]
        return None if value in allowed else f"{value!r:.40} is not one of {list(allowed)}"
    if key == "palette":
        return None if isinstance(value, str) else f"{value!r:.40} is not a palette's name"
    try:
        if key == "level":
            LevelChoice.parse(value)
        elif key == "variant":
            if not isinstance(value, dict):
                return f"{value!r:.40} is not an object"
            Variant.from_json(value)
    except (ValueError, TypeError, KeyError) as exc:
        return str(exc)
    return None


def saved_settings_problem(saved: dict[str, Any]) -> str | None:
    """Why the saved settings cannot be used (None: they can), naming the key."""
    operator = saved.get("operator", {})
    if not isinstance(operator, dict):
        return f"operator is a {type(operator).__name__}, not an object"
    for key, value in operator.items():
        why = _value_problem(str(key), value)
        if why is not None:
            return f"operator.{key}: {why}"
    return None
