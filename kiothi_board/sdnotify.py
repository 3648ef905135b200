"""systemd readiness and watchdog notifications (sd_notify), standard library only.

A no-op when not started by systemd (no $NOTIFY_SOCKET), so the daemon runs the same way
from a terminal.
"""

from __future__ import annotations

import os
import socket


class Notifier:
    """Sends `READY=1`, `WATCHDOG=1`, `STATUS=…` and `STOPPING=1` to systemd."""

    def __init__(self, address: str | None = None) -> None:
        self.address = os.environ.get("NOTIFY_SOCKET") if address is None else address
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self._sock.setblocking(False)
        usec = os.environ.get("WATCHDOG_USEC", "")
        # systemd asks for a ping at least every WATCHDOG_USEC; ping at twice that rate.
        self.watchdog_interval = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 else None

    @property
    def enabled(self) -> bool:
        """True when running under systemd with Type=notify."""
        return self._sock is not None

    def notify(self, state: str) -> bool:
        """Send one state string; False if not under systemd or the send failed."""
        if self._sock is None or not self.address:
            return False
        target = self.address
        if target.startswith("@"):  # an abstract socket
            target = "\0" + target[1:]
        try:
            self._sock.sendto(state.encode(), target)
        except OSError:
            return False
        return True

    def ready(self, status: str = "") -> bool:
        """Tell systemd the daemon is up."""
        return self.notify("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def watchdog(self) -> bool:
        """Keep-alive ping for WatchdogSec=."""
        return self.notify("WATCHDOG=1")

    def status(self, text: str) -> bool:
        """A one-line status shown by `systemctl status`."""
        return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        """Tell systemd an orderly shutdown has begun."""
        return self.notify("STOPPING=1")

    def close(self) -> None:
        """Close the socket; idempotent."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> Notifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
