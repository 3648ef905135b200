"""The simulator's one-time link: printed only on a terminal, good once, for 10 minutes.

The twin opened with `#ticket=…` controls (and keeps control across a reload, with the
session the board gave in exchange); the same link opened again, or the plain address,
reads only. When stderr is not a terminal (a journal, a file) no ticket is printed at all:
on the old code the link went to the journal and worked 4 times 30 minutes later.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kiothi_board.api.access import AccessPolicy
from kiothi_board.api.protocol import ApiError
from kiothi_board.clock import FakeClock
from tests.browser import chromium

ARGS = ["run", "--sim", "--no-terminal"]


def _start(tmp_path: Path, stderr: int) -> subprocess.Popen[bytes]:
    config = tmp_path / "c.toml"
    config.write_text("[api]\ntcp_port = -1\nweb_port = 0\n")
    return subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", *ARGS,
         "--config", str(config), "--state-dir", str(tmp_path / "state")],
        stderr=stderr, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _read_until(fd: int, pattern: str, timeout: float = 60.0) -> str:
    text = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        text += chunk.decode("utf-8", "replace")
        if re.search(pattern, text):
            return text
    raise AssertionError(f"never printed {pattern!r}:\n{text}")


def test_the_link_on_a_terminal_gives_control_once(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    proc = _start(tmp_path, slave)
    os.close(slave)
    try:
        text = _read_until(master, r"play on the web twin: \S+#ticket=\S+\s")
        link = re.findall(r"play on the web twin: (\S+#ticket=\S+)", text)[0]
        plain = link.split("#", 1)[0]
        with chromium() as browser:
            page = browser.new_page()
            page.goto(link)
            page.wait_for_selector("#role.control", timeout=20_000)
            assert "ticket" not in page.url, "the ticket leaves the address bar"
            page.reload()  # the same tab keeps its session (the one given in exchange)
            page.wait_for_selector("#role.control", timeout=20_000)
            again = browser.new_context().new_page()  # the link a second time: spent
            again.goto(link)
            again.wait_for_selector("#role.spectator", timeout=20_000)
            # Issue 31 item 13: it said "The saved access code was not accepted" (nothing was
            # saved); now what happened to the link, and where the code is.
            again.wait_for_function(
                "() => document.querySelector('#say').textContent.includes('used already')",
                timeout=20_000,
            )
            said = again.text_content("#say") or ""
            assert "saved access code" not in said and "operator page" in said, said
            assert "terminal that started the simulator" in said, said
            other = browser.new_page()  # a fresh tab without the link is a spectator
            other.goto(plain)
            other.wait_for_selector("#role.spectator", timeout=20_000)
    finally:
        proc.terminate()
        proc.wait(15)
        os.close(master)


def test_no_ticket_is_written_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    proc = _start(tmp_path, subprocess.PIPE)
    try:
        assert proc.stderr is not None
        text = ""
        for raw in proc.stderr:
            text += raw.decode("utf-8", "replace")
            if "read-only here" in text or "#ticket=" in text:
                break
    finally:
        proc.terminate()
        rest = proc.communicate(timeout=15)[1]
    text += rest.decode("utf-8", "replace")
    assert "#ticket=" not in text and "web twin is read-only here" in text


def test_a_one_time_ticket_is_spent_and_lasts_ten_minutes() -> None:
    clock = FakeClock()
    access = AccessPolicy(clock=clock, addresses=[])
    link = access.issue_ticket("once")
    assert not access.check_ticket(link)  # not a session by itself
    session = access.authenticate("127.0.0.1:1", ticket=link)
    assert session != link and access.check_ticket(session)
    assert access.authenticate("127.0.0.1:1", ticket=session) == session
    with pytest.raises(ApiError, match="wrong ticket"):  # spent
        access.authenticate("127.0.0.1:1", ticket=link)
    late = access.issue_ticket("once")
    clock.advance(600 + 1)  # ONCE_TTL
    with pytest.raises(ApiError, match="wrong ticket"):  # too late
        access.authenticate("127.0.0.1:2", ticket=late)


def test_with_a_token_the_start_up_line_says_to_use_it(tmp_path: Path) -> None:
    """Issue 31 item 12: with api.token set and no terminal, the line still said "set
    api.token or api.staff_pin" to get control."""
    config = tmp_path / "c.toml"
    config.write_text('[api]\ntcp_port = -1\nweb_port = 0\ntoken = "a-long-random-token-1234"\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", *ARGS,
         "--config", str(config), "--state-dir", str(tmp_path / "state")],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        text = ""
        for raw in proc.stderr:
            text += raw.decode("utf-8", "replace")
            if "operator page is at" in text:
                break
    finally:
        proc.terminate()
        text += proc.communicate(timeout=15)[1].decode("utf-8", "replace")
    assert "web twin is read-only here" in text, text
    assert "set api.token" not in text and "or set api.staff_pin" not in text, text
    assert "enter its api.token as the access code on the operator page" in text, text
    assert "its access code is your api.token" in text, text
