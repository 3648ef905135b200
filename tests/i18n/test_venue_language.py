"""Issue 33: a venue adds its own language without touching the package (docs/translating.md,
"A venue's own language"). The test makes a small Kikuyu catalog (a few entries; the words
here are the test's, marked "ki:", not a translation) in a state directory, compiles and
checks it with `kiothi-board i18n --dir`, and sees it accepted by `[board] languages`, spoken
by the board, served on /i18n/ki.json and named by the page's language button — while the
package's folder holds no trace of it, so reinstalling the package cannot lose it. On the old
code the daemon refused it: `board.language = 'ki': has no catalog; the board speaks en, de,
fr, sw (docs/translating.md)` (and the test cannot import `use_folders`)."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiothi_board.controller import Controller
from kiothi_board.i18n import LOCALE_DIR, available, use_folders, venue_folder
from tests.api.daemon_proc import DaemonProc
from tests.api.helpers import socket_client
from tests.browser import WAIT_MS, chromium, wait_js
from tests.i18n.serving import served

PACKAGE = LOCALE_DIR.parents[1]
NAME = "Gĩkũyũ"
PO = """msgid ""
msgstr ""
"Language: ki\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgctxt "language name"
msgid "English"
msgstr "{name}"

msgctxt "side"
msgid "South"
msgstr "ki: South"

msgid "No game"
msgstr "ki: no game"

msgid "No game: hold any pit for a second to start a new game."
msgstr "ki: no game yet, hold a pit."

#, python-brace-format
msgid ""
"{side}'s opening: press one of your pits to lift its seeds and place them "
"anywhere, or hold a pit to pass."
msgstr "ki: {side} opens: press a pit of yours, or hold one to pass."

#, python-brace-format
msgid "{side} to move: press one of your breathing pits ({pits}) to sow it."
msgstr "ki: {side} moves: press {pits}."
""".replace("{name}", NAME)


def _package_files() -> dict[str, str]:
    return {
        p.relative_to(PACKAGE).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(PACKAGE.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "kiothi_board", "i18n", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Path]:
    """A state directory with the venue's Kikuyu catalog, compiled by `i18n compile --dir`."""
    state = tmp_path / "board" / "state"
    po = venue_folder(state) / "ki" / "LC_MESSAGES" / "kiothi.po"
    po.parent.mkdir(parents=True)
    po.write_text(PO, "utf-8")
    done = _cli("compile", "--dir", str(venue_folder(state)))
    assert done.returncode == 0, done.stderr
    assert po.with_suffix(".mo").is_file()
    try:
        yield state
    finally:
        use_folders()  # the package's catalogs only, for the tests after this one


def test_check_reads_the_venues_folder_and_names_what_a_new_language_lacks(venue: Path) -> None:
    checked = _cli("check", "--dir", str(venue_folder(venue)))
    assert checked.returncode == 1, checked.stdout
    assert "ki: 'Hint' is missing (run update)" in checked.stdout or "is missing" in checked.stdout
    assert f"catalogs in {venue_folder(venue)}" in checked.stdout
    bad = _cli("check", "--dir", str(venue / "nowhere"))
    assert bad.returncode == 2 and "no such folder" in bad.stderr


def test_a_language_in_the_state_dir_is_the_boards_without_touching_the_package(
    venue: Path,
) -> None:
    before = _package_files()
    assert "ki" not in available()  # the package alone has no Kikuyu
    sections = {"board": {"language": "ki", "languages": ["ki", "en"]}}
    with DaemonProc(venue.parent, {"trust_loopback_tcp": True}, sections=sections) as d:
        assert d.tcp_port is not None and d.web_port is not None
        client = socket_client(socket.create_connection(("127.0.0.1", d.tcp_port)))
        hello = client.request("hello", {})["result"]
        assert {"code": "ki", "name": NAME} in hello["languages"], hello
        state = client.request("state")["result"]["state"]
        assert state["instruction"].startswith("ki: "), state["instruction"]  # the board's
        url = f"http://127.0.0.1:{d.web_port}/i18n/ki.json"
        with urllib.request.urlopen(url, timeout=10) as got:
            catalog = json.loads(got.read())
        assert catalog["name"] == NAME and catalog["lang"] == "ki"
        assert catalog["messages"]["side\x04South"] == "ki: South"
    after = _package_files()
    assert after == before, "the package changed"
    assert not [f for f in after if "/ki/" in f], "a trace of the venue's language in the package"
    # The venue's folder is all there is of it: a fresh start on the same state dir (as after
    # a reinstall of the package, which replaces only the package's folder) speaks it again.
    with DaemonProc(venue.parent, {"trust_loopback_tcp": True}, sections=sections) as d:
        assert d.tcp_port is not None
        client = socket_client(socket.create_connection(("127.0.0.1", d.tcp_port)))
        assert client.request("state")["result"]["state"]["instruction"].startswith("ki: ")


def test_the_page_and_its_language_button_speak_the_venues_language(venue: Path) -> None:
    use_folders(venue_folder(venue))
    with chromium() as browser, served(langs=("ki", "en")) as (board, url):
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(WAIT_MS)
        page.goto(url)
        wait_js(page, "document.documentElement.lang === 'ki'")
        wait_js(page, f"document.querySelector('#btn-lang').textContent === '{NAME}'")
        wait_js(page, "document.body.innerText.includes('ki: no game')")  # a watcher's words
        page.click("#btn-lang")  # the visitor's choice: English
        wait_js(page, "document.documentElement.lang === 'en'")
        wait_js(page, "document.querySelector('#btn-lang').textContent === 'English'")
        wait_js(page, "!document.body.innerText.includes('ki: ')")
        assert board.ask(Controller.instruction).render("ki") == "ki: no game yet, hold a pit."
