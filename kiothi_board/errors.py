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


class DriverUnavailableError(LinkError):
    """A driver the configuration names cannot be opened (the message names the config key)."""


class AudioError(KiothiError, OSError):
    """The voice cannot speak: espeak-ng or aplay missing, no audio device, a failed render."""


class FrameError(KiothiError, ValueError):
    """An LED frame has the wrong shape or a colour out of range."""


class StoreError(KiothiError, OSError):
    """The game store failed (database unreachable, unreadable or corrupt)."""


class StoreUsageError(KiothiError, ValueError):
    """A store call named an unknown game, wrote to a finished one, or passed non-JSON data."""


class UnknownGameError(StoreUsageError, KeyError):
    """A store call named a game id the store does not hold."""

    def __str__(self) -> str:
        # KeyError's __str__ would wrap the message in quotes.
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class ConflictError(KiothiError, RuntimeError):
    """A call that does not fit the game's state now (no game, not the human's turn)."""


class NotFoundError(KiothiError, KeyError):
    """A call named something that does not exist (a game id, a command)."""

    def __str__(self) -> str:
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class BadArgumentError(KiothiError, ValueError):
    """A call's argument is malformed or out of range (it names the argument)."""


class KiothiWarning(UserWarning):
    """Root of every warning issued by kiothi-board."""


class DriverFallback(KiothiWarning):
    """A driver set to `auto` could not be opened, so the simulator's fake is used instead."""


class PayloadError(KiothiError, ValueError):
    """A message refused before or while it was parsed: `reason` is `too_large`, `too_deep`
    or `not_json` (the counter it is dropped under)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
