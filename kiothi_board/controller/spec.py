"""`CommandSpec`: one command of the house's table (kiothi_board/controller/table.py).

A spec names the command, its arguments (typed, with limits: the doors read requests with
them and the JSON schemas are generated from them), the role that may run it, its help line
(a catalog entry), how its reply reads and its handler on the controller. Every door, the
terminal's keys, the board's chords and buttons, the help and the API reference read the
table; nothing else lists command names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from kiothi_board.controller.gestures import Command
from kiothi_board.errors import BadArgumentError
from kiothi_board.i18n import Msg

if TYPE_CHECKING:
    from kiothi_board.controller.kinds import Kind

__all__ = [
    "ROLES",
    "Arg",
    "ArgError",
    "Button",
    "CommandSpec",
    "CommandTable",
    "Page",
    "Role",
    "allowed",
    "keyed",
    "short",
]

Role = Literal["spectator", "seat", "control", "staff"]
"""Who may run a command: anyone (`spectator`), a remote player's seat (`seat`: its own pits
on its own turn, offers, resigning), whoever plays at the board (`control`), the venue's
staff (`staff`: settings, the exhibition, statistics)."""

ROLES: tuple[Role, ...] = ("spectator", "seat", "control", "staff")

_GRANTS: dict[str, frozenset[str]] = {
    "spectator": frozenset({"spectator"}),
    "seat": frozenset({"spectator", "seat"}),
    # The control role is the staff's: the token, the PIN, a ticket or a trusted door.
    "control": frozenset(ROLES),
}


def allowed(session_role: str, needed: Role) -> bool:
    """Whether a session of `session_role` ("spectator", "seat", "control") may run a
    command that needs `needed`."""
    return needed in _GRANTS.get(session_role, frozenset())


class ArgError(BadArgumentError):
    """A request's arguments are wrong: the message names the command and the argument."""


def short(text: str, limit: int = 120) -> str:
    """Quote input in messages, but never echo a whole flood back."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument: its name, its kind (what it accepts, its limits, its schema) and
    whether a request must give it; an optional one absent reads as `default`."""

    name: str
    kind: Kind
    required: bool = False
    default: Any = None


Page = Literal["operator", "twin"]
"""A page that shows buttons: the operator page, the board's twin."""


@dataclass(frozen=True, slots=True)
class Button:
    """How the pages show a command as a button (the `help` reply carries it, `shown()`).

    `label`: its words; `pages`: where it appears; `rank`: its place among a page's buttons
    (lower first; equal ranks keep the table's order); `confirm`: the question asked
    first while a game is on (`yes`: the twin's answer that goes on, by default `label`);
    `done`: what the operator page says once it was done; `danger`: drawn as a warning;
    `key`: the twin's key for it, when not the command's own terminal key; `args`: the
    arguments a press sends (JSON values; none by default).
    """

    label: Msg
    pages: tuple[Page, ...] = ("operator",)
    rank: int = 70
    confirm: Msg | None = None
    yes: Msg | None = None
    done: Msg | None = None
    danger: bool = False
    key: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)

    def shown(self, command_key: str | None) -> dict[str, Any]:
        """What a page needs, JSON-able: the words as message ids (the page translates
        them in its own language of the moment, as it does its own words)."""

        def msgid(m: Msg | None) -> str | None:
            return None if m is None else m.msgid

        return {
            "label": self.label.msgid,
            "pages": list(self.pages),
            "rank": self.rank,
            "confirm": msgid(self.confirm),
            "yes": msgid(self.yes or (self.label if self.confirm else None)),
            "done": msgid(self.done),
            "danger": self.danger,
            "key": self.key or command_key,
            "args": dict(self.args),
        }


Reply = Callable[[Any, Mapping[str, Any]], dict[str, Any]]
Handler = Callable[[Any, Any], object]
"""`handler(controller, value)`: value is None, the one argument, or the arguments' dict."""


