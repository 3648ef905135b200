"""The board's words in the visitor's language: message values and the catalogs they render from.

Every user-facing string is made with `tr` (a plain message), `trn` (one with plural forms)
or `trp` (one with a context, for short words that mean different things in different
places). Each returns a `Msg`: a `str` whose value is the English text (so logs, tests and
code that only ever needs English keep working), carrying its message id and named
placeholders so that a session, a page or the terminal can render it again in its own
language with `Msg.render(lang)`. The catalogs are gettext's (`locale/<lang>/LC_MESSAGES/
kiothi.po`, compiled to `.mo` beside them), read from the venue's folder in the state
directory first and the package's second; docs/translating.md says how to add a language.
"""

from __future__ import annotations

from kiothi_board.i18n.catalog import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LOCALE_DIR,
    SHIPPED,
    available,
    catalog_bytes,
    catalog_json,
    language_name,
    translation,
    use_folders,
    venue_folder,
)
from kiothi_board.i18n.msg import Joined, Msg, has_words, joined, localize, render, tr, trn, trp

# TRANSLATORS: the name of your language in itself (Kiswahili, Français, Gĩkũyũ): the
# language button shows it.
LANGUAGE_NAME = trp("language name", "English")
"""Each catalog's entry for its language's own name (`language_name` reads it)."""

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGE_NAME",
    "LANGUAGE_NAMES",
    "LOCALE_DIR",
    "SHIPPED",
    "Joined",
    "Msg",
    "available",
    "catalog_bytes",
    "catalog_json",
    "has_words",
    "joined",
    "language_name",
    "localize",
    "render",
    "tr",
    "translation",
    "trn",
    "trp",
    "use_folders",
    "venue_folder",
]
