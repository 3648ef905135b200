"""The catalogs: every shipped language complete, placeholders kept, plurals right, and the
template and the compiled files up to date with the sources (docs/translating.md)."""

from __future__ import annotations

import gettext
import io
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from kiothi_board.i18n import LOCALE_DIR, SHIPPED, Msg, available, catalog_json, tr, trn, trp
from kiothi_board.tools import i18n as tool


def test_every_shipped_language_is_complete_and_compiled() -> None:
    assert set(SHIPPED) <= set(available())
    assert tool.problems() == []


def _ids(path: Path) -> set[tuple[str | None, str]]:
    with path.open("rb") as f:
        return {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in read_po(f) if m.id}


def test_the_template_holds_every_word_of_the_sources(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.pot"
    assert tool.extract(fresh) == 0  # as `kiothi-board i18n extract` does (babel.cfg)
    found, pot = _ids(fresh), _ids(tool.POT)
    assert found - pot == set(), "run kiothi-board i18n extract, update, translate, compile"
    assert pot - found == set(), "words no longer used: run kiothi-board i18n extract and update"
    assert ("side", "South") in found and "How to play" in {i for _, i in found}  # py, html


def _po(text: str, lang: str = "de") -> list[str]:
    cat = read_po(io.StringIO(text), locale=lang)
    out: list[str] = []
    for m in cat:
        if m.id:
            out += tool._entry_problems(lang, m, cat.num_plurals)
    return out


HEAD = 'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'


def test_the_check_names_untranslated_fuzzy_and_placeholder_faults() -> None:
    assert _po(HEAD + 'msgid "{pit} is empty."\nmsgstr ""\n') == [
        "de: '{pit} is empty.' is not translated"
    ]
    assert _po(HEAD + '#, fuzzy\nmsgid "{pit} is empty."\nmsgstr "{pit} ist leer."\n') == [
        "de: '{pit} is empty.' is fuzzy"
    ]
    assert _po(HEAD + 'msgid "{pit} is empty."\nmsgstr "Die Mulde ist leer."\n') == [
        "de: '{pit} is empty.' lacks the placeholder ['pit']"
    ]
    assert _po(HEAD + 'msgid "{pit} is empty."\nmsgstr "{pit} {n} ist leer."\n') == [
        "de: '{pit} is empty.' has a placeholder the source has not: ['n']"
    ]
    plural = 'msgid "{n} seed"\nmsgid_plural "{n} seeds"\nmsgstr[0] "{n} Samen"\n'
    assert _po(HEAD + plural) == ["de: '{n} seed' is not translated"]
    assert _po(HEAD + plural + 'msgstr[1] "{n} Samen"\n') == []


@pytest.mark.parametrize("lang", [lang for lang in SHIPPED if lang != "en"])
def test_plural_forms_follow_the_language(lang: str) -> None:
    t = gettext.translation("kiothi", LOCALE_DIR, languages=[lang])
    one, many = (trn("{n} seed", "{n} seeds", n).render(lang) for n in (1, 5))
    assert "1" in one and "5" in many
    assert t.ngettext("{n} seed", "{n} seeds", 1) != "{n} seed"
    if lang == "fr":  # French: 0 and 1 are singular
        assert trn("{n} seed", "{n} seeds", 0).render("fr") == "0 graine"
        assert many == "5 graines"
    table = catalog_json(lang)["plural"]
    assert len(table) == 1000 and table[1] == 0 and table[5] != 0


def test_a_msg_is_its_english_and_renders_in_each_language() -> None:
    side = trp("side", "South")
    msg = tr("{side} to move.", side=side)
    assert isinstance(msg, str) and msg == "South to move." and isinstance(msg, Msg)
    assert msg.render("de") == "Süd ist am Zug."
    assert msg.render("sw") == "Zamu ya Kusini."
    assert msg.render("fr") == "Au tour de Sud."
    assert msg.render("xx") == "South to move."  # no catalog: English


def test_the_page_export_has_every_message_of_the_language() -> None:
    for lang in SHIPPED:
        data = catalog_json(lang)
        assert data["lang"] == lang and data["name"]
        if lang != "en":
            assert data["messages"]["side\x04South"]
            assert isinstance(data["messages"]["{n} seed"], list)
