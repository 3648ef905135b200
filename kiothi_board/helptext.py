"""`--help` that shows every option's default (the commands a person runs, issue 24)."""

from __future__ import annotations

import argparse

__all__ = ["DefaultsFormatter", "RawDefaultsFormatter"]


class DefaultsFormatter(argparse.HelpFormatter):
    """Adds "(default: X)" to an option's help when it has a real default (not None, not a
    flag's False) and its help does not already say it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            action.option_strings
            and text != argparse.SUPPRESS
            and default not in (None, False, True, argparse.SUPPRESS)
            and "default" not in text
        ):
            text += " (default: %(default)s)"
        return text


class RawDefaultsFormatter(DefaultsFormatter, argparse.RawDescriptionHelpFormatter):
    """The same, keeping the description's own line breaks."""
