"""The reset to the start after a game: the guide's restore look, taps, seed sensors."""

from __future__ import annotations

from kiothi_board.exhibit.reset import ResetPicture
from kiothi_board.guide import Renderer
from kiothi_board.guide.restore import RestoreView, restore_cells
from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.rules import INITIAL_BOARD
from tests.exhibit.test_director import make, step

R = Renderer(leds=16)
# A finished game's board (R2's start: 6 in S6-S10 and N6-N10): S1 holds 2 (2 too many),
# S6 4 (2 short), N2 3 (3 too many), N6 3 (3 short).
AFTER = (2, 0, 0, 0, 0, 4, 6, 6, 6, 6, 0, 3, 0, 0, 0, 3, 6, 6, 6, 6)
S1, S6, N2, N6 = 0, 5, 11, 15


def test_the_reset_looks_like_every_other_restore_and_taps_tick_pits_off() -> None:
    pic = ResetPicture(R)
    pic.before = AFTER
    expected = RestoreView.of(AFTER, INITIAL_BOARD, purpose="reset")
    assert pic.frame(0.1) == R.frame(restore_cells(expected, 0.1))
    assert pic.differs() == [S1, S6, N2, N6]
    assert pic.instruction().startswith("Reset to the start: set S1 to 0, S6 to 6, N2 to 0")
    pic.tap(S1)
    pic.tap(8)  # a pit that already holds its count: nothing to tick
    assert pic.differs() == [S6, N2, N6]
    pic.before = AFTER  # the same board again (every frame brings it): ticks are kept
    assert pic.differs() == [S6, N2, N6]


def test_seed_sensors_confirm_once_every_short_pit_got_exactly_what_it_lacked() -> None:
    pic = ResetPicture(R)
    pic.before = AFTER
    assert not pic.drop(S6) and not pic.drop(S6), "S6 is set, N6 still lacks 3"
    assert S6 not in pic.differs(), "a sensed pit ticks itself off"
    assert not pic.drop(N6) and not pic.drop(N6)
    assert pic.drop(N6), "the board holds the start: it confirms itself"
    pic.clear()
    assert not pic.drop(S6) and not pic.drop(S6) and not pic.drop(S6), "one seed too many"
    assert not pic.drop(N6) and not pic.drop(N6) and not pic.drop(N6)


def test_unknown_board_asks_for_every_pit() -> None:
    pic = ResetPicture(R)
    assert pic.differs() == list(range(20)) and not pic.drop(3)
    frame = pic.frame(0.1)
    assert len(frame) == 20 and "hold any pit" in pic.instruction()


def test_the_director_lets_the_seed_sensors_end_the_reset() -> None:
    director, _control, clock, _sink, _store = make()
    assert director.status()["phase"] == "reset"
    director._reset.before = AFTER  # the game's last board, as its frames report it
    assert "S1 to 0" in director.status()["instruction"]
    director.handle_event(InputEvent("pressed", S1, clock.t))  # S1's seeds taken out: ticked
    assert director._reset.differs() == [S6, N2, N6]
    for pit in (S6, S6, N6, N6, N6):
        director.handle_event(InputEvent("dropped", pit, clock.t))
    assert director.status()["phase"] == "attract", "no gesture needed"
    assert director.status()["instruction"].startswith("Press any pit to play")
    step(director, clock, 2)
    assert director._reset.drops == [0] * 20, "the next reset starts afresh"
