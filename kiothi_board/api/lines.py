"""A request line, read: decoded, parsed and checked before any command runs; and an event
encoded once per language its readers chose.

Pure functions of the line (no session, no lock): the dispatcher decides what a malformed
line costs and runs what is well formed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kiothi_board.api.bounded import JsonLimits, PayloadError, loads
from kiothi_board.api.protocol import VERSION, TooLong, encode, error_reply
from kiothi_board.controller.spec import short
from kiothi_board.i18n import has_words, localize

__all__ = [
    "MALFORMED_RUN",
    "MAX_DROPPED_RUN",
    "Request",
    "WordedEvent",
    "decode_line",
    "parse_request",
]

Request = tuple[Any, str, dict[str, Any]]
"""A well-formed request: id, command, arguments."""

MAX_DEPTH = 64  # a request is an object of small arguments; deeper is an attack
MAX_DROPPED_RUN = 256
"""Malformed lines dropped in a row (over the client's rate, no request between) before the
client is disconnected: a peer that sends nothing else is not kept at any cost."""
MALFORMED_RUN = "malformed lines in a row"
"""How the reason for that disconnection ends (`{n} malformed lines in a row`)."""
_ID_MAX = 2**53


def decode_line(line: bytes | str | TooLong, max_line: int) -> str | dict[str, Any]:
    """The line as text, or the error reply for a line that is too long or not UTF-8."""
    if isinstance(line, TooLong):
        return error_reply(None, "line_too_long", f"line of {line.size} bytes exceeds {max_line}")
    if isinstance(line, bytes):
        if len(line) > max_line:
            return error_reply(
                None, "line_too_long", f"line of {len(line)} bytes exceeds {max_line}"
            )
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return error_reply(None, "parse_error", f"not UTF-8: {exc.reason} at {exc.start}")
    if len(line) > max_line:
        return error_reply(None, "line_too_long", f"line of {len(line)} chars exceeds {max_line}")
    return line


def parse_request(
    text: str, max_line: int, known: Callable[[str], bool]
) -> Request | dict[str, Any] | None:
    """A request's parts, the error reply for a malformed one, or None (ignored: blank, or
    one of our own replies or events echoed back by a terminal or a `loop://` port)."""
    if not text.strip():
        return None
    try:
        msg = loads(text, JsonLimits(max_bytes=4 * max_line, max_depth=MAX_DEPTH))
    except PayloadError as exc:
        detail = str(exc) if exc.reason == "too_deep" else str(exc).removeprefix("not JSON: ")
        return error_reply(None, "parse_error", f"not JSON: {short(detail)}")
    if not isinstance(msg, dict):
        return error_reply(None, "invalid_request", f"expected an object, got {type(msg).__name__}")
    if "cmd" not in msg and _is_ours(msg):
        return None
    rid = msg.get("id")
    if not _valid_id(rid):
        return error_reply(None, "invalid_request", f"bad or missing id: {short(repr(rid))}")
    extra = set(msg) - {"id", "cmd", "args", "v"}
    if extra:
        return error_reply(rid, "invalid_request", f"unknown keys {sorted(extra)!r}")
    if "v" in msg and (msg["v"] != VERSION or isinstance(msg["v"], bool)):
        return error_reply(
            rid, "unsupported_version", f"version {short(repr(msg['v']))}; this is {VERSION}"
        )
    cmd = msg.get("cmd")
    if not isinstance(cmd, str):
        return error_reply(rid, "invalid_request", f"cmd must be a string: {short(repr(cmd))}")
    if not known(cmd):
        return error_reply(rid, "unknown_command", f"unknown command {short(repr(cmd))}")
    args = msg.get("args", {})
    if not isinstance(args, dict):
        return error_reply(rid, "bad_args", f"args must be an object: {short(repr(args))}")
    return rid, cmd, args


def _valid_id(rid: Any) -> bool:
    if isinstance(rid, bool):
        return False
    if isinstance(rid, int):
        return -_ID_MAX <= rid <= _ID_MAX
    return isinstance(rid, str) and 0 < len(rid) <= 64


def _is_ours(msg: dict[str, Any]) -> bool:
    """A reply or event of this protocol (seen when a port echoes our own output)."""
    reply = "ok" in msg and "id" in msg and ("result" in msg or "error" in msg)
    event = isinstance(msg.get("event"), str) and ("seq" in msg or msg["event"] == "overflow")
    return reply or event


class WordedEvent:
    """An event encoded once per language its readers chose (once if it has no words)."""

    def __init__(self, message: dict[str, Any], board: str) -> None:
        self.message = message
        self.default = board
        self.words = has_words(message)
        self._made: dict[str | None, bytes] = {}

    def get(self, lang: str | None) -> bytes:
        """The encoded line in `lang` (None: the board's language)."""
        key = (lang or self.default) if self.words else None
        line = self._made.get(key)
        if line is None:
            line = self._made[key] = encode(localize(self.message, key) if key else self.message)
        return line

    def board(self) -> tuple[dict[str, Any], bytes]:
        """The event in the board's language, for taps (MQTT, Redis)."""
        message = localize(self.message, self.default) if self.words else self.message
        return message, self.get(None)
