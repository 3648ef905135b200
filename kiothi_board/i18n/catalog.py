"""The compiled catalogs: gettext translations per language, and their JSON export for pages.

Catalogs are read from folders, first to last: the venue's own (`<state dir>/locale`, set by
`use_folders` when the daemon starts) and then the package's (`LOCALE_DIR`). A language found
only in the venue's folder is the venue's own (Kikuyu, Kimeru: docs/translating.md); one in
both reads the venue's entries first and the package's for the rest (a venue's corrections).
Both survive an upgrade of the package, which never writes to the state directory.
"""

from __future__ import annotations

import functools
import gettext
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_LANGUAGE",
    "DOMAIN",
    "LANGUAGE_NAMES",
    "LOCALE_DIR",
    "NAME_CONTEXT",
    "SHIPPED",
    "available",
    "catalog_bytes",
    "catalog_json",
    "folders",
    "language_name",
    "translation",
    "use_folders",
    "venue_folder",
]

DOMAIN = "kiothi"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT_LANGUAGE = "en"
"""The source language: message ids are English, so English needs no catalog lookup."""
SHIPPED = ("en", "sw", "fr", "de")
NAME_CONTEXT = "language name"
"""The context of the catalog entry `English` whose translation is the language's own name
(`i18n.LANGUAGE_NAME`): a catalog names its language."""

_CODE = re.compile(r"^[a-z]{2,3}(_[A-Z]{2})?$")
_FOLDERS: list[Path] = [LOCALE_DIR]


def venue_folder(state_dir: str | Path) -> Path:
    """Where a venue keeps its own catalogs: `<state dir>/locale/<lang>/LC_MESSAGES/`."""
    return Path(state_dir) / "locale"


def use_folders(*first: Path) -> None:
    """Read catalogs from `first` (the venue's folder), then from the package's."""
    _FOLDERS[:] = [*(Path(f) for f in first if Path(f) != LOCALE_DIR), LOCALE_DIR]
    for cached in (translation, catalog_json, catalog_bytes):
        cached.cache_clear()


def folders() -> tuple[Path, ...]:
    """The catalog folders, first read first."""
    return tuple(_FOLDERS)


def _mo(folder: Path, lang: str) -> Path:
    return folder / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"


def available() -> tuple[str, ...]:
    """English and every language with a compiled catalog in a catalog folder."""
    found = {
        p.parent.parent.name
        for folder in _FOLDERS
        for p in folder.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")
        if _CODE.match(p.parent.parent.name)
    }
    return (DEFAULT_LANGUAGE, *sorted(found - {DEFAULT_LANGUAGE}))


@functools.cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalog of `lang` (English, the message ids themselves, if there is none): the
    first folder's entries, then the next folder's for what the first has not."""
    if lang == DEFAULT_LANGUAGE or not _CODE.match(lang):
        return gettext.NullTranslations()
    found: gettext.NullTranslations | None = None
    for folder in _FOLDERS:
        mo = _mo(folder, lang)
        if not mo.is_file():
            continue
        with mo.open("rb") as f:
            t = gettext.GNUTranslations(f)
        if found is None:
            found = t
        else:
            found.add_fallback(t)
    return found or gettext.NullTranslations()


def language_name(lang: str) -> str:
    """The language's name in itself, from its catalog (its code when the catalog has none)."""
    if lang == DEFAULT_LANGUAGE:
        return "English"
    name = translation(lang).pgettext(NAME_CONTEXT, "English")
    return lang if name == "English" else name


class _Names(Mapping[str, str]):
    """Each available language's name in itself, read from its catalog."""

    def __getitem__(self, lang: str) -> str:
        if lang not in available():
            raise KeyError(lang)
        return language_name(lang)

    def __iter__(self) -> Iterator[str]:
        return iter(available())

    def __len__(self) -> int:
        return len(available())


LANGUAGE_NAMES: Mapping[str, str] = _Names()
"""Each language's name in itself (the language button shows these), from the catalogs."""


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
        "name": language_name(lang),
        "plural": [_plural_index(t, n) for n in range(PLURAL_TABLE)],
        "messages": messages,
    }


@functools.cache
def catalog_bytes(lang: str) -> bytes:
    """`catalog_json(lang)` as the bytes the web door serves (made once)."""
    return json.dumps(catalog_json(lang), ensure_ascii=False, separators=(",", ":")).encode()