def _empty(result: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def keyed(key: str) -> Reply:
    """A reply that carries the handler's result under `key`."""
    return lambda result, args: {key: result}


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One command (see the module docstring).

    `handler` runs on the controller (on the board loop unless `on_loop` is False: a read
    of the store); a command with no handler is the doors' own (`hello`, `subscribe`, …).
    `door`: whether the API serves it (gesture commands such as `tap` are the board's
    alone). `key`, `chords` and `controls` are the terminal's key, the pit pairs held
    together (each with the value it fires) and the control buttons that fire it.
    `returns` and `reply_schema` describe the reply (docs/api.md, docs/api/schemas).
    `turn`: a seat may run it only on its own turn. `least`: how many arguments a request
    must give at least (`schema_extra`: the schema's further bounds). `button`: how the
    pages show it as a button (`Button`), or None. `fleet`: the fleet dashboard's staff
    may send it to a board. `needs_game`: the terminal refuses its key with no
    game on; `ask` (`ask_ai` against the AI): the question the terminal asks before it.
    """

    name: str
    help: Msg
    role: Role = "control"
    args: tuple[Arg, ...] = ()
    handler: Handler | None = None
    reply: Reply = _empty
    returns: str = "`{}`"
    reply_schema: dict[str, Any] = field(
        default_factory=lambda: {"type": "object", "maxProperties": 0}
    )
    door: bool = True
    on_loop: bool = True
    turn: bool = False
    least: int = 0
    schema_extra: dict[str, Any] = field(default_factory=dict)
    key: str | None = None
    needs_game: bool = False
    ask: Msg | None = None
    ask_ai: Msg | None = None
    chords: tuple[tuple[int, int, str | None], ...] = ()
    controls: tuple[int, ...] = ()
    button: Button | None = None
    fleet: bool = False

    def read(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """The arguments checked and typed (absent optional ones at their defaults); an
        `ArgError` names the first bad one, then unknown ones; nothing is changed."""
        given = given or {}
        out: dict[str, Any] = {}
        for arg in self.args:
            value = given.get(arg.name)
            if value is None:
                if arg.required:
                    raise self._bad(arg, value)
                out[arg.name] = arg.default
                continue
            try:
                out[arg.name] = arg.kind.read(value)
            except (ValueError, TypeError, BadArgumentError):
                raise self._bad(arg, value) from None
        extra = set(given) - {a.name for a in self.args}
        if extra:
            raise ArgError(f"{self.name}: unknown args {sorted(extra)!r}")
        if sum(given.get(a.name) is not None for a in self.args) < self.least:
            raise ArgError(f"{self.name}: nothing to set")
        return out

    def _bad(self, arg: Arg, value: Any) -> ArgError:
        want = arg.kind.want()
        return ArgError(f"{self.name}: {arg.name} must be {want}, got {short(repr(value))}")

    def value(self, args: Mapping[str, Any]) -> Any:
        """The controller's `Command` value of read arguments: None, the one argument, or
        the arguments' dict."""
        if not self.args:
            return None
        if len(self.args) == 1:
            return args[self.args[0].name]
        return dict(args)

    def schema(self) -> dict[str, Any]:
        """The JSON schema of this command's `args`."""
        out: dict[str, Any] = {
            "type": "object",
            "additionalProperties": False,
            "properties": {a.name: a.kind.schema() for a in self.args},
            "required": [a.name for a in self.args if a.required],
        }
        if self.least:
            out["minProperties"] = self.least
        return out | self.schema_extra

    def usage(self) -> str:
        """The arguments as docs/api.md and `kiothi-board help` write them."""
        return ", ".join(a.kind.usage(a.name, a.required) for a in self.args) or "—"


class CommandTable:
    """The specs by name, in the order they were added."""

    def __init__(self, specs: tuple[CommandSpec, ...] = ()) -> None:
        """A table of `specs` (names must differ)."""
        self._specs: dict[str, CommandSpec] = {}
        for spec in specs:
            self.add(spec)

    def add(self, spec: CommandSpec) -> CommandSpec:
        """Add one command; a name already taken is a ValueError."""
        if spec.name in self._specs:
            raise ValueError(f"command {spec.name!r} is already in the table")
        self._specs[spec.name] = spec
        return spec

    def remove(self, name: str) -> None:
        """Take a command out (a test's, or a part that stops serving it)."""
        self._specs.pop(name, None)

    def get(self, name: str) -> CommandSpec | None:
        """The spec of `name`, or None."""
        return self._specs.get(name)

    def __getitem__(self, name: str) -> CommandSpec:
        return self._specs[name]

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[CommandSpec]:
        return iter(list(self._specs.values()))

    def doors(self) -> list[CommandSpec]:
        """The commands the API serves."""
        return [s for s in self if s.door]

    def chords(self) -> dict[frozenset[int], Command]:
        """The pit pairs held together and the command each fires (docs/controls.md)."""
        return {frozenset((a, b)): Command(s.name, arg) for s in self for a, b, arg in s.chords}

    def controls(self) -> dict[int, Command]:
        """The control buttons (board.control_pins) and the command each fires."""
        return {i: Command(s.name) for s in self for i in s.controls}

    def keys(self) -> dict[str, str]:
        """The terminal simulator's command keys and their commands."""
        return {s.key: s.name for s in self if s.key is not None}
