"""docs/exhibition.md: every `/metrics` scrape, loopback included, needs the token (issue 21:
the page said a loopback scrape needed none; the code was right, the page is now)."""

from __future__ import annotations

from pathlib import Path

from tests.api.daemon_proc import DaemonProc
from tests.api.wire import http

TOKEN = "metrics-test-token-0123456789"
DOC = Path(__file__).resolve().parents[2] / "docs" / "exhibition.md"


def test_a_loopback_scrape_needs_the_token(tmp_path: Path) -> None:
    with DaemonProc(tmp_path, {"token": TOKEN}) as d:
        assert d.web_port is not None
        assert http(d.web_port, "/metrics")[0] == 401
        assert http(d.web_port, "/metrics", {"Authorization": "Bearer wrong"})[0] == 401
        status, _, body = http(d.web_port, "/metrics", {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and b"kiothi_games_started_total" in body
    text = " ".join(DOC.read_text().split())
    assert "one from loopback included, needs `Authorization: Bearer <token>`" in text
    assert "needs no token" not in text
