"""The test harness itself: a pty client's reader must not outlive its terminal.

A clean-clone run once failed `test_a_non_utf8_config_is_one_clear_error`: the fuzz test's
pty reader kept polling its closed descriptor, the next test's `open()` got the same number,
and the reader ate the config file's bytes."""

from __future__ import annotations

import os
from pathlib import Path

from tests.api.helpers import pty_client
from tests.conftest import PtyPair, poll_until


def test_a_closed_ptys_reader_does_not_read_the_next_file_with_its_number(
    tmp_path: Path,
) -> None:
    path = tmp_path / "next.toml"
    path.write_bytes(b"[game]\nmode = 'two'\n")
    pair = PtyPair()
    client = pty_client(pair.master)
    poll_until(lambda: client.polls[0] >= 1, "the reader to wait on the terminal")
    number = pair.master
    pair.close()
    fd = os.open(path, os.O_RDONLY)  # the lowest free number: most likely the terminal's
    try:
        # The reader's select() times out and it looks again: it sees the terminal gone.
        assert client.closed.wait(30), "the reader stopped with its terminal"
        assert os.read(fd, 100) == b"[game]\nmode = 'two'\n", f"fd {fd} (was {number})"
    finally:
        os.close(fd)
