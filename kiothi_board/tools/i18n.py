"""`kiothi-board i18n`: extract the words, update and compile the catalogs, check them.

extract: every tr/trn/trp (Python) and t/tn/tp (pages) call into kiothi.pot (babel.cfg).
update:  merge the template into each language's kiothi.po (new words come in empty).
compile: each kiothi.po to its kiothi.mo (what the board reads).
check:   every language complete (no empty or fuzzy entry), every placeholder kept, the
         plural forms there, and each .mo compiled from its .po; exit 1 naming what is wrong.
--dir:   compile or check a venue's own catalogs instead (`<state dir>/locale`): a language
         the package ships may be partial there (the venue's corrections), a new one not.
Extraction and compiling need Babel (a dev dependency); docs/translating.md is the guide.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kiothi_board.i18n import LOCALE_DIR
from kiothi_board.i18n.catalog import DOMAIN

__all__ = ["check", "main", "problems"]

ROOT = LOCALE_DIR.parents[2]
POT = LOCALE_DIR / f"{DOMAIN}.pot"
KEYWORDS = ("tr", "trn:1,2", "trp:1c,2", "t", "tn:1,2", "tp:1c,2", "N_")
_FIELD = re.compile(r"\{(\w+)[^{}]*\}")


def _babel(*args: str) -> int:
    cmd = [sys.executable, "-m", "babel.messages.frontend", *args]
    return subprocess.run(cmd, cwd=ROOT, check=False).returncode


def _po_files(folder: Path = LOCALE_DIR) -> list[Path]:
    return sorted(folder.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def extract(out: Path = POT) -> int:
    """Write the template (`out`) from the sources."""
    keys = [a for k in KEYWORDS for a in ("-k", k)]
    return _babel(
        "extract", "-F", "babel.cfg", *keys, "--no-default-keywords", "--sort-by-file",
        "--add-location=file", "-c", "TRANSLATORS:", "--project", "kiothi-board",
        "-o", str(out), ".",
    )  # fmt: skip


def update() -> int:
    """Merge the template into every language's catalog."""
    return _babel(
        "update",
        "-D",
        DOMAIN,
        "-i",
        str(POT),
        "-d",
        str(LOCALE_DIR),
        "--no-fuzzy-matching",
        "--ignore-obsolete",  # a word gone from the code leaves no dead entry behind
    )


def compile_all(folder: Path = LOCALE_DIR) -> int:
    """Compile every language's catalog in `folder`."""
    return _babel("compile", "-D", DOMAIN, "-d", str(folder.resolve()), "--use-fuzzy")


def _fields(text: str) -> set[str]:
    return set(_FIELD.findall(text))


def _entry_problems(lang: str, msg: Any, nplurals: int) -> list[str]:
    ident = msg.id if isinstance(msg.id, str) else msg.id[0]
    where = f"{lang}: {ident[:60]!r}"
    if msg.fuzzy:
        return [f"{where} is fuzzy"]
    strings = list(msg.string) if isinstance(msg.string, list | tuple) else [msg.string]
    if any(not s for s in strings):
        return [f"{where} is not translated"]
    out = []
    if isinstance(msg.id, tuple) and len(strings) != nplurals:
        out.append(f"{where} has {len(strings)} plural forms, the language has {nplurals}")
    want = _fields(msg.id if isinstance(msg.id, str) else msg.id[1])
    for s in strings:
        got = _fields(s)
        if got - want:
            out.append(f"{where} has a placeholder the source has not: {sorted(got - want)}")
        if want - got and not (isinstance(msg.id, tuple) and want - got <= {"n"}):
            out.append(f"{where} lacks the placeholder {sorted(want - got)}")
    return out


def problems(languages: Sequence[str] | None = None, folder: Path = LOCALE_DIR) -> list[str]:
    """Everything wrong with the catalogs in `folder`, one line each (empty: all complete).
    In a venue's folder a language the package ships may be partial (corrections)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with POT.open("rb") as f:
        template = read_po(f)
    wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    out: list[str] = []
    for po in _po_files(folder):
        lang = po.parent.parent.name
        if languages and lang not in languages:
            continue
        with po.open("rb") as f:
            cat = read_po(f, locale=lang)
        have = {m.id if isinstance(m.id, str) else m.id[0] for m in cat if m.id}
        if folder == LOCALE_DIR or not (LOCALE_DIR / lang).is_dir():
            out += [f"{lang}: {m[:60]!r} is missing (run update)" for m in sorted(wanted - have)]
        out += [f"{lang}: {m[:60]!r} is no longer used (run update)" for m in sorted(have - wanted)]
        for msg in cat:
            if msg.id:
                out += _entry_problems(lang, msg, cat.num_plurals)
        buf = io.BytesIO()
        write_mo(buf, cat)
        mo = po.with_suffix(".mo")
        if not mo.is_file() or _mo_messages(mo.read_bytes()) != _mo_messages(buf.getvalue()):
            out.append(f"{lang}: {mo.name} is not compiled from {po.name} (run compile)")
    return out


def _mo_messages(data: bytes) -> dict[Any, str]:
    import gettext

    t = gettext.GNUTranslations(io.BytesIO(data))
    return {k: v for k, v in t._catalog.items() if k != ""}  # type: ignore[attr-defined]


def check(folder: Path = LOCALE_DIR) -> int:
    """Print each problem; 0 when there is none."""
    found = problems(folder=folder)
    for line in found:
        print(line)
    print(f"i18n: {len(_po_files(folder))} catalogs in {folder}, {len(found)} problems")
    return 1 if found else 0


def main(argv: Sequence[str] | None = None) -> int:
    """`kiothi-board i18n extract|update|compile|check`."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board i18n", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("action", choices=("extract", "update", "compile", "check"))
    parser.add_argument(
        "--dir", type=Path, default=None, help="a venue's catalog folder (<state dir>/locale)"
    )
    args = parser.parse_args(argv)
    try:
        import babel  # noqa: F401
    except ImportError:
        print("kiothi-board i18n: needs Babel (pip install babel)", file=sys.stderr)
        return 2
    if args.dir is not None:
        if args.action not in ("compile", "check"):
            parser.error("--dir: only compile and check read a venue's folder")
        if not args.dir.is_dir():
            parser.error(f"--dir {args.dir}: no such folder")
        return compile_all(args.dir) if args.action == "compile" else check(args.dir)
    actions = {"extract": extract, "update": update, "compile": compile_all, "check": check}
    return actions[args.action]()
