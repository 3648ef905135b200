"""The compiled catalogs: gettext translations per language, and their JSON export for pages."""

from __future__ import annotations

import functools
import gettext
import json
import re
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_LANGUAGE",
    "DOMAIN",
    "LANGUAGE_NAMES",
    "LOCALE_DIR",
    "SHIPPED",
    "available",
    "catalog_bytes",
    "catalog_json",
    "translation",
]

DOMAIN = "kiothi"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT_LANGUAGE = "en"
"""The source language: message ids are English, so English needs no catalog lookup."""
SHIPPED = ("en", "sw", "fr", "de")
LANGUAGE_NAMES = {"en": "English", "sw": "Kiswahili", "fr": "Français", "de": "Deutsch"}
"""Each language's name in itself (the language button shows these)."""

_CODE = re.compile(r"^[a-z]{2,3}(_[A-Z]{2})?$")


def available() -> tuple[str, ...]:
    """English and every language with a compiled catalog in LOCALE_DIR (a venue's own too)."""
    found = sorted(
        p.parent.parent.name
        for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")
        if _CODE.match(p.parent.parent.name)
    )
    return (DEFAULT_LANGUAGE, *(c for c in found if c != DEFAULT_LANGUAGE))


@functools.cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalog of `lang` (English, the message ids themselves, if there is none)."""
    if lang == DEFAULT_LANGUAGE or not _CODE.match(lang):
        return gettext.NullTranslations()
    mo = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not mo.is_file():
        return gettext.NullTranslations()
    with mo.open("rb") as f:
        return gettext.GNUTranslations(f)


PLURAL_TABLE = 1000
"""The page gets each language's plural form index for 0…999 (no formula to evaluate under
the page's CSP); larger counts use the index of 100 + n % 100 (as the rules of the shipped
languages do)."""


def _plural_index(t: gettext.NullTranslations, n: int) -> int:
    plural = getattr(t, "plural", None)
    return int(plural(n)) if plural is not None else int(n != 1)


@functools.cache
def catalog_json(lang: str) -> dict[str, Any]:
    """The catalog of `lang` for a page: `messages` maps a message id (`context\\x04id` with a
    context) to its text, or to its list of plural forms; `plural` gives the form for 0…999."""
    t = translation(lang)
    messages: dict[str, Any] = {}
    raw: dict[Any, str] = getattr(t, "_catalog", {})
    for key, text in raw.items():
        if key == "":
            continue
        if isinstance(key, tuple):  # a plural form: (msgid, index)
            forms = messages.setdefault(key[0], [])
            while len(forms) <= key[1]:
                forms.append("")
            forms[key[1]] = text
        else:
            messages[key] = text
    return {
        "lang": lang,
        "name": LANGUAGE_NAMES.get(lang, lang),
        "plural": [_plural_index(t, n) for n in range(PLURAL_TABLE)],
        "messages": messages,
    }


@functools.cache
def catalog_bytes(lang: str) -> bytes:
    """`catalog_json(lang)` as the bytes the web door serves (made once)."""
    return json.dumps(catalog_json(lang), ensure_ascii=False, separators=(",", ":")).encode()
