"""The docs' instruction table and the web twin's How-to-play pictures are up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiothi_board.tools import guide_pictures
from kiothi_board.tools.guide_words import BEGIN, END, rows, table, write_table

ROOT = Path(__file__).resolve().parents[2]


def test_docs_table_is_the_generated_one() -> None:
    doc = (ROOT / "docs" / "led-guide.md").read_text()
    assert table() in doc, "run: kiothi-board guide-pictures --table docs/led-guide.md"
    states = [state for state, _, _ in rows()]
    for needed in ("idle", "opening", "relay", "capture", "restore", "check", "over", "blank"):
        assert needed in states
    assert all(text and "\n" not in text for _, _, text in rows())


def test_write_table_replaces_between_markers(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_text(f"head\n{BEGIN}\nSTALE\n{END}\ntail\n")
    write_table(path)
    text = path.read_text()
    assert text.startswith("head\n") and text.endswith("\ntail\n") and "STALE" not in text
    path.write_text("no markers")
    with pytest.raises(ValueError, match="markers"):
        write_table(path)


def test_howto_pictures_are_the_guide_renderers(tmp_path: Path) -> None:
    from PIL import Image, ImageChops

    assert guide_pictures.main(["--howto", str(tmp_path)]) == 0
    for stem in guide_pictures.HOWTO:
        fresh = Image.open(tmp_path / f"{stem}.png").convert("RGB")
        kept = Image.open(guide_pictures.HOWTO_DIR / f"{stem}.png").convert("RGB")
        assert ImageChops.difference(fresh, kept).getbbox() is None, stem
        html = (guide_pictures.HOWTO_DIR.parent / "howto.html").read_text()
        assert f"/static/howto/{stem}.png" in html
