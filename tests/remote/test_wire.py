"""The wire alone, with a recording client: what it sends for the board's notices."""

from __future__ import annotations

import random
from typing import Any

from kiothi_board.clock import FakeClock
from kiothi_board.controller.events import Select
from kiothi_board.controller.game import Settings, new_game
from kiothi_board.controller.notices import Applied, Started
from kiothi_board.controller.opponent import random_opponents
from kiothi_board.remote.match import MatchSpec
from kiothi_board.remote.opponent import MatchOpponents
from kiothi_board.remote.wire import RemoteSettings, RemoteWire
from kiothi_board.rules import Side


class Client:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def publish(self, topic: str, payload: str, **kw: Any) -> None:
        self.sent.append((topic, payload))

    def subscribe(self, *a: Any, **kw: Any) -> None: ...

    def message_callback_add(self, *a: Any) -> None: ...


def test_a_move_of_the_game_before_the_matchs_is_not_sent() -> None:
    """The bench's desync: a board still in its previous game (the other board's resign not
    yet applied) moved there, and the wire sent it as the new match's first action."""
    calls: list[tuple[str, dict[str, Any]]] = []
    wire = RemoteWire(
        RemoteSettings(board="b1", name="Hall 1"),
        call=lambda name, **a: calls.append((name, a)),
        opponents=MatchOpponents(random_opponents(random.Random(0))),
        clock=FakeClock(),
    )
    client = Client()
    wire.attach(client)
    try:
        wire._begin(MatchSpec("b1-1", "b1", "b2"))
        old = new_game(Settings(mode="ai", humans=(Side.S,)))
        after = old.position.open("pass").open("pass")
        earlier = type(old)(old.settings, after, stage="turn", actions=("pass", "pass"),
                            movers=(Side.S, Side.N))  # fmt: skip
        three = ("pass", "pass", "S6")
        played = type(old)(old.settings, after.play(5), stage="turn", actions=three,
                           movers=(Side.S, Side.N, Side.S))  # fmt: skip
        wire.notice(Applied(Select(5, True), earlier, played))  # the old game's move
        assert [t for t, _ in client.sent if "/a/" in t] == []
        wire.notice(Started(2, old.settings, old))
        first = type(old)(old.settings, old.position.open("pass"), stage="open",
                          actions=("pass",), movers=(Side.S,))  # fmt: skip
        wire.notice(Applied(Select(5, True), old, first))
        assert [t for t, _ in client.sent if "/a/" in t] == ["kiothi/v1/match/b1-1/b1/a/0"]
    finally:
        wire.close()
