"""The dispatcher's built-in commands, its topics and command sets, and request helpers.

`CommandHandlers` is a mixin that `Dispatcher` (kiothi_board/api/dispatcher.py) inherits;
each handler takes the session and the request's `Args` and returns the reply's result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kiothi_board import __version__
from kiothi_board.ai.levels import LEVEL_CHOICES
from kiothi_board.api.access import AccessPolicy
from kiothi_board.api.args import Args, short
from kiothi_board.api.protocol import PROTOCOL, VERSION, ApiError
from kiothi_board.api.service import BoardService
from kiothi_board.api.session import ClientSession
from kiothi_board.clock import Clock
from kiothi_board.errors import (
    BadArgumentError,
    ConflictError,
    KiothiError,
    NotFoundError,
    RulesError,
    StoreUsageError,
    UnknownGameError,
)
from kiothi_board.frame import Frame
from kiothi_board.guide import PALETTES
from kiothi_board.hardware.protocols import Frame as FrameLike
from kiothi_board.i18n import LANGUAGE_NAMES, available
from kiothi_board.rules import pit_name

__all__ = [
    "COMMANDS",
    "CONTROL_COMMANDS",
    "DEFAULT_TOPICS",
    "TOPICS",
    "CommandHandlers",
    "frame_to_hex",
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

DEFAULT_TOPICS: frozenset[str] = frozenset(TOPICS) - {"frame"}
"""What `subscribe` with no topics gives: everything but the LED frames (the bulky stream)."""

CONTROL_COMMANDS: frozenset[str] = frozenset(
    {
        "new_game",
        "tutorial",
        "press",
        "move",
        "opening",
        "undo",
        "hint",
        "resign",
        "end",
        "check",
        "settings.set",
    }
)
"""Commands that change the game or the board; they need the `control` role."""

_DOES: dict[str, str] = {
    "new_game": "start a game",
    "tutorial": "start the tutorial",
    "press": "press pits",
    "move": "play a move",
    "opening": "play an opening",
    "undo": "undo a move",
    "hint": "ask for a hint",
    "resign": "resign",
    "end": "end the game",
    "check": "check the board",
    "settings.set": "change the settings",
}


def watching_only(cmd: str) -> str:
    """Why a watcher's command was refused, in plain words (the page shows it as it is)."""
    does = _DOES.get(cmd, f"use {cmd}")
    return (
        f"You are only watching this board, so you cannot {does}. To play, open the play "
        "link the board prints when it starts, or sign in with the board's access code "
        "(docs/api.md, Access)."
    )


COMMANDS: tuple[str, ...] = (
    "hello",
    "auth",
    "ping",
    "state",
    "frame",
    "subscribe",
    "unsubscribe",
    "settings.get",
    "games.list",
    "games.get",
    "health",
    "lang",
    *sorted(CONTROL_COMMANDS),
)


def frame_to_hex(frame: FrameLike) -> list[str]:
    """A frame as 20 strings of `rrggbb` per LED: compact and trivial to draw in JS."""
    return Frame(frame).hex()


