"""The attendant's phases: every one leaves by input or by time."""

from __future__ import annotations

from kiothi_board.exhibit.attendant import (
    AbandonGame,
    Attendant,
    Forward,
    OfferHint,
    ResetDone,
    StartGame,
    Timing,
)
from kiothi_board.hardware.protocols import InputEvent

T = Timing(idle_after=60, countdown=10, hint_after=30, two_player_window=3, over_seconds=5)


def press(pit: int, t: float) -> InputEvent:
    return InputEvent("pressed", pit, t)


def ready(t: float = 0.0) -> Attendant:
    a = Attendant(T, t, playing=False)
    assert a.phase == "reset", "after start-up nobody knows where the seeds are"
    assert a.on_input(InputEvent("held", 3, t, seconds=0.5), t) == [], "too short a hold"
    assert a.on_input(InputEvent("held", 3, t, seconds=1.0), t) == [ResetDone()]
    assert a.phase == "attract"
    return a


def test_a_press_wakes_and_starts_a_game_against_the_ai_on_that_side() -> None:
    a = ready()
    assert a.on_input(press(14, 10.0), 10.0) == []
    assert a.phase == "waking"
    assert a.tick(12.9, is_open=True, human_to_move=False) == []
    assert a.tick(13.0, is_open=True, human_to_move=False) == [StartGame("ai", "N")]
    assert a.phase == "playing"
    assert a.on_input(press(14, 14.0), 14.0) == [Forward(press(14, 14.0))]


def test_a_press_on_each_side_starts_a_two_player_game() -> None:
    a = ready()
    a.on_input(press(2, 10.0), 10.0)
    assert a.on_input(press(5, 11.0), 11.0) == [], "the same side again is still one visitor"
    assert a.on_input(press(17, 12.5), 12.5) == [StartGame("two")]


def test_idle_game_counts_down_then_is_abandoned_and_a_reset_asked() -> None:
    a = ready()
    a.on_input(press(2, 0.0), 0.0)
    a.tick(3.0, is_open=True, human_to_move=True)
    assert a.tick(32.9, is_open=True, human_to_move=True) == []
    assert a.tick(33.0, is_open=True, human_to_move=True) == [OfferHint()]
    assert a.tick(40.0, is_open=True, human_to_move=True) == [], "one hint per pause"
    a.on_game_activity(50.0)  # the AI played: the pause starts again
    assert a.tick(79.0, is_open=True, human_to_move=True) == []
    assert a.tick(80.0, is_open=True, human_to_move=True) == [OfferHint()]
    assert a.tick(110.0, is_open=True, human_to_move=True) == []
    assert a.phase == "countdown" and a.countdown_left(115.0) == 5.0
    assert a.tick(120.0, is_open=True, human_to_move=True) == [AbandonGame()]
    assert a.phase == "reset"
    assert a.on_input(press(1, 121.0), 121.0) == [], "a tap does not confirm a reset"
    assert a.on_input(InputEvent("held", 1, 122.0, seconds=1.0), 122.0) == [ResetDone()]


def test_a_press_during_the_countdown_saves_the_game_without_playing() -> None:
    a = Attendant(T, 0.0, playing=True)
    a.tick(60.0, is_open=True, human_to_move=True)
    assert a.phase == "countdown"
    assert a.on_input(press(4, 65.0), 65.0) == [], "taken, not played"
    assert a.phase == "playing"
    assert a.tick(124.0, is_open=True, human_to_move=False) == []
    assert a.phase == "playing", "the pause starts again from the press"


def test_game_over_shows_the_result_then_asks_for_a_reset() -> None:
    a = Attendant(T, 0.0, playing=True)
    a.on_game_over(10.0)
    assert a.tick(14.0, is_open=True, human_to_move=False) == [] and a.phase == "playing"
    a.tick(15.0, is_open=True, human_to_move=False)
    assert a.phase == "reset"


def test_closing_and_opening_hours() -> None:
    a = ready()
    a.tick(1.0, is_open=False, human_to_move=False)
    assert a.phase == "closed"
    assert a.on_input(press(3, 2.0), 2.0) == [], "closed: presses do nothing"
    a.tick(3.0, is_open=True, human_to_move=False)
    assert a.phase == "attract"
    # A reset confirmed after closing time goes straight to closed.
    b = Attendant(T, 0.0, playing=False, is_open=False)
    assert b.on_input(InputEvent("held", 0, 1.0, seconds=2.0), 1.0) == [ResetDone()]
    assert b.phase == "closed"
    assert b.on_sensors_confirm(2.0) == []
