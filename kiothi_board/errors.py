"""The project's exceptions: one root, and branches that also subclass the matching built-in."""

from __future__ import annotations


class KiothiError(Exception):
    """Root of every error raised by kiothi-board."""


class RulesError(KiothiError, ValueError):
    """Something breaks the rules of Kiothi or their notation (RULES.md)."""


class NotationError(RulesError):
    """A pit name, move text, opening text or variant name could not be parsed."""


class IllegalMoveError(RulesError):
    """An action is not legal in the position it was applied to."""


class RecordError(RulesError):
    """A game record is malformed (wrong format, keys or types)."""


class ConfigError(KiothiError, ValueError):
    """A configuration file or value is invalid."""


class LinkError(KiothiError, OSError):
    """A hardware or transport link failed."""
