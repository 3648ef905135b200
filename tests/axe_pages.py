"""axe-core (npm, tests/axe, installed by `make setup`) injected into a page by Playwright."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


def violations(page: Any) -> list[str]:
    """The page's serious and critical axe-core violations, one line each (empty: none).

    The script is added through DevTools (`add_script_tag(content=…)` would be an inline
    script, which the pages' CSP forbids), then run on the whole document."""
    assert AXE.exists(), f"{AXE} is missing: run `make setup` (npm ci in tests/axe)"
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;window.__axe = axe; true")
    found = page.evaluate(
        """async () => {
        const r = await window.__axe.run(document, { resultTypes: ["violations"] });
        return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ")) }));
        }"""
    )
    return [
        f"{v['impact']} {v['id']}: {v['help']} — {', '.join(v['nodes'])}"
        for v in found
        if v["impact"] in SERIOUS
    ]
