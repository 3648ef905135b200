"""`kiothi-board bench guide`: press-to-frame latency, frame render time, the store's cost
of a press (fsyncs and bytes, on the real daemon: tools/bench_store.py), RSS after 100 games;
`--voice`: the latency alone, with the board's voice off and on in turn.

Runs with the package's fake drivers and an in-memory store, so the figures measure our
code (controller, rules, guide) and not a bus or a database.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from kiothi_board.board import Board
from kiothi_board.board.speech import Voice
from kiothi_board.clock import FakeClock
from kiothi_board.controller import Controller
from kiothi_board.guide import Renderer, render, sow_view
from kiothi_board.hardware.fakes import FakePitInput, FakePixelSink
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.rules import Position, parse_pit
from kiothi_board.store.memory import MemoryStore

__all__ = ["main", "press_latency", "render_time", "rss_after_games"]


def _rss_mb() -> float:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource  # not on every platform; /proc is the better figure where it exists

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _voice() -> Voice:
    """The board's voice with everything on, speaking to a fake that holds each sentence
    until the next press cuts it (as espeak-ng would, sentences being longer than a press)."""
    from kiothi_board.board.speech import WHAT, Announcer
    from kiothi_board.hardware.speaker import Speaker
    from kiothi_board.hardware.voice import RecordingVoice

    return Voice(Announcer(WHAT, ("en",)), Speaker(RecordingVoice(hold=True)))


def press_latency(
    presses: int = 2000, seed: int = 1, *, voice: bool = False
) -> tuple[list[float], list[float]]:
    """Seconds from a press event to its frame being shown, over two-player step games
    (`voice`: with the board's voice on, every line said).

    Returns wall-clock and this thread's CPU time per press: on a loaded machine the wall
    p99 is the scheduler's time slice, and the CPU figure shows what our code costs.
    """
    clock = FakeClock()
    sink = FakePixelSink(keep=4)
    pit_input = FakePitInput(clock)
    ctl = Board(sink=sink, clock=clock, store=MemoryStore(), voice=_voice() if voice else None)
    pit_input.start(ctl.handle_event)  # the board loop's queue: each press walks it at once
    rng = random.Random(seed)
    ctl.call("new_game", mode="two", pace="step", variant={"V2": True})
    out: list[float] = []
    cpu: list[float] = []
    while len(out) < presses:
        st = ctl.state()
        if st["stage"] in ("over", "none"):
            ctl.call("new_game", mode="two", pace="step", variant={"V2": True})
            continue
        pit = ctl.ask(Controller.expected_pit)
        if pit is None:
            pit = parse_pit(rng.choice(st["position"]["legal"]))
        before = sink.shown
        c0 = time.thread_time()
        t0 = time.perf_counter()
        pit_input.press(pit)
        t1 = time.perf_counter()
        c1 = time.thread_time()
        pit_input.release(pit)
        clock.advance(0.05)
        if sink.shown > before:
            out.append(t1 - t0)
            cpu.append(c1 - c0)
    ctl.close()
    return out, cpu


def render_time(frames: int = 2000, leds: int = 16) -> float:
    """Mean seconds to render one frame of 20 rings × `leds` LEDs, mid-move, animating."""
    pos = Position.initial().open("pass").open("pass")
    _after, trace = pos.play_traced(pos.legal_moves()[0])
    renderer = Renderer(leds=leds)
    view = sow_view(pos, trace, 2)
    t0 = time.perf_counter()
    for i in range(frames):
        render(view, i * 0.02, renderer)
    return (time.perf_counter() - t0) / frames


def rss_after_games(games: int = 100) -> tuple[float, float]:
    """RSS in MB before and after `games` AI-vs-AI games (random, instant, in memory)."""
    before = _rss_mb()
    clock = FakeClock()
    store = MemoryStore()
    ctl = Board(
        sink=FakePixelSink(keep=4),
        clock=clock,
        store=store,
        rng=random.Random(0),  # one source: every game differs, the same run to run
        over_seconds=0.0,
    )
    for _ in range(games):
        ctl.call("new_game", mode="demo", pace="instant")
        while ctl.state()["stage"] not in ("over", "none"):
            clock.advance(0.02)
            ctl.tick()
    return before, _rss_mb()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the guide benchmarks and print their figures."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board bench guide", description=__doc__, formatter_class=DefaultsFormatter
    )
    parser.add_argument("--presses", type=int, default=2000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument(
        "--store-presses",
        type=int,
        default=400,
        help="guided presses through the API on the real daemon, for the store's cost",
    )
    parser.add_argument(
        "--voice",
        action="store_true",
        help="the press-to-frame latency with the board's voice off, on, off, on (issue 35)",
    )
    args = parser.parse_args(list(argv or []))
    for voice in (False, True, False, True) if args.voice else (False,):
        wall, cpu = press_latency(args.presses, voice=voice)
        said = (", voice on" if voice else ", voice off") if args.voice else ""
        for name, lat in (("wall", sorted(wall)), ("cpu", sorted(cpu))):
            p50 = statistics.median(lat) * 1e3
            p99 = lat[int(len(lat) * 0.99) - 1] * 1e3
            print(
                f"press-to-frame latency ({name}{said}): p50 {p50:.3f} ms, p99 {p99:.3f} ms, "
                f"max {lat[-1] * 1e3:.3f} ms (aim p99 <= 5 ms)"
            )
    if args.voice:
        return 0
    for leds in (12, 16, 24):
        print(f"frame render, 20 rings x {leds} LEDs: {render_time(leds=leds) * 1e3:.4f} ms")
    from kiothi_board.tools.bench_store import store_cost

    if args.store_presses > 0:
        for line in store_cost(args.store_presses).lines():
            print(line)
    before, after = rss_after_games(args.games)
    print(
        f"RSS: {before:.1f} MB at start, {after:.1f} MB after {args.games} AI-vs-AI games "
        "(aim <= 60 MB)"
    )
    return 0
