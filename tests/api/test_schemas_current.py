"""The checked-in JSON Schemas are what `docs/api/make_schemas.py` makes (no silent drift)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_make_schemas_reproduces_the_checked_in_schemas(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "docs" / "api" / "make_schemas.py")],
        cwd=tmp_path, check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    made = {p.name: json.loads(p.read_text()) for p in (tmp_path / "docs/api/schemas").glob("*")}
    kept = {p.name: json.loads(p.read_text()) for p in (ROOT / "docs/api/schemas").glob("*")}
    assert sorted(made) == sorted(kept), "a schema file is made but not kept, or kept only"
    changed = [name for name in kept if made[name] != kept[name]]
    assert not changed, f"edit make_schemas.py, not the schemas: {changed}"
