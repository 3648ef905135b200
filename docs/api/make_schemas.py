"""Regenerate docs/api/schemas/*.json (the JSON Schemas of kiothi-api/1).

Run from the repository root: `python docs/api/make_schemas.py`. The schemas are checked in;
edit this script, rerun it, and review the diff (tests/api validate real traffic against them).
"""

from __future__ import annotations

import json
import pathlib

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.api.schemas import reply_schema, request_schema
from kiothi_board.controller.table import TABLE
from kiothi_board.rules import ENDS

out = pathlib.Path("docs/api/schemas")
out.mkdir(parents=True, exist_ok=True)
for f in out.glob("*.json"):
    f.unlink()
BASE = "https://kiothi-board.invalid/api/schemas/"


def write(name, schema, title):
    doc = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": BASE + name + ".json",
        "title": title,
        **schema,
    }
    (out / f"{name}.json").write_text(json.dumps(doc, indent=2) + "\n")


pit = {"type": "string", "pattern": "^[SN]([1-9]|10)$"}
nonneg = {"type": "integer", "minimum": 0}
CONNECTIONS = ["open", "max", "shed", "refused", "timed_out", "fd_exhausted"]
common = {
    "$defs": {
        "pit": pit,
        "pit_in": {
            "oneOf": [
                {"type": "string", "pattern": "^[SsNn]([1-9]|10)$"},
                {"type": "integer", "minimum": 0, "maximum": 19},
            ]
        },
        "side": {"enum": ["S", "N"]},
        "id": {
            "oneOf": [
                {"type": "string", "minLength": 1, "maxLength": 64},
                {"type": "integer", "minimum": -9007199254740992, "maximum": 9007199254740992},
            ]
        },
        "counts": {
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": 20,
            "maxItems": 20,
        },
        "variant": {
            "type": "object",
            "properties": {
                **{f"V{i}": {"type": "boolean"} for i in range(1, 9)},
                "ply_limit": {"type": "integer", "minimum": 1},
            },
            "additionalProperties": False,
        },
        "result": {
            "type": ["object", "null"],
            "required": ["winner", "captured", "end"],
            "properties": {
                "winner": {"enum": ["S", "N", None]},
                "captured": {
                    "type": "array",
                    "items": {"type": "integer"},
                    "minItems": 2,
                    "maxItems": 2,
                },
                "end": {"enum": list(ENDS)},
                "by": {"enum": ["S", "N"]},
            },
        },
        "position": {
            "type": "object",
            "required": [
                "board",
                "captured",
                "sown",
                "to_move",
                "phase",
                "legal",
                "ply",
                "over",
                "result",
            ],
            "properties": {
                "board": {"$ref": "#/$defs/counts"},
                "captured": {
                    "type": "array",
                    "items": {"type": "integer", "minimum": 0},
                    "minItems": 2,
                    "maxItems": 2,
                },
                "sown": {
                    "type": "array",
                    "items": {"type": "boolean"},
                    "minItems": 20,
                    "maxItems": 20,
                },
                "to_move": {"$ref": "#/$defs/side"},
                "phase": {"enum": ["opening", "play", "over"]},
                "legal": {"type": "array", "items": {"$ref": "#/$defs/pit"}},
                "ply": {"type": "integer", "minimum": 0},
                "over": {"type": "boolean"},
                "result": {"$ref": "#/$defs/result"},
            },
        },
        "game_settings": {
            "type": "object",
            "properties": {
                "mode": {"enum": ["two", "ai", "demo"]},
                "sides": {"enum": ["S", "N", "SN", "NS", ""]},
                "level": LevelChoice.schema(),
                "pace": {"enum": ["step", "flow", "instant"]},
                "variant": {"$ref": "#/$defs/variant"},
            },
        },
        "settings": {
            "type": "object",
            "required": ["palette", "brightness", "mode", "sides", "level", "pace", "variant"],
            "properties": {
                "palette": {"enum": ["default", "colour-blind", "night"]},
                "brightness": {"type": "number", "minimum": 0, "maximum": 1},
                "mode": {"enum": ["two", "ai", "demo"]},
                "sides": {"type": "string"},
                "level": {"oneOf": [{"type": "integer"}, {"const": "adaptive"}]},
                "pace": {"enum": ["step", "flow", "instant"]},
                "variant": {"$ref": "#/$defs/variant"},
            },
        },
        "state": {
            "type": "object",
            "required": ["game_id", "settings", "stage", "check", "paused", "thinking"],
            "properties": {
                "game_id": {"type": ["integer", "null"]},
                "settings": {"type": "object"},
                "stage": {"enum": ["none", "open", "turn", "sow", "guided_open", "set", "over"]},
                "check": {"type": ["array", "null"], "items": {"$ref": "#/$defs/pit"}},
                "paused": {"type": "boolean"},
                "thinking": {"type": "boolean"},
                "position": {"$ref": "#/$defs/position"},
                "board": {"$ref": "#/$defs/counts"},
                "actions": {"type": "array", "items": {"type": "string"}},
                "pending": {"type": ["string", "null"]},
                "guide": {
                    "type": ["object", "null"],
                    "required": ["kind", "pit"],
                    "properties": {
                        "kind": {"enum": ["lift", "drop", "relay", "capture", "set", "done"]},
                        "pit": {"oneOf": [{"$ref": "#/$defs/pit"}, {"type": "null"}]},
                        "hand": {"type": "integer"},
                        "lap": {"type": "integer"},
                        "index": {"type": "integer"},
                        "steps": {"type": "integer"},
                    },
                },
                "expect": {"oneOf": [{"$ref": "#/$defs/pit"}, {"type": "null"}]},
                "lifted": {"oneOf": [{"$ref": "#/$defs/pit"}, {"type": "null"}]},
                "result": {"$ref": "#/$defs/result"},
                "ended": {"enum": [None, "resign", "agreement"]},
                "ai_to_move": {"type": "boolean"},
                "instruction": {"type": "string"},
                "to_player": {"type": "boolean"},
                "said": {"type": ["string", "null"]},
                "said_kind": {"enum": [None, "hint", "wrong"]},
                "tutorial": {"enum": [None, "opening", "their-opening", "move", "play-on", "done"]},
                "restore": {
                    "type": ["object", "null"],
                    "required": ["purpose", "target", "changes", "pending"],
                    "properties": {
                        "purpose": {"enum": ["undo", "long-move", "restore", "reset"]},
                        "target": {"$ref": "#/$defs/counts"},
                        "changes": {"type": "object"},
                        "pending": {"type": "array", "items": {"$ref": "#/$defs/pit"}},
                    },
                },
            },
        },
        "capture": {
            "type": "object",
            "required": ["pit", "seeds"],
            "properties": {
                "pit": {"$ref": "#/$defs/pit"},
                "seeds": {"type": "integer", "minimum": 0},
                "rule": {"type": "string"},
            },
        },
        "trace": {
            "type": "object",
            "required": [
                "side",
                "pit",
                "laps",
                "landing",
                "captures",
                "board_before",
                "board_after",
            ],
            "properties": {
                "side": {"$ref": "#/$defs/side"},
                "pit": {"$ref": "#/$defs/pit"},
                "laps": {"type": "array", "minItems": 1},
                "crossing": {"type": ["array", "null"]},
                "crossed": {"type": "boolean"},
                "landing": {"$ref": "#/$defs/pit"},
                "captures": {"type": "array", "items": {"$ref": "#/$defs/capture"}},
                "saved": {"type": "array"},
                "flags_set": {"type": "array", "items": {"$ref": "#/$defs/pit"}},
                "board_before": {"$ref": "#/$defs/counts"},
                "board_after": {"$ref": "#/$defs/counts"},
            },
        },
        "frame": {
            "type": "array",
            "minItems": 20,
            "maxItems": 20,
            "items": {"type": "string", "pattern": "^([0-9a-f]{6})*$"},
        },
        "health": {
            "type": "object",
            "required": ["status", "uptime", "clients", "events", "requests", "errors"],
            "properties": {
                "status": {"enum": ["ok", "degraded"]},
                "degraded": {
                    "type": "array",
                    "description": "the parts that need staff (a down input link, store damage)",
                    "items": {"type": "string"},
                },
                "uptime": {"type": "number"},
                "clients": {"type": "object", "additionalProperties": {"type": "integer"}},
                "events": {"type": "integer"},
                "requests": {"type": "integer"},
                "errors": {"type": "integer"},
                "redis": {
                    "type": "object",
                    "properties": {
                        "status": {"enum": ["connecting", "up", "down", "closed", "error"]},
                        "error": {"type": "string"},
                    },
                },
                "auth": {
                    "type": "object",
                    "description": "authentication failures (checked), attempts over the rate"
                    " limits, live session tickets, PINs waiting for their turn",
                    "required": ["failures", "limited", "sessions", "waiting"],
                    "properties": {
                        k: nonneg for k in ("failures", "limited", "sessions", "waiting")
                    },
                },
                "connections": {
                    "type": "object",
                    "description": "socket connections open now, the cap, and those shed (over a"
                    " cap, out of descriptors), refused, timed out",
                    "required": CONNECTIONS,
                    "properties": {k: nonneg for k in CONNECTIONS},
                },
                "ai_core": {
                    "type": "object",
                    "description": "which core the rules and the AI run on (native: the C"
                    " extension; python: the Python path) and why",
                    "required": ["core", "why"],
                    "properties": {
                        "core": {"enum": ["native", "python"]},
                        "why": {"type": "string"},
                    },
                },
            },
        },
    }
}
write("common", common, "Shared definitions of kiothi-api/1")
C = "common.json#/$defs/"


