"""The remote match's topics and invitations (pure: names and JSON, no client).

Under the fleet's prefix (`kiothi/v1` by default); a topic's writer is the broker user named
in it (the ACL's `%u` lines, `fleet --print-acl`), so its place in the topic is the sender:

- `<prefix>/<board>/status`             `online`/`offline`, retained, the last will (the MQTT
  adapter's): a board's presence, in a match too;
- `<prefix>/<board>/lobby`              retained: `{"name", "lang", "free"}`;
- `<prefix>/<board>/invite/<to>`        retained for a minute (MQTT 5 message expiry): an
  invitation (`MatchInvitation`); an empty message withdraws it;
- `<prefix>/<board>/answer/<to>`        `{"match", "answer": "accept"|"decline"}`;
- `<prefix>/match/<id>/<board>/a/<seq>` retained: the board's action number `seq` (its log);
- `<prefix>/match/<id>/<board>/stop`    retained: why the board stopped the match (a desync).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kiothi_board.remote.actions import BadActionError
from kiothi_board.remote.match import MatchSpec
from kiothi_board.rules import Side

__all__ = ["MatchInvitation", "MatchTopics", "match_id_ok"]

_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def match_id_ok(text: str) -> bool:
    """Whether `text` may be a match id (one topic level, no wildcards)."""
    return bool(_ID.match(text))


@dataclass(frozen=True, slots=True)
class MatchTopics:
    """The topic names of one board under one prefix."""

    prefix: str
    board: str

    def status(self, board: str) -> str:
        """A board's presence."""
        return f"{self.prefix}/{board}/status"

    def lobby(self, board: str) -> str:
        """A board's retained lobby card."""
        return f"{self.prefix}/{board}/lobby"

    def invite(self, sender: str, to: str) -> str:
        """An invitation from `sender` to `to`."""
        return f"{self.prefix}/{sender}/invite/{to}"

    def answer(self, sender: str, to: str) -> str:
        """`sender`'s answer to `to`'s invitation."""
        return f"{self.prefix}/{sender}/answer/{to}"

    def action(self, match: str, sender: str, seq: int) -> str:
        """`sender`'s action number `seq` in `match`."""
        return f"{self.prefix}/match/{match}/{sender}/a/{seq}"

    def stop(self, match: str, sender: str) -> str:
        """Why `sender` stopped `match`."""
        return f"{self.prefix}/match/{match}/{sender}/stop"

    def match_filter(self, match: str) -> str:
        """Everything of `match`."""
        return f"{self.prefix}/match/{match}/#"

    def sender(self, topic: str, *, at: int) -> str:
        """The board named at level `at` below the prefix (the writer, by the ACL)."""
        rest = topic[len(self.prefix) + 1 :].split("/")
        return rest[at] if len(rest) > at else ""


@dataclass(frozen=True, slots=True)
class MatchInvitation:
    """`host` invites `guest`: the match (id, boards on each side, variant, time per
    move), the pace each board guides in, the host's name and when it expires (wall s)."""

    spec: MatchSpec
    host: str
    name: str
    expires: float

    @property
    def guest(self) -> str:
        """The invited board."""
        return self.spec.board(self.host_side.other)

    @property
    def host_side(self) -> Side:
        """The side the host plays."""
        side = self.spec.side_of(self.host)
        assert side is not None
        return side

    def to_json(self) -> dict[str, Any]:
        """The invitation on the bus."""
        return {"spec": self.spec.to_json(), "name": self.name, "expires": self.expires}

    @classmethod
    def from_json(cls, data: Any, host: str) -> MatchInvitation:
        """Read an invitation written by `host`; BadActionError when it is not one."""
        if not isinstance(data, dict):
            raise BadActionError("an invitation is an object")
        spec = MatchSpec.from_json(data.get("spec"))
        name, expires = data.get("name"), data.get("expires")
        if spec.side_of(host) is None or not match_id_ok(spec.match):
            raise BadActionError(f"invitation of {host!r} for a match it does not play")
        if not isinstance(name, str) or not 0 < len(name) <= 80:
            raise BadActionError("an invitation names its board")
        if isinstance(expires, bool) or not isinstance(expires, int | float):
            raise BadActionError("an invitation says when it expires")
        return cls(spec, host, name, float(expires))
