"""The attract shows as frames, the countdown overlay, and the health probes."""

from __future__ import annotations

import random
from pathlib import Path

from kiothi_board.exhibit.attract import (
    AttractLoop,
    ClosedGlow,
    Countdown,
    Invitation,
    ReplayShow,
    SowingShow,
    dim,
    relay_move,
)
from kiothi_board.exhibit.health import RateMeter, SystemProbe, parse_throttled
from kiothi_board.guide import Renderer
from kiothi_board.rules import GameRecord, Position, Variant

R = Renderer(leds=16)


def lit(frame: list) -> int:
    return sum(1 for ring in frame for c in ring if c != (0, 0, 0))


def test_sowing_show_plays_a_relay_move_step_by_step() -> None:
    pos, trace = relay_move(random.Random(1))
    assert trace.relays
    show = SowingShow(pos, trace, R)
    frames = [show.frame(t * 0.45) for t in range(int(show.duration / 0.45))]
    assert len({tuple(f) for f in frames}) > 5, "the frames change as the seeds go round"
    assert all(len(f) == 20 and all(len(r) == 16 for r in f) for f in frames)


def test_replay_show_walks_a_stored_game() -> None:
    record = GameRecord.from_actions(Variant(), ["pass", "pass", "S6", "N1", "S7"])
    show = ReplayShow.of(record, R, move_seconds=1.0)
    assert show.duration == 4.0  # the position after the opening, then three moves
    assert show.frame(0.0) != show.frame(3.5)


def test_attract_loop_alternates_invitation_and_shows_and_survives_a_clock_jump() -> None:
    loop = AttractLoop(R, random.Random(2), invitation_seconds=2.0)
    kinds = []
    t = 0.0
    while t < 60.0:
        loop.frame(t)
        if not kinds or kinds[-1] != loop.showing:
            kinds.append(loop.showing)
        t += 0.25
    assert kinds[:3] == ["invitation", "sowing", "invitation"]  # plain words (issue 24)
    loop.frame(1e6)  # a jump of the clock does not replay every show it skipped
    assert loop.frame(1e6 + 0.1) is not None


def test_invitation_breathes_and_closed_glow_is_dim_or_dark() -> None:
    inv = Invitation(R)
    assert inv.frame(0.0) != inv.frame(1.0)
    glow = ClosedGlow(R)
    bright = max(max(c) for ring in glow.frame(6.0) for c in ring)
    assert 0 < bright < 100, "a faint glow"
    assert lit(ClosedGlow(R, dark=True).frame(3.0)) == 0


def test_countdown_arc_shrinks_and_dim_scales() -> None:
    from kiothi_board.guide import render
    from kiothi_board.guide.views import IdleView

    base = render(IdleView(Position.initial()), 0.0, R)
    cd = Countdown(16)
    amber = [sum(1 for c in cd.over(base, left, 20.0)[0] if c[0] > 100 and c[2] == 0)
             for left in (20.0, 10.0, 1.0)]  # fmt: skip
    assert amber[0] > amber[1] > amber[2] >= 1
    assert dim([((200, 100, 50),)], 0.5) == [((100, 50, 25),)]


def test_rate_meter_measures_rate_and_jitter() -> None:
    m = RateMeter()
    assert m.rate() is None
    for i in range(101):
        m.mark(i * 0.02 + (0.005 if i % 2 else 0.0))
    assert abs(m.rate() - 50.0) < 0.6
    assert 4.0 < m.jitter_ms() < 6.0


def test_system_probe_reads_a_fake_sys_and_tolerates_absence(tmp_path: Path) -> None:
    zone = tmp_path / "sys/class/thermal/thermal_zone0"
    zone.mkdir(parents=True)
    (zone / "type").write_text("cpu-thermal\n")
    (zone / "temp").write_text("51234\n")
    probe = SystemProbe(root=tmp_path, runner=lambda args: "throttled=0x50005\n")
    assert probe.cpu_temperature() == 51.234
    state = probe.throttling()
    assert state is not None and state.under_voltage and state.throttled and state.ever
    out = probe.to_json(tmp_path)
    assert out["free_disk"] > 0 and out["throttled"]["raw"] == "0x50005"
    bare = SystemProbe(root=tmp_path / "nothing", runner=lambda args: None)
    assert bare.to_json(tmp_path / "missing") == {
        "cpu_temperature": None, "throttled": None, "free_disk": None,
    }  # fmt: skip
    assert parse_throttled("garbage") is None
