"""A number and its unit never part at a line's end (the countdown wrapped "8 / s." at
320 px): in every catalog, a count or a figure before a unit of time is joined to it by a
no-break space, and so is Swahili's "sekunde" to the number after it."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po

LOCALE = Path(__file__).resolve().parents[2] / "kiothi_board" / "i18n" / "locale"
APART = re.compile(r"(\{\w+\}|\d) (s|min|h|ms)\b|\bsekunde (\{\w+\}|\d)")


def _texts() -> list[tuple[str, str]]:
    out = []
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/kiothi.po")):
        with po.open("rb") as f:
            for m in read_po(f):
                for text in (m.id, m.string):
                    for t in text if isinstance(text, tuple | list) else (text,):
                        if t:
                            out.append((po.parts[-3], t))
    return out


def test_numbers_keep_their_units() -> None:
    texts = _texts()
    assert any("\u00a0s." in t for _, t in texts), "the countdown is in the catalogs"
    apart = [(lang, t) for lang, t in texts if APART.search(t)]
    assert apart == [], apart
