"""The real AI behind the controller's Opponent protocol."""

from __future__ import annotations

import time

from kiothi_board.ai.levels import ADAPTIVE, LevelChoice
from kiothi_board.controller import Opponent, OpponentHandle
from kiothi_board.players import AIFactory, AIHandle
from kiothi_board.rules import OpeningAction, Position, Variant


def wait_done(handle: AIHandle, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not handle.done():
        assert time.monotonic() < deadline, "the AI did not answer in time"
        handle._thinking.join(0.01)  # wait on the worker thread, not a bare sleep


def test_ai_opponent_answers_moves_and_openings_off_thread() -> None:
    factory = AIFactory(seed=1)
    opponent = factory(LevelChoice(1))
    assert isinstance(opponent, Opponent)
    opening = opponent.start(Position.initial())
    assert isinstance(opening, OpponentHandle)
    wait_done(opening)
    assert isinstance(opening.result(), OpeningAction)
    pos = Position.initial(Variant(V2=True))
    handle = opponent.start(pos)
    wait_done(handle)
    assert handle.result() in pos.legal_moves()
    handle.cancel()  # after the fact: harmless
    factory.close()


def test_the_factory_builds_the_adaptive_visitor_level() -> None:
    from kiothi_board.ai.adaptive import AdaptivePlayer

    factory = AIFactory(seed=3)
    opponent = factory(ADAPTIVE)
    assert isinstance(opponent.player, AdaptivePlayer)
    pos = Position.initial(Variant(V2=True))
    handle = opponent.start(pos)
    wait_done(handle)
    assert handle.result() in pos.legal_moves()
    factory.close()


def test_cancel_and_each_call_is_a_new_player() -> None:
    factory = AIFactory(seed=2)
    a, b = factory(LevelChoice(6)), factory(LevelChoice(6))
    assert a is not b and a.player is not b.player, "a hint must not cancel the game's search"
    handle = a.start(Position.initial(Variant(V2=True)))
    handle.cancel()
    handle.cancel()  # idempotent
    factory.close()


def test_a_low_level_hint_says_why_in_words() -> None:
    """Issue 14: a beginner's hint explains itself; the words reach the state and the event."""
    from kiothi_board.board import Board
    from kiothi_board.clock import FakeClock
    from kiothi_board.hardware.fakes import FakePixelSink
    from kiothi_board.players import AIFactory
    from kiothi_board.store.memory import MemoryStore
    from tests.conftest import wait_until

    clock = FakeClock()
    factory = AIFactory(seed=1)
    ctl = Board(sink=FakePixelSink(16), clock=clock, store=MemoryStore(), opponent_factory=factory)
    events: list[dict] = []
    ctl.add_listener(events.append)
    try:
        ctl.call(
            "new_game", mode="ai", sides="S", level=1, pace="instant", variant={"V2": True}
        )  # no opening: straight to a move
        ctl.call("hint")

        def hinted() -> bool:
            ctl.tick()
            return any(e["type"] == "hint" for e in events)

        assert wait_until(hinted, 60.0)
        hint = next(e for e in events if e["type"] == "hint")
        assert isinstance(hint["why"], str) and hint["pit"] in hint["why"]
        assert ctl.state()["said"] == hint["why"]
    finally:
        ctl.close()
        factory.close()
