"""The LED guide: frames for each cue at given times, palettes, steps."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from kiothi_board.guide import (
    COLOUR_BLIND,
    DEFAULT,
    LEVELS,
    NIGHT,
    CheckView,
    Cue,
    IdleView,
    OpeningView,
    Overlay,
    OverView,
    Renderer,
    StepsView,
    Style,
    opening_steps,
    render,
    set_steps,
    sow_steps,
    sow_view,
)
from kiothi_board.guide.palette import mask
from kiothi_board.rules import Lift, Position, Result, Side, SowTrace

OFF = (0, 0, 0)


@cache
def rich_move() -> tuple[Position, SowTrace]:
    """A move from random play with a relay, a capture and a saved pit (R5, R7, R8)."""
    rng = random.Random(7)
    for _ in range(400):
        pos = Position.initial().open("pass").open("pass")
        while not pos.over:
            pit = rng.choice(pos.legal_moves())
            nxt, trace = pos.play_traced(pit)
            if trace.relays and trace.captures and trace.saved:
                return pos, trace
            pos = nxt
    raise AssertionError("no rich move found")


def played() -> Position:
    return Position.initial().open("pass").open("pass")


def full(ring: tuple[tuple[int, int, int], ...], colour: tuple[int, int, int]) -> bool:
    return all(c == colour for c in ring)


def test_idle_counts_mover_colour_and_breathing_legal_pits() -> None:
    r = Renderer(DEFAULT, 16)
    pos = played()
    view = IdleView.of(pos)
    at_peak = render(view, 1.0, r)  # breathe() peaks mid-period
    south = DEFAULT.style_colour(Style.SOUTH)
    north_neutral = DEFAULT.style_colour(Style.NEUTRAL)
    # S6 holds 6 seeds: a 6-LED arc in South's colour (South to move), the rest dark.
    assert at_peak[5][:6] == (south,) * 6 and at_peak[5][6:] == (OFF,) * 10
    assert at_peak[15][:6] == (north_neutral,) * 6  # N6: the other side's seeds, neutral
    assert at_peak[0] == (OFF,) * 16  # empty pit
    dim = render(view, 0.0, r)
    assert dim[5][0] != south and dim[5][0] != OFF  # breathing, never dark
    assert dim[15] == at_peak[15]  # North's pits are not legal: steady


def test_second_lap_of_seeds_in_another_colour() -> None:
    r = Renderer(DEFAULT, 16)
    ring = r.ring(Style.NEUTRAL, 19)
    assert ring[:3] == (DEFAULT.lap2_colour(),) * 3
    assert ring[3:] == (DEFAULT.style_colour(Style.NEUTRAL),) * 13


def test_sowing_next_drop_bright_following_two_dim() -> None:
    pos, trace = rich_move()
    r = Renderer(DEFAULT, 16)
    view = sow_view(pos, trace, 1)
    step = view.step
    assert step.kind == "drop" and step.pit == trace.laps[0].drops[0]
    frame = render(view, 0.0, r)
    assert full(frame[step.pit], DEFAULT.cue_colour(Cue.DROP))
    soon = [s.pit for s in view.steps[2:4]]
    for p in soon:
        if p != step.pit:
            assert full(frame[p], DEFAULT.cue_colour(Cue.SOON))
    # Off-beat the next drop dims but never goes dark.
    off_beat = render(view, 0.3, r)[step.pit]
    assert off_beat[0] != OFF and off_beat[0] != DEFAULT.cue_colour(Cue.DROP)


def test_relay_blinks_in_opposite_phase_to_drops() -> None:
    pos, trace = rich_move()
    steps = sow_steps(trace)
    k = next(i for i, s in enumerate(steps) if s.kind == "relay")
    view = StepsView(steps, k, pos.to_move, trace)
    r = Renderer(DEFAULT, 16)
    relay = DEFAULT.cue_colour(Cue.RELAY)
    on_beat, off_beat = render(view, 0.0, r), render(view, 0.3, r)
    assert not full(on_beat[steps[k].pit], relay)  # drops' beat: relay dark
    assert full(off_beat[steps[k].pit], relay)


def test_captures_flash_and_saved_pits_marked() -> None:
    pos, trace = rich_move()
    steps = sow_steps(trace)
    k = next(i for i, s in enumerate(steps) if s.kind == "capture")
    view = StepsView(steps, k, pos.to_move, trace)
    r = Renderer(DEFAULT, 16)
    cap = DEFAULT.cue_colour(Cue.CAPTURE)
    on, off = render(view, 0.0, r), render(view, 0.15, r)
    for c in trace.captures:
        assert full(on[c.pit], cap)
        assert not full(off[c.pit], cap)
    saved = DEFAULT.cue_colour(Cue.SAVED)
    for s in trace.saved:
        if s.pit not in {c.pit for c in trace.captures}:
            assert on[s.pit][0] == saved and on[s.pit][2] == saved  # the "even" marker


def test_done_shows_every_new_count() -> None:
    pos, trace = rich_move()
    steps = sow_steps(trace)
    assert steps[-1].kind == "done" and steps[-1].board == trace.board_after
    view = StepsView(steps, len(steps) - 1, pos.to_move, trace)
    r = Renderer(COLOUR_BLIND, 24)
    frame = render(view, 0.0, r)
    marked = {trace.landing} | {s.pit for s in trace.saved}
    for p in range(20):
        if p not in marked:
            lit = sum(1 for c in frame[p] if c != OFF)
            assert lit == min(trace.board_after[p], 24)


def test_steps_conserve_seeds() -> None:
    _pos, trace = rich_move()
    steps = sow_steps(trace)
    for s in steps:
        if s.kind != "capture" and s.kind != "done":
            assert sum(s.board) + s.hand == sum(trace.board_before)
    assert steps[0].kind == "lift" and steps[0].pit == trace.pit


def test_opening_lift_and_placed_seeds_count_up() -> None:
    pos = Position.initial()
    board = list(pos.board)
    board[6] = 0
    board[0] += 2
    placed = (2,) + (0,) * 19
    view = OpeningView(tuple(board), Side.S, lifted=6, hand=4, placed=placed)
    r = Renderer(DEFAULT, 16)
    frame = render(view, 0.6, r)  # LIFT off-beat: the hand count shows
    assert frame[6][:4] == (DEFAULT.style_colour(Style.HAND),) * 4
    assert frame[0][:2] == (DEFAULT.style_colour(Style.PLACED),) * 2
    assert full(render(view, 0.0, r)[6], DEFAULT.cue_colour(Cue.LIFT))
    steps = opening_steps(pos.board, [Lift(6, (0, 0, 1, 2, 3, 19))])
    assert [s.kind for s in steps] == ["lift"] + ["drop"] * 6 + ["done"]
    assert steps[-1].board[0] == 2 and steps[-1].board[6] == 0


def test_wrong_press_flashes_red_while_expected_keeps_cue() -> None:
    pos, trace = rich_move()
    view = sow_view(pos, trace, 1)
    expected = view.step.pit
    wrong = (expected + 7) % 20
    r = Renderer(DEFAULT, 16)
    ov = [Overlay(wrong, Cue.ERROR, 10.0, 11.2)]
    frame = render(view, 10.0, r, ov)
    assert full(frame[wrong], DEFAULT.cue_colour(Cue.ERROR))
    assert full(frame[expected], DEFAULT.cue_colour(Cue.DROP))
    assert render(view, 12.0, r, ov)[wrong] == render(view, 12.0, r)[wrong]  # expired


def test_check_view_blinks_wrong_pits() -> None:
    pos = played()
    view = CheckView(pos.board, Side.S, frozenset({7}))
    r = Renderer(DEFAULT, 16)
    assert full(render(view, 0.0, r)[7], DEFAULT.cue_colour(Cue.WRONG))
    assert render(view, 0.3, r)[7][:6] == (DEFAULT.style_colour(Style.SOUTH),) * 6


def test_set_view_shows_target_count() -> None:
    before = played().board
    after = tuple(3 for _ in range(20))
    steps = set_steps(before, after)
    assert [s.pit for s in steps[:-1]] == [p for p in range(20) if before[p] != 3]
    view = StepsView(steps, 0, Side.S)
    frame = render(view, 0.0, Renderer(DEFAULT, 16))
    first = steps[0].pit
    assert frame[first][:3] == (DEFAULT.style_colour(Style.PLACED),) * 3


def test_game_over_winner_breathes_and_bars_show_captures() -> None:
    view = OverView(Result.of((40, 20), "no-moves"))
    r = Renderer(DEFAULT, 16)
    frame = render(view, 0.75, r)
    lit_s = sum(1 for ring in frame[:10] for c in ring if c != OFF)
    lit_n = sum(1 for ring in frame[10:] for c in ring if c != OFF)
    assert lit_s == 16 + 8 and lit_n == 16  # up to two laps per ring: 32 + 8, 20
    assert render(view, 0.0, r)[1] != frame[1]  # South won: its bar breathes
    assert render(view, 0.0, r)[10] == frame[10]


@pytest.mark.parametrize("leds", [12, 16, 24])
def test_colour_blind_cues_differ_by_pattern(leds: int) -> None:
    cues = [c for c in Cue if COLOUR_BLIND.patterns[c] != "none"]
    masks = {c: COLOUR_BLIND.cue_mask(c, leds) for c in cues}
    assert len(set(masks.values())) == len(cues)
    # In the default palette several cues share the full ring and differ by hue only.
    shared = [c for c in cues if DEFAULT.cue_mask(c, leds) == mask("full", leds)]
    assert len(shared) > 3


def test_night_is_dimmer() -> None:
    for cue in (Cue.DROP, Cue.ERROR, Cue.CAPTURE):
        assert sum(NIGHT.cue_colour(cue)) < sum(DEFAULT.cue_colour(cue)) / 4


def test_rings_are_memoised() -> None:
    r = Renderer(DEFAULT, 16)
    assert r.ring(Style.SOUTH, 5, Cue.DROP, LEVELS) is r.ring(Style.SOUTH, 5, Cue.DROP, LEVELS)


def test_render_command_draws_every_picture(tmp_path: Path) -> None:
    from kiothi_board.tools.guide_pictures import main, scenes

    assert main([str(tmp_path), "--leds", "12"]) == 0
    stems = {s[0] for s in scenes()}
    assert {p.stem for p in tmp_path.glob("*.png")} == stems
