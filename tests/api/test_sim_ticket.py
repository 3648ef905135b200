"""The simulator's one-time link: the twin opened with `#ticket=…` controls; plain reads."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.browser import chromium


def test_the_printed_link_gives_control_and_the_plain_address_does_not(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[api]\ntcp_port = -1\nweb_port = 0\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-terminal",
         "--config", str(config), "--state-dir", str(tmp_path / "state")],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        link = ""
        for line in proc.stderr:
            found = re.search(r"play on the web twin: (\S+#ticket=\S+)", line)
            if found:
                link = found.group(1)
                break
        assert link, "the simulator prints its link"
        plain = link.split("#", 1)[0]
        with chromium() as browser:
            page = browser.new_page()
            page.goto(link)
            page.wait_for_selector("#role.control", timeout=10_000)
            assert "ticket" not in page.url, "the ticket leaves the address bar"
            page.reload()  # the same tab keeps its session
            page.wait_for_selector("#role.control", timeout=10_000)
            other = browser.new_page()  # a fresh tab without the link is a spectator
            other.goto(plain)
            other.wait_for_selector("#role.spectator", timeout=10_000)
    finally:
        proc.terminate()
        proc.wait(15)
