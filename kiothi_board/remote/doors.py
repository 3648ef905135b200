"""Remote play's commands in the API (`remote_invite`, `remote_accept`, …), served by the
wire (`wire.py`) on every door of the board's dispatcher, and how the daemon builds it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kiothi_board.controller.kinds import Choice, Integer, Text
from kiothi_board.controller.spec import Arg, CommandSpec
from kiothi_board.errors import ConflictError
from kiothi_board.i18n import tr
from kiothi_board.remote.wire import RemoteWire

if TYPE_CHECKING:
    from kiothi_board.api.server import ApiServer

__all__ = ["REMOTE_COMMANDS", "guard", "install"]

_ANY: dict[str, Any] = {"type": "object"}
_BOARD = Text(64)

REMOTE_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "remote_status",
        tr("read the remote match, the invitations and the boards online"),
        "spectator",
        returns="`match`, `invitations`, `boards` (each: `name`, `lang`, `free`, `presence`)",
        reply_schema=_ANY,
    ),
    CommandSpec(
        "remote_invite",
        tr("invite a board elsewhere to a game"),
        "control",
        (
            Arg("board", _BOARD, True),
            Arg("side", Choice(("S", "N")), default="S"),
            Arg("move_seconds", Integer(5, 3600)),
        ),
        returns="`match`, `to`, `side` (this board's side)",
        reply_schema=_ANY,
    ),
    CommandSpec(
        "remote_accept",
        tr("accept a board's invitation"),
        "control",
        (Arg("from", _BOARD),),
        returns="`match`, `with` (`from` default: the one invitation standing)",
        reply_schema=_ANY,
    ),
    CommandSpec(
        "remote_decline",
        tr("decline a board's invitation"),
        "control",
        (Arg("from", _BOARD),),
        returns="`match`, `with`",
        reply_schema=_ANY,
    ),
    CommandSpec(
        "remote_offer",
        tr("offer the other board to end the game by agreement"),
        "seat",
        returns="`seq`",
        reply_schema=_ANY,
    ),
    CommandSpec(
        "remote_agree",
        tr("accept the other board's offer to end by agreement"),
        "seat",
        returns="`seq`",
        reply_schema=_ANY,
    ),
    CommandSpec(
        "remote_claim",
        tr("claim the win or a draw: the other board has been gone too long"),
        "seat",
        (Arg("claim", Choice(("win", "draw")), True),),
        returns="`seq`, `claim` (refused before `remote.gone_s` of absence)",
        reply_schema=_ANY,
    ),
)
"""Remote play's commands (served when `[remote]` is enabled)."""


def install(server: ApiServer, wire: RemoteWire) -> None:
    """Serve the commands on `server`'s dispatcher and report the wire in `health`."""
    fns = (
        lambda a: wire.status(),
        lambda a: wire.invite(a["board"], side=a["side"], move_seconds=a["move_seconds"]),
        lambda a: wire.accept(a["from"]),
        lambda a: wire.decline(a["from"]),
        lambda a: wire.offer("offer"),
        lambda a: wire.offer("accept"),
        lambda a: wire.claim(a["claim"]),
    )
    for spec, fn in zip(REMOTE_COMMANDS, fns, strict=True):
        server.dispatcher.add_command(spec, fn)
    server.dispatcher.add_health("remote", wire.health)


def guard(session: Any, wire: RemoteWire) -> None:
    """Wrap the board's `undo` and `end` (its chords, buttons and API alike): in a match
    an undo is refused (it would put the boards out of step) and `end` offers the other
    board to end by agreement, or accepts its offer."""
    undo, end = session.commands["undo"], session.commands["end"]

    def guarded_undo(arg: Any) -> object:
        if not wire.free:
            raise ConflictError(tr("in a remote match a move cannot be taken back"))
        return undo(arg)

    def guarded_end(arg: Any) -> object:
        match = wire.match
        if wire.free or match is None:
            return end(arg)
        theirs = match.offer == (match.local.other, "agreement")
        return wire.offer("accept" if theirs else "offer")

    session.register("undo", guarded_undo)
    session.register("end", guarded_end)
