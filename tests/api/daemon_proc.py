"""The real daemon as a child process, for the attack tests and the soak bench's twin.

`DaemonProc` writes a TOML config, starts `kiothi-board run --sim --no-terminal`, reads its
log (stderr) on a thread, and learns the bound ports from the log lines the API writes.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any


def toml_value(value: Any) -> str:
    """A Python value as TOML (the few types a config holds)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def write_config(path: Path, sections: dict[str, dict[str, Any]]) -> Path:
    """Write `sections` as a TOML file."""
    lines = []
    for name, keys in sections.items():
        lines.append(f"[{name}]")
        lines.extend(f"{k} = {toml_value(v)}" for k, v in keys.items())
    path.write_text("\n".join(lines) + "\n")
    return path


class DaemonProc:
    """`kiothi-board run --sim` with an API config; `close()` (SIGTERM) when done."""

    def __init__(
        self,
        tmp: Path,
        api: dict[str, Any],
        *,
        nofile: int | None = None,
        sections: dict[str, dict[str, Any]] | None = None,
        wait: bool = True,
    ) -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        cfg: dict[str, dict[str, Any]] = {
            "api": {"tcp_port": 0, "web_port": 0, "health_interval": 3600, **api},
            "game": {"mode": "two"},
            **(sections or {}),
        }
        self.config = write_config(tmp / "daemon.toml", cfg)
        self.log_lines: list[str] = []
        self.log_bytes = 0
        self.tcp_port: int | None = None
        self.web_port: int | None = None
        self._ready = threading.Event()
        self._cond = threading.Condition()
        want = {k for k in ("tcp_port", "web_port") if cfg["api"].get(k, 0) != -1}
        self._want = want

        def limits() -> None:  # in the child: a realistic descriptor limit (ulimit -n)
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-terminal",
                "--config", str(self.config), "--state-dir", str(tmp / "state"),
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=limits, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if wait and not self._ready.wait(30):
            self.close()
            raise RuntimeError("the daemon did not start:\n" + self.log())

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace")
            with self._cond:
                self.log_bytes += len(raw)
                self.log_lines.append(line)
                if "api: TCP on " in line:
                    self.tcp_port = int(line.rsplit(":", 1)[1])
                elif "api: web on http://" in line:
                    self.web_port = int(line.rstrip().rstrip("/").rsplit(":", 1)[1])
                got = {k for k in self._want if getattr(self, k) is not None}
                if got == self._want:
                    self._ready.set()
                self._cond.notify_all()
        self._ready.set()
        with self._cond:
            self._cond.notify_all()

    def log(self) -> str:
        """The log so far."""
        with self._cond:
            return "".join(self.log_lines)

    def wait_log(self, text: str, timeout: float = 10.0, count: int = 1) -> bool:
        """Wait until `text` appears `count` times in the log."""
        with self._cond:
            return self._cond.wait_for(
                lambda: "".join(self.log_lines).count(text) >= count, timeout
            )

    def _status(self, field: str) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise KeyError(field)

    def rss_kb(self) -> int:
        """Resident memory of the daemon, in KiB."""
        return self._status("VmRSS")

    def fds(self) -> int:
        """Open descriptors of the daemon."""
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def wait_exit(self, timeout: float = 30.0) -> int:
        """Wait for the daemon to exit by itself (a refused start); returns its status."""
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.close()  # it started after all: stop it, and say so
            raise AssertionError("the daemon did not refuse to start:\n" + self.log()) from None
        self._reader.join(5)
        return status

    def close(self) -> int:
        """SIGTERM and wait; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._reader.join(5)
        return self.proc.returncode

    def __enter__(self) -> DaemonProc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
