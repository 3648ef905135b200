"""The doors' own commands (`hello`, `subscribe`, `press`, …), the refusals, the help.

`CommandHandlers` is a mixin that `Dispatcher` (kiothi_board/api/dispatcher.py) inherits.
Every command is an entry of the command table (kiothi_board/controller/table.py): those
with a handler run on the board (`BoardService.call`); the others are served here, each by
the method `_cmd_<name>` (dots as underscores), which takes the session and the read
arguments and returns the reply's result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kiothi_board import __version__
from kiothi_board.ai.levels import LEVEL_CHOICES
from kiothi_board.api.access import AccessPolicy
from kiothi_board.api.protocol import PROTOCOL, VERSION, ApiError
from kiothi_board.api.service import BoardService
from kiothi_board.api.session import ClientSession
from kiothi_board.clock import Clock
from kiothi_board.controller.spec import CommandSpec, allowed
from kiothi_board.controller.table import TABLE, TOPICS, CommandTable
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
from kiothi_board.hardware.protocols import Frame as FrameLike
from kiothi_board.i18n import LANGUAGE_NAMES, Msg, tr
from kiothi_board.rules import pit_name

__all__ = [
    "COMMANDS",
    "CONTROL_COMMANDS",
    "DEFAULT_TOPICS",
    "TOPICS",
    "CommandHandlers",
    "frame_to_hex",
    "refusal",
]

DEFAULT_TOPICS: frozenset[str] = frozenset(TOPICS) - {"frame"}
"""What `subscribe` with no topics gives: everything but the LED frames (the bulky stream)."""

COMMANDS: tuple[str, ...] = tuple(s.name for s in TABLE.doors())
"""The API's built-in commands, as the table lists them (parts add theirs with
`Dispatcher.add_command`)."""

CONTROL_COMMANDS: frozenset[str] = frozenset(s.name for s in TABLE.doors() if s.role != "spectator")
"""Built-in commands a spectator may not run (they need a seat, control or staff)."""


def refusal(spec: CommandSpec, session: ClientSession) -> Msg:
    """Why `session` may not run `spec`, in plain words (the page shows it as it is)."""
    if session.role == "seat":
        return tr(
            "This seat plays {side} only, so it cannot {does}.",
            side=str(session.seat),
            does=spec.help,
        )
    return tr(
        "You are only watching this board, so you cannot {does}. To play, open the play "
        "link the board prints when it starts, or sign in with the board's access code "
        "(docs/api.md, Access).",
        does=spec.help,
    )


def frame_to_hex(frame: FrameLike) -> list[str]:
    """A frame as 20 strings of `rrggbb` per LED: compact and trivial to draw in JS."""
    return Frame(frame).hex()


class CommandHandlers:
    """The doors' own command handlers, mixed into `Dispatcher` (which sets these fields)."""

    service: BoardService
    access: AccessPolicy
    table: CommandTable
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
    # The page's address for links (`seat_link`'s `url`); set by api/doors.py's open_doors.
    web_url: Callable[[], str | None] = staticmethod(lambda: None)

    def health(self) -> dict[str, Any]:
        raise NotImplementedError  # the dispatcher's

    def _served(self) -> list[CommandSpec]:
        return self.table.doors()

    def _cmd_hello(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        secrets_ = {k: a[k] for k in ("token", "pin", "ticket")}
        ticket = None
        if any(secrets_.values()):
            ticket = self._authorize(session, **secrets_)
        if a["client"] is not None:
            session.client = a["client"]
        if a["lang"] is not None:
            session.lang = a["lang"]
        extra = {} if ticket is None else {"ticket": ticket}
        served = self._served()
        return extra | {
            "protocol": PROTOCOL,
            "version": VERSION,
            "server": f"kiothi-board {__version__}",
            "session": session.id,
            "transport": session.transport,
            "role": session.role,
            "seat": session.seat,
            "sim": self.sim,
            "capabilities": self._capabilities(),
            "commands": [s.name for s in served],
            "control_commands": sorted(s.name for s in served if s.role != "spectator"),
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

    def _cmd_help(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        """Every command of the doors, with its arguments, its role and its help line (in
        the session's language), and whether this session may run it."""
        return {
            "commands": [
                {
                    "name": s.name,
                    "args": s.usage(),
                    "role": s.role,
                    "help": s.help,
                    "allowed": allowed(session.role, s.role),
                    "button": None if s.button is None else s.button.shown(s.key),
                }
                for s in self._served()
            ]
        }

    def _languages(self, session: ClientSession) -> dict[str, Any]:
        """The session's language, the board's, and those the venue enabled (with names)."""
        return {
            "lang": session.lang or self.language,
            "board_lang": self.language,
            "languages": [{"code": c, "name": LANGUAGE_NAMES.get(c, c)} for c in self.languages],
        }

    def _cmd_lang(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        """`lang` {"lang": "de"}: this session's words in German; {} follows the board again.
        The reply carries `levels` too, their words in that language."""
        session.lang = a["lang"]
        # The levels' words again, in the new language (the operator page's level list).
        return self._languages(session) | {"levels": [dict(c) for c in LEVEL_CHOICES]}

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
        seated = None if session.locked or not ticket_ else self.access.take_seat(ticket_)
        if seated is not None and not (token or pin):
            session.role, (session.seat, ticket) = "seat", seated  # plays that side only
            session.seat_ticket = ticket
            return ticket
        ticket = self.access.authenticate(
            session.peer, locked=session.locked, token=token, pin=pin, ticket=ticket_
        )
        session.role = "control"
        session.seat = session.seat_ticket = None
        return ticket

    def _cmd_auth(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        ticket = self._authorize(session, **a)
        return {"role": session.role, "ticket": ticket}

    def _cmd_ping(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        return {"time": self._clock.wall()}

    def _cmd_state(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        return {"state": self.service.state(), "seq": self._seq}

    def _cmd_frame(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        return {
            "leds_per_ring": self.service.leds_per_ring,
            "frame": frame_to_hex(self.service.frame()),
        }

    def _cmd_subscribe(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        topics = a["topics"]
        with self._hub_lock:
            session.topics = session.topics | (DEFAULT_TOPICS if topics is None else topics)
            seq = self._seq
        return {"topics": sorted(session.topics), "seq": seq}

    def _cmd_unsubscribe(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        topics = a["topics"]
        with self._hub_lock:
            session.topics = frozenset() if topics is None else session.topics - topics
        return {"topics": sorted(session.topics)}

    def _cmd_health(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        return self.health()

    def _cmd_seat_link(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        """A one-time, expiring link that seats a person on the web as `side`."""
        ticket = self.access.issue_seat(a["side"], float(a["expires"]))
        link = f"#seat={ticket}"
        base = self.web_url()
        return {
            "side": a["side"],
            "link": link,
            "url": None if base is None else base + link,
            "expires": round(self._clock.wall() + a["expires"], 3),
        }

    def _cmd_press(self, session: ClientSession, a: dict[str, Any]) -> dict[str, Any]:
        self.service.press(a["pit"], hold=bool(a["hold"]))
        return {"pit": pit_name(a["pit"])}


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