def ref(n):
    return {"$ref": C + n}


lang = {"type": "string", "pattern": "^[a-z]{2,3}(_[A-Z]{2})?$"}
for spec in TABLE.doors():
    write(f"request.{spec.name}", request_schema(spec), f"Request: {spec.name}")
    write(f"reply.{spec.name}", reply_schema(spec), f"Reply to {spec.name}")
cmds = [spec.name for spec in TABLE.doors()]
write("request", {"oneOf": [{"$ref": f"request.{c}.json"} for c in cmds]}, "Any request")
write(
    "error",
    {
        "type": "object",
        "required": ["id", "ok", "error"],
        "additionalProperties": False,
        "properties": {
            "id": {"oneOf": [ref("id"), {"type": "null"}]},
            "ok": {"const": False},
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "additionalProperties": False,
                "properties": {
                    "code": {
                        "enum": [
                            "parse_error",
                            "invalid_request",
                            "unsupported_version",
                            "unknown_command",
                            "bad_args",
                            "unauthorized",
                            "rate_limited",
                            "line_too_long",
                            "conflict",
                            "illegal",
                            "not_found",
                            "unavailable",
                            "internal",
                        ]
                    },
                    "message": {"type": "string", "maxLength": 400},
                },
            },
        },
    },
    "Error reply (any command)",
)
write(
    "reply",
    {
        "oneOf": [
            {"$ref": "error.json"},
            {
                "type": "object",
                "required": ["id", "ok", "result"],
                "additionalProperties": False,
                "properties": {
                    "id": ref("id"),
                    "ok": {"const": True},
                    "result": {"type": "object"},
                },
            },
        ]
    },
    "Any reply",
)


