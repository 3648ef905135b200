"""The JSON schemas of a command's request and reply, made from its `CommandSpec`.

docs/api/make_schemas.py writes them for every command of the table (docs/api/schemas);
the `$ref`s point into the shared definitions (`common.json`).
"""

from __future__ import annotations

from typing import Any

from kiothi_board.controller.spec import CommandSpec

__all__ = ["reply_schema", "request_schema"]

_ID = {"$ref": "common.json#/$defs/id"}


def request_schema(spec: CommandSpec) -> dict[str, Any]:
    """The schema of a request for `spec` (its `args` from the spec's arguments)."""
    return {
        "type": "object",
        "required": ["id", "cmd"],
        "additionalProperties": False,
        "properties": {
            "v": {"const": 1},
            "id": _ID,
            "cmd": {"const": spec.name},
            "args": spec.schema(),
        },
    }


def reply_schema(spec: CommandSpec, result: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema of a successful reply to `spec` (`result`: a fuller schema of its
    result than the spec's own, for the doors' big replies such as `hello`'s)."""
    return {
        "type": "object",
        "required": ["id", "ok", "result"],
        "additionalProperties": False,
        "properties": {
            "id": _ID,
            "ok": {"const": True},
            "result": spec.reply_schema if result is None else result,
        },
    }
