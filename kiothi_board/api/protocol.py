"""The wire protocol (kiothi-api/1): JSON lines, framing, errors and encoding.

Every transport carries the same messages: one JSON object per line (UTF-8, LF; a CR
before the LF is tolerated for serial terminals). See docs/api.md for the messages and
docs/api/schemas/ for their JSON Schemas.
"""

from __future__ import annotations

import json
from typing import Any

from kiothi_board.errors import KiothiError

__all__ = [
    "ERROR_CODES",
    "MAX_LINE",
    "PROTOCOL",
    "VERSION",
    "ApiError",
    "LineFramer",
    "TooLong",
    "encode",
    "error_reply",
    "ok_reply",
]

PROTOCOL = "kiothi-api/1"
VERSION = 1
MAX_LINE = 16 * 1024
"""Longest accepted line in bytes (without the LF): the largest real request is a few hundred."""

ERROR_CODES: dict[str, str] = {
    "parse_error": "the line is not valid UTF-8 JSON",
    "invalid_request": "the JSON is not a request object (id, cmd, args)",
    "unsupported_version": "the request asks for a protocol version this board does not speak",
    "unknown_command": "no such command",
    "bad_args": "the command's arguments are missing, of the wrong type or out of range",
    "unauthorized": "the command needs control rights (a token from another host)",
    "rate_limited": "too many requests; slow down",
    "line_too_long": "the line exceeds the length cap and was discarded",
    "conflict": "the command does not fit the game's state now",
    "illegal": "the move or action breaks the rules",
    "not_found": "no such game",
    "unavailable": "the feature is not configured on this board",
    "internal": "the board failed to carry out the command",
}


class ApiError(KiothiError, ValueError):
    """A request the dispatcher refuses; becomes an `ok: false` reply with `code`."""

    def __init__(self, code: str, message: str) -> None:
        """`code` is one of `ERROR_CODES`; `message` quotes the offending input."""
        if code not in ERROR_CODES:
            raise ValueError(f"unknown API error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message


def encode(message: dict[str, Any]) -> bytes:
    """One message as a JSON line (compact, ASCII-safe so any serial terminal shows it)."""
    return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


def ok_reply(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    """A success reply."""
    return {"id": request_id, "ok": True, "result": result}


def error_reply(request_id: Any, code: str, message: str) -> dict[str, Any]:
    """A failure reply; `id` is null when the request's id could not be read."""
    return {"id": request_id, "ok": False, "error": {"code": code, "message": message}}


class TooLong:
    """Marker yielded by `LineFramer` for a line that went over the cap (its bytes dropped)."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        """`size`: bytes seen before the framer gave up on the line."""
        self.size = size

    def __repr__(self) -> str:
        return f"TooLong({self.size})"


class LineFramer:
    """Splits a byte stream into lines, never buffering more than `max_line` bytes.

    An over-long line yields one `TooLong` and its remaining bytes are skipped up to the
    next LF, so a client that floods without newlines costs bounded memory.
    """

    def __init__(self, max_line: int = MAX_LINE) -> None:
        """Cap lines at `max_line` bytes."""
        self._max = max_line
        self._buf = bytearray()
        self._skipping = False
        self._skipped = 0

    def feed(self, data: bytes) -> list[bytes | TooLong]:
        """Bytes in; complete lines (without LF or trailing CR) and `TooLong` markers out."""
        out: list[bytes | TooLong] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            chunk = data[start:] if nl < 0 else data[start:nl]
            if self._skipping:
                self._skipped += len(chunk)
            else:
                self._buf += chunk
                if len(self._buf) > self._max:
                    self._skipping = True
                    self._skipped = len(self._buf)
                    self._buf.clear()
            if nl < 0:
                return out
            if self._skipping:
                out.append(TooLong(self._skipped))
                self._skipping = False
                self._skipped = 0
            else:
                line = bytes(self._buf)
                self._buf.clear()
                out.append(line[:-1] if line.endswith(b"\r") else line)
            start = nl + 1

    @property
    def pending(self) -> int:
        """Bytes buffered of an unfinished line."""
        return len(self._buf)
