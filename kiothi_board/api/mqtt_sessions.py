"""MQTT sessions: one per broker user, its role from the board's config, never a secret.

MQTT does not tell a subscriber who published a message; the broker's ACL does that for
us (`kiothi_board/fleet/kiothi.acl`: every user may write only `<prefix>/<board>/cmd/<its own name>`
and read only `…/reply/<its own name>`). So the last topic level of a request *is* the
broker user who sent it, and the board gives that user the role its config names:
`mqtt.staff_users` control, everyone else is a spectator. No token, PIN or ticket is taken
here: everybody who may read the bus could read it (`auth` and `hello` with a secret are
refused), so no reply on MQTT ever carries a ticket, and a session evicted from the table
(`max_clients`) loses nothing but its subscriptions.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from kiothi_board.api.dispatcher import ClientSession, Dispatcher
from kiothi_board.api.mqtt_settings import BOARD_ID

__all__ = ["NO_SECRETS", "MqttSessions"]

NO_SECRETS = (
    "no token, PIN or ticket is taken over MQTT (every reader of the bus would see it): "
    "the broker's user decides; list it in mqtt.staff_users on the board"
)


class MqttSessions:
    """The sessions of the broker users who wrote to this board, least recently used first."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        *,
        staff_users: Iterable[str],
        max_clients: int,
        wake: Callable[[str], None],
    ) -> None:
        """`wake(user)` is called when `user`'s outbox has replies to publish."""
        self._dispatcher = dispatcher
        self.staff_users = frozenset(staff_users)
        self._max = max_clients
        self._wake = wake
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, ClientSession] = OrderedDict()

    def role(self, user: str) -> str:
        """The role the board's config gives broker user `user`."""
        return "control" if user in self.staff_users else "spectator"

    def get(self, user: str) -> ClientSession | None:
        """`user`'s session (for its replies), or None."""
        with self._lock:
            return self._sessions.get(user)

    def session(self, user: str) -> ClientSession:
        """`user`'s session, opened on its first request (evicting the least recent)."""
        if not BOARD_ID.match(user):
            raise ValueError(f"not a broker user name: {user[:64]!r}")
        with self._lock:
            session = self._sessions.get(user)
            if session is not None:
                self._sessions.move_to_end(user)
                return session
            while len(self._sessions) >= self._max:
                _old, oldest = self._sessions.popitem(last=False)
                self._dispatcher.close_session(oldest)
            session = self._dispatcher.open_session(
                "mqtt",
                user,
                trusted=self.role(user) == "control",
                wake=lambda: self._wake(user),
            )
            session.no_secrets = NO_SECRETS
            self._sessions[user] = session
            return session

    def close(self) -> None:
        """Forget every session; idempotent."""
        with self._lock:
            for session in self._sessions.values():
                self._dispatcher.close_session(session)
            self._sessions.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)
