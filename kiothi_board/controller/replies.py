"""The JSON schemas of the doors' own replies (`hello`, `lang`, `auth`, `state`, …), each
given to its entry of the command table (`reply_schema=`), and the topics a client may
subscribe to. docs/api/make_schemas.py writes them to docs/api/schemas/ from the table;
`common.json#/$defs/…` are the shared definitions it writes beside them.
"""

from __future__ import annotations

from typing import Any, get_args

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.controller.spec import ROLES, Page

__all__ = [
    "AUTH",
    "FRAME",
    "GAMES_LIST",
    "GAME_ID",
    "HEALTH",
    "HELLO",
    "HELP",
    "LANG",
    "PING",
    "PIT",
    "SETTINGS",
    "STATE",
    "SUBSCRIBE",
    "TOPICS",
    "UNSUBSCRIBE",
]

TOPICS: tuple[str, ...] = (
    "position",
    "guide",
    "move",
    "capture",
    "game_over",
    "input",
    "health",
    "new_game",
    "wrong",
    "hint",
    "error",
    "settings",
    "language",
    "frame",
)
"""Event types a client may subscribe to (`overflow` is always sent)."""


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": "common.json#/$defs/" + name}


_TOPIC_LIST = list(TOPICS)
_TICKET = {"type": "string", "minLength": 16}
_LANG = {"type": "string", "pattern": "^[a-z]{2,3}(_[A-Z]{2})?$"}
_LANGUAGES: dict[str, Any] = {
    "lang": _LANG,
    "board_lang": _LANG,
    "languages": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["code", "name"],
            "additionalProperties": False,
            "properties": {"code": _LANG, "name": {"type": "string"}},
        },
    },
}


HELLO: dict[str, Any] = {
    "type": "object",
    "required": [
        "protocol",
        "version",
        "role",
        "sim",
        "capabilities",
        "commands",
        "topics",
        "board",
    ],
    "properties": {
        "protocol": {"const": "kiothi-api/1"},
        "version": {"const": 1},
        "server": {"type": "string"},
        "session": {"type": "integer"},
        "transport": {"enum": ["serial", "tcp", "unix", "websocket", "redis", "direct"]},
        "role": {"enum": ["control", "spectator"]},
        "sim": {"type": "boolean"},
        "capabilities": {"type": "array", "items": {"type": "string"}},
        "commands": {"type": "array", "items": {"type": "string"}},
        "control_commands": {"type": "array"},
        "topics": {"type": "array", "items": {"enum": _TOPIC_LIST}},
        "board": {
            "type": "object",
            "required": ["pits", "south", "north", "leds_per_ring"],
            "properties": {
                "pits": {"const": 20},
                "south": {"type": "array", "items": _ref("pit")},
                "north": {"type": "array", "items": _ref("pit")},
                "leds_per_ring": {"type": "integer", "minimum": 1},
            },
        },
        "limits": {"type": "object"},
        "levels": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["level", "name", "about"],
                "additionalProperties": False,
                "properties": {
                    "level": LevelChoice.schema(),
                    "name": {"type": "string"},
                    "about": {"type": "string"},
                },
            },
        },
        "ticket": _TICKET,
        **_LANGUAGES,
    },
}
"""`hello`'s result."""


LANG: dict[str, Any] = {
    "type": "object",
    "required": ["lang", "board_lang", "languages", "levels"],
    # the levels' names and words in the session's new language (as hello's levels)
    "properties": {**_LANGUAGES, "levels": {"type": "array"}},
}
"""`lang`'s result."""


AUTH: dict[str, Any] = {
    "type": "object",
    "required": ["role", "ticket"],
    "properties": {"role": {"const": "control"}, "ticket": _TICKET},
}
"""`auth`'s result."""


PING: dict[str, Any] = {
    "type": "object",
    "required": ["time"],
    "properties": {"time": {"type": "number"}},
}
"""`ping`'s result."""


STATE: dict[str, Any] = {
    "type": "object",
    "required": ["state", "seq"],
    "properties": {"state": _ref("state"), "seq": {"type": "integer"}},
}
"""`state`'s result."""


FRAME: dict[str, Any] = {
    "type": "object",
    "required": ["leds_per_ring", "frame"],
    "properties": {"leds_per_ring": {"type": "integer"}, "frame": _ref("frame")},
}
"""`frame`'s result."""


SUBSCRIBE: dict[str, Any] = {
    "type": "object",
    "required": ["topics", "seq"],
    "properties": {
        "topics": {"type": "array", "items": {"enum": _TOPIC_LIST}},
        "seq": {"type": "integer"},
    },
}
"""`subscribe`'s result."""


UNSUBSCRIBE: dict[str, Any] = {
    "type": "object",
    "required": ["topics"],
    "properties": {"topics": {"type": "array", "items": {"enum": _TOPIC_LIST}}},
}
"""`unsubscribe`'s result."""


GAMES_LIST: dict[str, Any] = {
    "type": "object",
    "required": ["games"],
    "properties": {
        "games": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "result"],
                "properties": {"id": {"type": "integer"}, "result": _ref("result")},
            },
        }
    },
}
"""`games.list`'s result."""


HEALTH: dict[str, Any] = _ref("health")
"""`health`'s result."""


_BUTTON: dict[str, Any] = {
    "type": "object",
    "required": ["label", "pages", "rank", "confirm", "yes", "done", "danger", "key", "args"],
    "additionalProperties": False,
    "properties": {
        "label": {"type": "string"},
        "pages": {"type": "array", "items": {"enum": list(get_args(Page))}},
        "rank": {"type": "integer"},
        "confirm": {"type": ["string", "null"]},
        "yes": {"type": ["string", "null"]},
        "done": {"type": ["string", "null"]},
        "danger": {"type": "boolean"},
        "key": {"type": ["string", "null"]},
        "args": {"type": "object"},
    },
}
HELP: dict[str, Any] = {
    "type": "object",
    "required": ["commands"],
    "properties": {
        "commands": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "args", "role", "help", "allowed", "button"],
                "properties": {
                    "name": {"type": "string"},
                    "args": {"type": "string"},
                    "role": {"enum": list(ROLES)},
                    "help": {"type": "string"},
                    "allowed": {"type": "boolean"},
                    # how a page shows it (its words as message ids), or null
                    "button": {"oneOf": [_BUTTON, {"type": "null"}]},
                },
            },
        }
    },
}
"""`help`'s result."""


GAME_ID: dict[str, Any] = {
    "type": "object",
    "required": ["game_id"],
    "properties": {"game_id": {"type": "integer"}},
}
PIT: dict[str, Any] = {
    "type": "object",
    "required": ["pit"],
    "properties": {"pit": {"$ref": "common.json#/$defs/pit"}},
}
SETTINGS: dict[str, Any] = {
    "type": "object",
    "required": ["settings"],
    "properties": {"settings": {"$ref": "common.json#/$defs/settings"}},
}


SEAT_LINK: dict[str, Any] = {
    "type": "object",
    "required": ["side", "link", "url", "expires"],
    "properties": {"link": {"type": "string"}, "url": {"type": ["string", "null"]}},
}
