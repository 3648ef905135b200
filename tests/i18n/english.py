"""Finding English where another language is shown: a word list made from the catalog's own
English (every message id), less the words the language's translations use themselves
(names, `Enter`, `Shift`), less the allowed set: pit names, numbers, the product's name."""

from __future__ import annotations

import functools
import re

from babel.messages.pofile import read_po

from kiothi_board.i18n import LOCALE_DIR
from kiothi_board.tools.i18n import POT

ALLOWED = frozenset({"kiothi", "kiothi-board", "ctrl-c", "enter", "shift", "english"})
_WORD = re.compile(r"[A-Za-zÀ-ÿ'’-]+")
_TAG = re.compile(r"<[^>]+>|\{\w+\}")


def _words(text: str) -> set[str]:
    return {w.strip("'’-").lower() for w in _WORD.findall(_TAG.sub(" ", text)) if len(w) > 2}


@functools.cache
def english_words(lang: str) -> frozenset[str]:
    """Words that, shown in `lang`, mean an untranslated English string."""
    with POT.open("rb") as f:
        ids = [m.id for m in read_po(f) if m.id]
    source = set().union(*(_words(i if isinstance(i, str) else " ".join(i)) for i in ids))
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "kiothi.po"
    with po.open("rb") as f:
        cat = read_po(f)
    own: set[str] = set()
    for m in cat:
        if m.id:
            strings = m.string if isinstance(m.string, tuple | list) else [m.string]
            for s in strings:
                own |= _words(s)
    return frozenset(source - own - ALLOWED)


def english_in(text: str, lang: str) -> list[str]:
    """The English words in `text` (pit names and numbers never count)."""
    bad = english_words(lang)
    return sorted(w for w in _words(text) if w in bad and not re.fullmatch(r"[sn]\d+", w))