class CommandHandlers:
    """The built-in command handlers, mixed into `Dispatcher` (which sets these fields)."""

    service: BoardService
    access: AccessPolicy
    sim: bool
    max_line: int
    _clock: Clock
    _rate: float
    _burst: float
    _hub_lock: threading.Lock
    _health: dict[str, Callable[[], Any]]
    _seq: int
    language: str
    languages: tuple[str, ...]

    def _hello(self, session: ClientSession, a: Args) -> dict[str, Any]:
        secrets_ = {k: a.opt_text(k, 256) for k in ("token", "pin", "ticket")}
        client = a.opt_text("client", 64)
        lang = a.opt_choice("lang", available())
        a.done()
        ticket = None
        if any(secrets_.values()):
            ticket = self._authorize(session, **secrets_)
        if client is not None:
            session.client = client
        if lang is not None:
            session.lang = lang
        extra = {} if ticket is None else {"ticket": ticket}
        return extra | {
            "protocol": PROTOCOL,
            "version": VERSION,
            "server": f"kiothi-board {__version__}",
            "session": session.id,
            "transport": session.transport,
            "role": session.role,
            "sim": self.sim,
            "capabilities": self._capabilities(),
            "commands": list(COMMANDS),
            "control_commands": sorted(CONTROL_COMMANDS),
            "topics": list(TOPICS),
            "board": {
                "pits": 20,
                "south": [pit_name(p) for p in range(10)],
                "north": [pit_name(p) for p in range(10, 20)],
                "sowing": "counter-clockwise",
                "leds_per_ring": self.service.leds_per_ring,
                "led_order": "LED 0 at the ring's top as its owner sees it, then clockwise",
            },
            "limits": {"max_line": self.max_line, "rate": self._rate, "burst": self._burst},
            "levels": [dict(c) for c in LEVEL_CHOICES],
            **self._languages(session),
        }

    def _languages(self, session: ClientSession) -> dict[str, Any]:
        """The session's language, the board's, and those the venue enabled (with names)."""
        return {
            "lang": session.lang or self.language,
            "board_lang": self.language,
            "languages": [{"code": c, "name": LANGUAGE_NAMES.get(c, c)} for c in self.languages],
        }

    def _lang(self, session: ClientSession, a: Args) -> dict[str, Any]:
        """`lang` {"lang": "de"}: this session's words in German; {} follows the board again."""
        lang = a.opt_choice("lang", available())
        a.done()
        session.lang = lang
        return self._languages(session)

    def _capabilities(self) -> list[str]:
        caps = ["events", "frames", "games", "settings", "press"]
        if self.sim:
            caps.append("sim")
        if self.access.accepts_secrets:
            caps.append("token")
        caps.extend(sorted(self._health))  # optional parts that report health ("redis")
        return caps

    def _authorize(self, session: ClientSession, **secrets_: str | None) -> str:
        """Check a token, PIN or ticket (kiothi_board/api/access.py); returns a ticket."""
        if session.no_secrets is not None:
            # Refused before it is checked: the secret was already readable by others.
            raise ApiError("unauthorized", session.no_secrets)
        token, pin, ticket_ = (secrets_.get(k) for k in ("token", "pin", "ticket"))
        ticket = self.access.authenticate(
            session.peer, locked=session.locked, token=token, pin=pin, ticket=ticket_
        )
        session.role = "control"
        return ticket

    def _auth(self, session: ClientSession, a: Args) -> dict[str, Any]:
        secrets_ = {k: a.opt_text(k, 256) for k in ("token", "pin", "ticket")}
        a.done()
        ticket = self._authorize(session, **secrets_)
        return {"role": session.role, "ticket": ticket}

    def _ping(self, session: ClientSession, a: Args) -> dict[str, Any]:
        a.done()
        return {"time": self._clock.wall()}

    def _state(self, session: ClientSession, a: Args) -> dict[str, Any]:
        a.done()
        return {"state": self.service.state(), "seq": self._seq}

    def _frame(self, session: ClientSession, a: Args) -> dict[str, Any]:
        a.done()
        return {
            "leds_per_ring": self.service.leds_per_ring,
            "frame": frame_to_hex(self.service.frame()),
        }

    def _subscribe(self, session: ClientSession, a: Args) -> dict[str, Any]:
        topics = a.topics()
        a.done()
        with self._hub_lock:
            session.topics = session.topics | (DEFAULT_TOPICS if topics is None else topics)
            seq = self._seq
        return {"topics": sorted(session.topics), "seq": seq}

    def _unsubscribe(self, session: ClientSession, a: Args) -> dict[str, Any]:
        topics = a.topics()
        a.done()
        with self._hub_lock:
            session.topics = frozenset() if topics is None else session.topics - topics
        return {"topics": sorted(session.topics)}

    def _settings_get(self, session: ClientSession, a: Args) -> dict[str, Any]:
        a.done()
        return {"settings": self.service.get_settings()}

    def _settings_set(self, session: ClientSession, a: Args) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if "palette" in a:
            values["palette"] = a.choice("palette", tuple(PALETTES))
        if "brightness" in a:
            values["brightness"] = a.number("brightness", 0.0, 1.0)
        values.update(a.game_settings(required=False))
        a.done()
        if not values:
            raise ApiError("bad_args", "settings.set: nothing to set")
        return {"settings": self.service.set_settings(values)}

    def _games_list(self, session: ClientSession, a: Args) -> dict[str, Any]:
        limit = a.integer("limit", 1, 200, 50)
        offset = a.integer("offset", 0, 10**9, 0)
        a.done()
        return {"games": self.service.list_games(limit, offset)}

    def _games_get(self, session: ClientSession, a: Args) -> dict[str, Any]:
        gid = a.integer("id", 1, 2**62)
        a.done()
        game = self.service.get_game(gid)
        if game is None:
            raise ApiError("not_found", f"no game {gid}")
        return {"game": game}

    def _new_game(self, session: ClientSession, a: Args) -> dict[str, Any]:
        given = a.game_settings(required=False)
        a.done()
        s = {**self.service.get_settings(), **given}
        gid = self.service.new_game(
            str(s["mode"]), str(s["sides"]), s["level"], str(s["pace"]), dict(s["variant"])
        )
        return {"game_id": gid}

    def _press(self, session: ClientSession, a: Args) -> dict[str, Any]:
        pit = a.pit("pit")
        hold = a.opt_bool("hold")
        a.done()
        self.service.press(pit, hold=bool(hold))
        return {"pit": pit_name(pit)}

    def _tutorial(self, session: ClientSession, a: Args) -> dict[str, Any]:
        a.done()
        return {"game_id": self.service.tutorial()}

    def _move(self, session: ClientSession, a: Args) -> dict[str, Any]:
        pit = a.pit("pit")
        a.done()
        self.service.move(pit)
        return {"pit": pit_name(pit)}

    def _opening(self, session: ClientSession, a: Args) -> dict[str, Any]:
        action = a.text("action", 400)
        a.done()
        from kiothi_board.rules import parse_opening

        try:
            parsed = parse_opening(action)
        except RulesError as exc:
            raise ApiError("bad_args", f"opening: {short(str(exc))}") from exc
        self.service.opening(str(parsed))
        return {"action": str(parsed)}

    def _undo(self, session: ClientSession, a: Args) -> dict[str, Any]:
        a.done()
        self.service.undo()
        return {}

    def _hint(self, session: ClientSession, a: Args) -> dict[str, Any]:
        a.done()
        self.service.hint()
        return {}

    def _resign(self, session: ClientSession, a: Args) -> dict[str, Any]:
        side = a.opt_choice("side", ("S", "N"))
        a.done()
        self.service.resign(side)
        return {}

    def _end(self, session: ClientSession, a: Args) -> dict[str, Any]:
        a.done()
        self.service.end()
        return {}

    def _check(self, session: ClientSession, a: Args) -> dict[str, Any]:
        on = a.opt_bool("on")
        a.done()
        return {"check": self.service.check_board(on)}


def _code_of(exc: KiothiError) -> str:
    """The reply code of one of the project's errors (anything else is `internal`)."""
    if isinstance(exc, NotFoundError | UnknownGameError):
        return "not_found"
    if isinstance(exc, RulesError):
        return "illegal"
    if isinstance(exc, BadArgumentError | StoreUsageError):
        return "bad_args"
    if isinstance(exc, ConflictError):
        return "conflict"
    return "internal"
