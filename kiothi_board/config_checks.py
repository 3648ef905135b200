"""The checks of single config values (each returns why a value is bad, or None).

Standard library only, so `kiothi_board.config` keeps to the schema and the file.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "MIN_PIN",
    "Check",
    "between",
    "broker_users",
    "names",
    "one_of",
    "pin",
    "secret",
    "strings",
    "topic_prefix",
    "weak_pin",
]

Check = Callable[[Any], str | None]  # returns the reason a value is bad, or None


def one_of(*choices: object) -> Check:
    """A check that the value is one of `choices`."""

    def check(value: Any) -> str | None:
        if value in choices:
            return None
        return "must be one of " + ", ".join(repr(c) for c in choices)

    return check


def between(lo: float, hi: float) -> Check:
    """A check that a number lies in [lo, hi]."""

    def check(value: Any) -> str | None:
        return None if lo <= value <= hi else f"must be between {lo} and {hi}"

    return check


def strings(value: Any) -> str | None:
    """A list of strings."""
    if all(isinstance(v, str) for v in value):
        return None
    return "must be a list of strings"


def topic_prefix(value: Any) -> str | None:
    """An MQTT topic prefix: no wildcards, no leading or trailing `/`."""
    if not value or any(c in value for c in "#+") or value.startswith("/") or value.endswith("/"):
        return "must be a topic prefix without wildcards or a leading or trailing /"
    return None


def broker_users(value: Any) -> str | None:
    """Broker user names, each one topic level (they become `cmd/<user>`)."""
    if not all(isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", v) for v in value):
        return "must be a list of broker user names (letters, digits, - or _; one topic level)"
    return None


def secret(min_len: int) -> Check:
    """A token: empty (off) or at least `min_len` characters."""

    def check(value: Any) -> str | None:
        if value == "":
            return None  # off
        if len(value) < min_len:
            return f"must be at least {min_len} characters (kiothi-board token makes one)"
        return None

    return check


MIN_PIN = 8
"""Digits of the staff PIN: 10^8 PINs at the limiter's at most 22,280 checked failures a
day (`api.auth_daily` plus the slow turns' 0.2/s) take over 6 years on average to find."""


def weak_pin(pin: str) -> str | None:
    """Why `pin` (ASCII digits) is one a guesser tries first, or None."""
    if len(set(pin)) == 1:
        return "one repeated digit"
    steps = {(int(b) - int(a)) % 10 for a, b in itertools.pairwise(pin)}
    if steps in ({1}, {9}):
        return "a run of consecutive digits"
    if len(set(pin[0::2])) == 1 and len(set(pin[1::2])) == 1:
        return "two alternating digits"
    return None


def pin(value: Any) -> str | None:
    """A staff PIN: empty (off), or MIN_PIN to 12 ASCII digits, not a guesser's first try."""
    if value == "":
        return None  # off
    if not (value.isascii() and value.isdigit()):
        return "must be ASCII digits 0-9 only"
    if not MIN_PIN <= len(value) <= 12:
        return f"must be {MIN_PIN} to 12 digits"
    weak = weak_pin(value)
    return None if weak is None else f"is too easy to guess ({weak}); choose another"


def names(value: Any) -> str | None:
    """Host names, none empty."""
    if not all(isinstance(v, str) and v for v in value):
        return "must be a list of host names"
    return None
