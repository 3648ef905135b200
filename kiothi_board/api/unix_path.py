"""The Unix socket's path: made only where nothing is, or where a stale socket of ours is.

Nothing but a dead socket owned by this user is ever removed: a regular file, a directory,
a live socket (another instance is serving) or someone else's socket make the start fail
with an error naming `api.unix_path`. On shutdown the socket is removed only if the path
still is the very socket this process bound (same device and inode).
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
from pathlib import Path

from kiothi_board.errors import ConfigError

__all__ = ["prepare_unix_path", "remove_our_socket", "socket_identity"]


def prepare_unix_path(path: str) -> None:
    """Make `path` free for bind(), or raise `ConfigError` saying why not."""
    key = f"api.unix_path = {path!r}"
    parent = Path(path).parent
    if not parent.is_dir():
        raise ConfigError(f"{key}: the directory {str(parent)!r} does not exist")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a file that is not a socket"
        raise ConfigError(f"{key}: {kind} is there; it is left alone (choose another path)")
    if info.st_uid != os.geteuid():
        raise ConfigError(f"{key}: a socket of another user (uid {info.st_uid}) is there")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except OSError as exc:
        if exc.errno not in (errno.ECONNREFUSED, errno.ENOENT):
            raise ConfigError(f"{key}: cannot check the socket there: {exc.strerror}") from exc
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a dead socket of ours, left by a crash
        return
    finally:
        probe.close()
    raise ConfigError(f"{key}: a live socket is there (another kiothi-board may be running)")


def socket_identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the socket at `path`, or None."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISSOCK(info.st_mode) else None


def remove_our_socket(path: str, identity: tuple[int, int] | None) -> None:
    """Remove `path` if it still is the socket we bound (`identity`)."""
    if identity is not None and socket_identity(path) == identity:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
