"""The simulator's operator page typed into the address bar: the page asks for the access code
the simulator printed on its terminal (never on a pipe or a journal), and with it controls the
board; its refusals are plain sentences, not protocol words."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.browser import WAIT_MS, chromium, wait_js

PROTOCOL_WORDS = re.compile(r"hello|token\b|needs control|settings\.set|unauthorized", re.I)


@contextmanager
def simulator(tmp_path: Path, *, tty: bool) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`kiothi-board run --sim` with its stderr on a terminal (a pty) or a pipe; the process
    and what it printed up to the operator page's line."""
    config = tmp_path / "c.toml"
    config.write_text("[api]\ntcp_port = -1\nweb_port = 0\n")
    if tty:
        master, slave = os.openpty()
    else:
        master, slave = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-terminal",
         "--config", str(config), "--state-dir", str(tmp_path / "state")],
        stderr=slave, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=tmp_path,
    )  # fmt: skip
    os.close(slave)
    try:
        out = b""
        deadline = time.monotonic() + 60
        while b"operator page is at" not in out or not out.endswith(b"\n"):
            assert time.monotonic() < deadline, (
                f"the simulator never named its operator page: {out!r}"
            )
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                chunk = os.read(master, 4096)
                assert chunk, f"the simulator ended: {out!r}"
                out += chunk
        yield proc, out.decode()
    finally:
        proc.terminate()
        proc.wait(15)
        os.close(master)


def test_the_typed_operator_address_asks_for_the_printed_code_and_then_controls(
    tmp_path: Path,
) -> None:
    with simulator(tmp_path, tty=True) as (_, printed):
        found = re.search(r"operator page is at (http://\S+/operator); its access code for "
                          r"this run is (\d{8})", printed)  # fmt: skip
        assert found, printed
        url, code = found.groups()
        with chromium() as browser:
            context = browser.new_context(viewport={"width": 390, "height": 844})
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            page.goto(url)  # typed: no #ticket=
            page.wait_for_selector("#role.spectator")
            note = page.inner_text("#access-note")
            assert "simulator printed in its terminal" in note, note
            page.click("[data-cmd=hint]")  # refused: the words a person reads
            toast = wait_js(page, "document.querySelector('#toast.show')?.textContent")
            assert not PROTOCOL_WORDS.search(toast), toast
            assert "access code" in toast, toast
            page.fill("#token", "00000000" if code != "00000000" else "11111111")
            page.click("#save-token")
            wrong = wait_js(page, "t => document.querySelector('#toast').textContent !== t", toast)
            assert wrong, "a wrong code is answered"
            assert (
                page.inner_text("#toast")
                == "That access code is not right: check it and try again."
            )
            page.fill("#token", code)
            page.click("#save-token")
            page.wait_for_selector("#role.control")
            page.click("#start")
            wait_js(page, "/^Game 1:/.test(document.querySelector('#game-line').textContent)")
            twin = context.new_page()  # the session is this browser's: the twin plays too
            twin.goto(url.removesuffix("operator"))
            twin.wait_for_selector("#role.control", timeout=WAIT_MS)


def test_the_code_is_never_written_to_a_pipe_or_journal(tmp_path: Path) -> None:
    with simulator(tmp_path, tty=False) as (_, printed):
        line = next(x for x in printed.splitlines() if "operator page is at" in x)
        assert "shown only when the simulator runs in a terminal" in line, line
        assert not re.search(r"\b\d{8}\b", printed), printed
