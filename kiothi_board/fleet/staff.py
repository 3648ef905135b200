"""The dashboard's staff: who may act (`StaffGate`, the staff token's check) and what a page
may ask (`handle`: sign in, forget a retired board, or a staff action, which is a command of
the command table marked `fleet`, its arguments read by its spec); `serve_page` is one
page's WebSocket: the table of boards, then every change, within the page's budget.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from typing import Any

from aiohttp import WSMsgType, web

from kiothi_board.api.authlimit import AuthLimiter
from kiothi_board.api.bounded import JsonLimits, PayloadError, loads
from kiothi_board.api.exhibit_doors import EXHIBIT_COMMANDS
from kiothi_board.clock import SystemClock
from kiothi_board.controller.spec import CommandSpec
from kiothi_board.controller.table import TABLE
from kiothi_board.fleet.hub import FleetHub
from kiothi_board.fleet.pages import Encoder, PageOutbox
from kiothi_board.i18n import LANGUAGE_NAMES, available

__all__ = ["MAX_MESSAGE", "StaffGate", "handle", "serve_page", "staff_commands"]


def staff_commands() -> dict[str, CommandSpec]:
    """The commands staff may send a board from the dashboard: the command table's entries
    marked `fleet` (the exhibition's too), read now so a part's own entries count."""
    return {s.name: s for s in (*TABLE, *EXHIBIT_COMMANDS) if s.fleet}


MAX_MESSAGE = 4096
_REFUSED_DELAY = 1.0  # seconds before a page hears that its guess was not even checked
_PAGE_JSON = JsonLimits(max_bytes=MAX_MESSAGE, max_depth=4)  # {"action", "board", "args"}


class StaffGate:
    """The staff token's check: the right token always gets in; wrong guesses spend from a
    bucket per source address and one for everyone (`AuthLimiter`, as on the board), and
    over them are answered a second late, so a hundred WebSockets from one address, or from
    a hundred, are told "wrong" no faster than one (a per-socket delay let 100 sockets make
    98 guesses a second)."""

    def __init__(self, token: str | None, limiter: AuthLimiter | None = None) -> None:
        self._token = token
        self.limiter = limiter or AuthLimiter(
            rate=0.2, burst=5.0, global_rate=1.0, global_burst=10.0, clock=SystemClock()
        )

    @property
    def enabled(self) -> bool:
        """Whether a staff token is set at all (else the dashboard is read-only for all)."""
        return bool(self._token)

    def check(self, peer: str, given: object) -> str:
        """`control`, or why not: `no staff token is set`, `rate_limited`, `wrong token`."""
        if not self._token:
            return "no staff token is set"
        # Compared first: the right token (16+ characters, unguessable) is never refused.
        if isinstance(given, str) and hmac.compare_digest(given.encode(), self._token.encode()):
            return "control"
        if not self.limiter.allow(peer):
            return "rate_limited"
        self.limiter.failed(peer, "fleet token")
        return "wrong token"


async def serve_page(
    ws: web.WebSocketResponse,
    hub: FleetHub,
    gate: StaffGate,
    role: list[str],
    encode: Encoder,
    peer: str,
) -> None:
    """Push the table, then every change (within the page's budget); take `auth` and
    staff actions."""
    loop = asyncio.get_running_loop()
    outbox = PageOutbox()

    def listener(update: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(outbox.put, encode(update))

    async def pump() -> None:
        while True:
            text = await outbox.get()
            if text is None:  # it fell behind: the whole table instead of what it missed
                text = json.dumps({"type": "boards", "boards": hub.boards()})
            await ws.send_str(text)

    first = {
        "type": "boards",
        "boards": hub.boards(),
        "role": role[0],
        "staff": gate.enabled,
        "languages": [{"code": c, "name": LANGUAGE_NAMES.get(c, c)} for c in available()],
    }
    await ws.send_json(first)
    hub.listeners.add(listener)
    pumper = asyncio.create_task(pump())
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                break
            answer = handle(str(msg.data), hub, gate, role, peer)
            if answer.get("message") == "rate_limited":
                # Refused unchecked, yet answering at once costs a core under a flood
                # (4,000 refusals/s from 10 sockets): this page waits a second.
                await asyncio.sleep(_REFUSED_DELAY)
            await ws.send_json(answer)
    finally:
        hub.listeners.remove(listener)
        pumper.cancel()
        await asyncio.gather(pumper, return_exceptions=True)


def handle(
    text: str, hub: FleetHub, gate: StaffGate, role: list[str], peer: str = "?"
) -> dict[str, Any]:
    try:
        msg = loads(text, _PAGE_JSON)
    except PayloadError as exc:
        return {"type": "error", "message": f"not accepted: {exc}"[:120]}
    if not isinstance(msg, dict):
        return {"type": "error", "message": "expected an object"}
    if "auth" in msg:
        verdict = gate.check(peer, msg["auth"])
        if verdict == "control":
            role[0] = "control"
            return {"type": "role", "role": "control"}
        return {"type": "error", "message": verdict}
    action = msg.get("action")
    if action == "forget":  # the dashboard's own table: a retired board, not a command
        if role[0] != "control":
            return {"type": "error", "message": "forget needs the staff token"}
        name = str(msg.get("board", ""))
        if not hub.forget(name):
            return {"type": "error", "message": f"{name[:40]} is online or unknown: not forgotten"}
        return {"type": "forgotten", "board": name}
    spec = staff_commands().get(action) if isinstance(action, str) else None
    if spec is None:
        return {"type": "error", "message": f"unknown action {str(action)[:40]!r}"}
    if role[0] != "control":
        return {"type": "error", "message": f"{action} needs the staff token"}
    args = msg.get("args") or {}
    if not isinstance(args, dict):
        return {"type": "error", "message": f"{spec.name}: args must be an object"}
    try:
        spec.read(args)  # the table's checks, as the board's own doors read it
        hub.command(str(msg.get("board", "")), spec.name, args)
    except (ValueError, TypeError, RuntimeError) as exc:
        return {"type": "error", "message": str(exc)}
    return {"type": "sent", "action": action, "board": msg.get("board")}
