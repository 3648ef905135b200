"""Issue 30 item 10: a stored or remote value reaches a page as text, never as markup. The
browser tests put markup into a stored record (tests/i18n/test_operator_games.py) and into a
board's fields on the fleet dashboard (tests/fleet/test_dashboard_detail.py); this one holds
every page script to it: no HTML is parsed from a string, but for the two the board ships
itself (a catalog's translation of a data-i18n element, the How-to-play page)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "kiothi_board"
PARSES = re.compile(r"\.(innerHTML|outerHTML)\s*=(?!=)|insertAdjacentHTML|document\.write")
ALLOWED = {
    ("api/web/i18n.js", "if (src.html !== null) el.innerHTML = t(src.html);"),
    ("api/web/twin.js", '$("howto-body").innerHTML = await r.text();'),
}


def test_no_page_script_parses_a_value_as_html() -> None:
    found = []
    for path in sorted(ROOT.glob("**/web/*.js")):
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.split("//")[0].strip()
            if PARSES.search(code) and (str(path.relative_to(ROOT)), code) not in ALLOWED:
                found.append(f"{path.relative_to(ROOT)}: {code}")
    assert found == []
