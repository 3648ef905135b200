"""JSON with limits: a size cap and a nesting cap, checked before the parser runs.

Every consumer of the bus (the board's dispatcher, the fleet hub, the dashboard's
WebSocket) parses with `loads(data, limits)`. Python's parser recurses once per `[` or `{`:
`[` x 100,000 raised RecursionError in paho's network thread and ended the dashboard's
MQTT thread for good (issue 21, item 3). The depth is measured without recursion and
without a Python loop over the bytes (strings blanked by one regex, brackets mapped to
+1/-1 and summed by `itertools.accumulate` in C), so a hostile message costs microseconds
per kilobyte. Failures are one typed error, `PayloadError`, whose `reason` is the counter.
"""

from __future__ import annotations

import itertools
import json
import re
from array import array
from dataclasses import dataclass
from typing import Any

from kiothi_board.errors import PayloadError

__all__ = ["JsonLimits", "PayloadError", "depth", "loads"]

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_OPEN = b"[{"
# '[' and '{' become +1, ']' and '}' become -1 (0xff as a signed byte); the rest is deleted.
_TABLE = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_OTHERS = bytes(b for b in range(256) if b not in b"[{]}")


@dataclass(frozen=True, slots=True)
class JsonLimits:
    """At most `max_bytes` (UTF-8) and `max_depth` nested arrays and objects."""

    max_bytes: int = 64 * 1024
    max_depth: int = 32


def depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in `data` (brackets in strings ignored)."""
    if data.count(b"[") + data.count(b"{") == 0:
        return 0
    brackets = _STRING.sub(b'""', data).translate(_TABLE, _OTHERS)
    if not brackets:
        return 0
    return max(itertools.accumulate(array("b", brackets)))


def loads(data: bytes | bytearray | str, limits: JsonLimits) -> Any:
    """Parse `data` as JSON within `limits`, or raise `PayloadError`."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if len(raw) > limits.max_bytes:
        raise PayloadError("too_large", f"{len(raw)} bytes exceeds {limits.max_bytes}")
    # Only a message with more brackets than the cap can be too deep: skip the scan if not.
    if raw.count(b"[") + raw.count(b"{") > limits.max_depth:
        found = depth(raw)
        if found > limits.max_depth:
            raise PayloadError("too_deep", f"nested {found} deep, more than {limits.max_depth}")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise PayloadError("not_json", f"not JSON: {str(exc)[:80]}") from exc