def ev(name, props, required=()):
    return {
        "type": "object",
        "required": ["event", "seq", *required],
        "properties": {"event": {"const": name}, "seq": {"type": "integer", "minimum": 1}, **props},
    }


events = {
    "position": ev("position", {"position": ref("position")}, ["position"]),
    "guide": ev(
        "guide",
        {
            "stage": {"enum": ["none", "open", "turn", "sow", "guided_open", "set", "over"]},
            "step": {
                "type": ["object", "null"],
                "properties": {
                    "kind": {"enum": ["lift", "drop", "relay", "capture", "set", "done"]},
                    "pit": {"type": "integer", "minimum": -1, "maximum": 19},
                    "lap": {"type": "integer"},
                    "hand": {"type": "integer"},
                    "index": {"type": "integer"},
                },
            },
            "check": {"type": "boolean"},
            "text": {"type": "string"},
        },
        ["stage", "step", "check"],
    ),
    "move": ev("move", {"pit": ref("pit"), "trace": ref("trace")}, ["pit", "trace"]),
    "capture": ev(
        "capture",
        {"captures": {"type": "array", "minItems": 1, "items": ref("capture")}},
        ["captures"],
    ),
    "game_over": ev(
        "game_over",
        {
            "game_id": {"type": "integer"},
            "result": ref("result"),
            "ended": {"enum": [None, "resign", "agreement"]},
            "record": {
                "type": "object",
                "required": ["format", "moves"],
                "properties": {"format": {"const": "kiothi-game/1"}},
            },
        },
        ["game_id", "result", "record"],
    ),
    "input": ev(
        "input",
        {
            "kind": {"enum": ["pressed", "released", "held", "dropped", "stuck", "unstuck"]},
            "pit": {"oneOf": [ref("pit"), {"type": "null"}]},
            "control": {"type": ["integer", "null"]},
        },
        ["kind", "pit"],
    ),
    "health": {"allOf": [ev("health", {}), ref("health")]},
    "new_game": ev(
        "new_game",
        {
            "game_id": {"type": "integer"},
            "mode": {"enum": ["two", "ai", "demo"]},
            "humans": {"type": "array", "items": ref("side")},
            "level": {"oneOf": [{"type": "integer"}, {"const": "adaptive"}]},
            "pace": {"enum": ["step", "flow", "instant"]},
            "variant": ref("variant"),
        },
        ["game_id", "mode", "humans", "level", "pace", "variant"],
    ),
    "wrong": ev(
        "wrong",
        {
            "pit": ref("pit"),
            "reason": {"enum": ["not expected", "endless"]},
            "expect": {"oneOf": [ref("pit"), {"type": "null"}]},
            "message": {"type": "string"},
        },
        ["pit", "reason"],
    ),
    "hint": ev(
        "hint",
        {"pit": ref("pit"), "why": {"oneOf": [{"type": "string"}, {"type": "null"}]}},
        ["pit"],
    ),
    "error": ev("error", {"message": {"type": "string"}}, ["message"]),
    "settings": ev("settings", {"settings": ref("settings")}, ["settings"]),
    "language": ev(
        "language",
        {"lang": lang, "index": {"type": "integer", "minimum": 0}},
        ["lang", "index"],
    ),
    "frame": ev(
        "frame",
        {"leds_per_ring": {"type": "integer", "minimum": 1}, "frame": ref("frame")},
        ["leds_per_ring", "frame"],
    ),
}
for name, schema in events.items():
    write(f"event.{name}", schema, f"Event: {name}")
write(
    "event.overflow",
    {
        "type": "object",
        "required": ["event", "dropped"],
        "properties": {
            "event": {"const": "overflow"},
            "dropped": {"type": "integer", "minimum": 0},
        },
    },
    "Event: overflow (the client fell behind; resync with state)",
)
write(
    "event.closed",
    {
        "type": "object",
        "required": ["event", "reason"],
        "additionalProperties": False,
        "properties": {"event": {"const": "closed"}, "reason": {"type": "string"}},
    },
    "Event: closed (the board closes this connection: idle, over its byte budget)",
)
write(
    "event",
    {"oneOf": [{"$ref": f"event.{n}.json"} for n in [*events, "overflow", "closed"]]},
    "Any event",
)
write(
    "redis.state",
    {
        "type": "object",
        "required": ["seq", "state"],
        "properties": {"seq": {"type": "integer"}, "state": ref("state")},
    },
    "The value of the kiothi:v1:state key",
)
print(len(list(out.glob("*.json"))))
