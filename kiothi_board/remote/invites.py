"""Invitations between boards: invite, accept, decline (they expire, and an exhibition
accepts only the boards its config lists). A part of the wire (`wire.RemoteWire`)."""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import threading
from typing import Any

from kiothi_board.clock import Clock
from kiothi_board.errors import ConflictError
from kiothi_board.i18n import tr
from kiothi_board.remote.actions import BadActionError
from kiothi_board.remote.match import MatchSpec
from kiothi_board.remote.topics import MatchInvitation, MatchTopics
from kiothi_board.rules import STANDARD, Variant

__all__ = ["Invitations"]

log = logging.getLogger(__name__)


class Invitations:
    """The invitation half of the wire; the wire gives the attributes and `_publish`,
    `_begin` and `free`."""

    settings: Any
    topics: MatchTopics
    _clock: Clock
    _lock: threading.RLock
    invitations: dict[str, MatchInvitation]
    sent: MatchInvitation | None
    refused: int

    @property
    def free(self) -> bool:
        """Whether no match is on (the wire's)."""
        raise NotImplementedError

    def _publish(self, topic: str, payload: str, *, retain: bool, expiry: float = 0) -> None:
        raise NotImplementedError

    def _begin(self, spec: MatchSpec) -> None:
        raise NotImplementedError

    def invite(self, board: str, *, side: str = "S", move_seconds: int | None = None,
               variant: Variant = STANDARD) -> dict[str, Any]:  # fmt: skip
        """Invite `board` to a match, this board playing `side`; the invitation."""
        me = self.settings.board
        if board == me:
            raise ConflictError(tr("a board cannot invite itself"))
        if not self.free:
            raise ConflictError(tr("a remote match is already on"))
        mid = f"{me}-{secrets.token_hex(4)}"
        south, north = (me, board) if side == "S" else (board, me)
        spec = MatchSpec(mid, south, north, variant, move_seconds)
        inv = MatchInvitation(
            spec, me, self.settings.name, self._clock.wall() + self.settings.invite_s
        )
        with self._lock:
            self.sent = inv
        self._publish(
            self.topics.invite(me, board),
            json.dumps(inv.to_json()),
            retain=True,
            expiry=self.settings.invite_s,
        )
        return {"match": mid, "to": board, "side": side}

    def accept(self, host: str | None = None) -> dict[str, Any]:
        """Accept the invitation of `host` (None: the only one standing); the match."""
        inv = self._standing(host)
        self._answer(inv, "accept")
        self._begin(inv.spec)
        return {"match": inv.spec.match, "with": inv.host}

    def decline(self, host: str | None = None) -> dict[str, Any]:
        """Decline the invitation of `host` (None: the only one standing)."""
        inv = self._standing(host)
        self._answer(inv, "decline")
        return {"match": inv.spec.match, "with": inv.host}

    def _standing(self, host: str | None) -> MatchInvitation:
        now = self._clock.wall()
        with self._lock:
            live = {h: i for h, i in self.invitations.items() if i.expires > now}
            self.invitations = live
            if host is None and len(live) == 1:
                return next(iter(live.values()))
            if host is not None and host in live:
                return live[host]
        raise ConflictError(tr("no such invitation is standing"))

    def _answer(self, inv: MatchInvitation, answer: str) -> None:
        with self._lock:
            self.invitations.pop(inv.host, None)
        body = json.dumps({"match": inv.spec.match, "answer": answer})
        self._publish(self.topics.answer(self.settings.board, inv.host), body, retain=False)

    def _invited(self, host: str, payload: bytes) -> None:
        if not payload:
            self.invitations.pop(host, None)
            return
        try:
            inv = MatchInvitation.from_json(json.loads(payload), host)
        except (ValueError, BadActionError) as exc:
            self.refused += 1
            log.warning("remote: invitation of %s refused: %s", host, exc)
            return
        s = self.settings
        allowed = not s.exhibition or not s.accept_from or host in s.accept_from
        if inv.guest != s.board or inv.expires <= self._clock.wall() or not allowed:
            self.refused += 1
            return
        with self._lock:
            self.invitations[host] = inv

    def _answered(self, guest: str, payload: bytes) -> None:
        with contextlib.suppress(ValueError):
            data = json.loads(payload)
            sent = self.sent
            if sent is None or not isinstance(data, dict) or data.get("match") != sent.spec.match:
                return
            if sent.guest != guest or sent.expires <= self._clock.wall():
                return
            self.sent = None
            self._publish(self.topics.invite(self.settings.board, guest), "", retain=True)
            if data.get("answer") == "accept":
                self._begin(sent.spec)
