"""The shipped unit and the documented `unix_path` agree (issue 21: the example
`/run/kiothi-board/api.sock` could not work: /run is read-only under ProtectSystem=strict
and the unit made no runtime directory). `tests/test_install.py` verifies the installed
unit with `systemd-analyze verify` and its exposure with `security`."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "kiothi-board.service"


def _settings() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        found = re.match(r"^([A-Za-z]+)=(.*)$", line)
        if found:
            out.setdefault(found.group(1), []).append(found.group(2))
    return out


def test_the_documented_unix_path_is_in_a_directory_the_service_may_write() -> None:
    settings = _settings()
    assert settings["ProtectSystem"] == ["strict"]  # all of /run is read-only but...
    runtime = settings.get("RuntimeDirectory", [])
    assert runtime == ["kiothi-board"]  # ...this one, made at start, owned by the service
    assert settings["RuntimeDirectoryMode"] == ["0750"]  # group kiothi reaches the socket
    writable = {f"/run/{name}" for name in runtime} | {
        f"/var/lib/{name}" for name in settings["StateDirectory"]
    }
    api = (REPO / "docs" / "api.md").read_text()
    example = re.search(r"e\.g\. `(/run/[^`]+)`", api)
    assert example is not None
    assert str(Path(example.group(1)).parent) in writable
    toml = (REPO / "docs" / "config.example.toml").read_text()
    assert '"/run/kiothi-board/api.sock"' in toml
