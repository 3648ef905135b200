"""The daemon as a user runs it: the simulator, orderly shutdown, resume after a kill."""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.rules import parse_record
from kiothi_board.store.sqlite import SqliteStore
from tests.conftest import SERVICE_START_S, poll_until


def config(mode: str = "two", pace: str = "step", variant: str = "ply_limit=24") -> dict:
    return {"game": {"mode": mode, "pace": pace, "variant": variant, "over_seconds": 0.2}}


def test_simulator_plays_complete_games_and_records_replay(tmp_path: Path) -> None:
    clock = FakeClock()
    daemon = Daemon(
        validate(config()), sim=True, state_dir=str(tmp_path), api=False, clock=clock,
        autoplay=0.01, seed=3,
    )  # fmt: skip
    finished: list[dict] = []
    daemon.board.add_listener(lambda e: finished.append(e) if e["type"] == "game_over" else None)
    for _ in range(20_000):
        clock.advance(0.005)
        daemon.tick()
        if len(finished) >= 2:
            break
    assert len(finished) >= 2, "two complete games"
    games = daemon.store.list_games()
    done = [g for g in games if g["status"] == "finished"]
    assert len(done) >= 2
    for game in done:
        record = parse_record(daemon.store.get_game(game["id"]))
        final = record.final()
        assert final.over and record.result == final.result
    sink = daemon.sink
    daemon.close()
    assert isinstance(sink, FakePixelSink) and sink.closed
    assert all(c == (0, 0, 0) for ring in sink.last for c in ring), "LEDs dark after close"
    daemon.close()  # idempotent


def test_the_demo_plays_on_past_a_long_move(tmp_path: Path) -> None:
    """Seed 9's 16th move is a long one (30 laps or more): its counts are set at once, and
    the unattended demo confirms them with a hold, as a person would, and plays on."""
    clock = FakeClock()
    cfg = validate(config(variant=""))
    d = Daemon(cfg, sim=True, state_dir=str(tmp_path), api=False, clock=clock, autoplay=0.01,
               seed=9)  # fmt: skip
    stages = set()
    for _ in range(3000):
        clock.advance(0.005)
        d.tick()
        stages.add(json.loads(d.trace_line())["stage"])
    line = json.loads(d.trace_line())
    d.close()
    assert "set" in stages, "seed 9 plays a long move"
    assert line["actions"] > 17, line


def test_the_demo_plays_in_the_flow_pace(tmp_path: Path) -> None:
    """Issue 31 item 3: with `[game] pace = "flow"` the demo sat at the opening, silent (it
    never pressed in flow, where only the sowing animates by itself)."""
    clock = FakeClock()
    cfg = validate(config(mode="ai", pace="flow"))
    d = Daemon(cfg, sim=True, state_dir=str(tmp_path), api=False, clock=clock, autoplay=0.05,
               seed=3)  # fmt: skip
    over: list[dict[str, Any]] = []
    d.board.add_listener(lambda e: over.append(e) if e["type"] == "game_over" else None)
    for _ in range(60_000):
        clock.advance(0.01)
        d.tick()
        if over:
            break
    line = json.loads(d.trace_line())
    stored = d.store.list_games(1)
    d.close()
    assert over, f"the flow demo finished no game: {line}"
    assert stored[0]["status"] == "finished", stored


def test_restart_resumes_the_same_game_at_the_same_step(tmp_path: Path) -> None:
    clock = FakeClock()
    cfg = validate(config(variant=""))
    first = Daemon(
        cfg, sim=True, state_dir=str(tmp_path), api=False, clock=clock, autoplay=0.01, seed=5
    )
    for _ in range(700):
        clock.advance(0.005)
        first.tick()
    before = first.trace_line()
    assert json.loads(before)["events"] > 20
    first.close()
    second = Daemon(cfg, sim=True, state_dir=str(tmp_path), api=False, clock=clock)
    assert second.trace_line() == before
    second.close()


def test_bad_config_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[game]\nlevel = 12\n")
    proc = subprocess.run(
        [sys.executable, "-m", "kiothi_board", "run", "--sim", "--config", str(path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert f'{path}: game.level = 12: must be an integer from 1 to 9 or "adaptive"' in proc.stderr


def _start(state: Path, conf: Path, seed: int, err: IO[str] | None = None) -> subprocess.Popen[str]:
    """The demo daemon, tracing; its stderr to `err` (with Python's fault handler on, so
    that a SIGABRT writes every thread's stack there)."""
    return subprocess.Popen(
        [
            sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-api", "--no-terminal",
            "--state-dir", str(state), "--config", str(conf), "--autoplay", "0.003",
            "--trace", "--seed", str(seed),
        ],
        stdout=subprocess.PIPE, stderr=err or subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )  # fmt: skip


def test_sigterm_shuts_down_in_order(tmp_path: Path) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text('[game]\nmode = "two"\n')
    proc = _start(tmp_path / "state", conf, 1)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 0
    with SqliteStore(tmp_path / "state" / "games.sqlite3") as store:
        assert store.report is None and store.current_game() is not None


KILLS = int(os.environ.get("KIOTHI_CRASH_KILLS", "200"))
Line = dict[str, Any]
ReadTo = Callable[[random.Random, int, Line, Callable[[], Line | None]], Line]
"""Reads the daemon's trace lines up to the point to kill it; the last line read."""


def _random_point(
    rng: random.Random, kill: int, first: Line, read: Callable[[], Line | None]
) -> Line:
    """The soak's points: after 0–25 changes, then 0–20 ms more."""
    line = first
    for _ in range(rng.randint(0, 25)):
        got = read()
        assert got is not None, f"kill {kill}: the daemon ended by itself after {line}"
        line = got
    until = time.monotonic() + rng.random() * 0.02  # not a wait for anything: a random instant
    poll_until(lambda: time.monotonic() >= until, "a random instant 0–20 ms on", 1, every=0.001)
    return line


# The riskiest points: each just after a write the daemon has shown, while the next may be
# under way (a sequence's completion, a game's finish, the abandoned game a new one
# replaces, the resume itself).
RISKY: tuple[Callable[[Line, Line], bool], ...] = (
    lambda first, line: True,  # just resumed
    lambda first, line: line["events"] != first["events"],  # a step stored and shown
    lambda first, line: line["stage"] == "over",  # a game's finish
    lambda first, line: line["game"] != first["game"],  # a new game began
)


def _risky_point(
    rng: random.Random, kill: int, first: Line, read: Callable[[], Line | None]
) -> Line:
    """Kill `kill` goes to risky point `kill % 4`, at once. Every point comes within 600
    changes, twice the longest 12-ply game of the quick configurations (250 changes): a
    resumed demo that never reaches it has stalled, and fails the test (on the old code a
    restart with an opening's seeds in the hand held a pit for ever, printing changes)."""
    reached = RISKY[kill % len(RISKY)]
    line = first
    for _ in range(600):
        if reached(first, line):
            return line
        got = read()
        assert got is not None, f"kill {kill}: the daemon ended by itself after {line}"
        line = got
    raise AssertionError(f"kill {kill}: point {kill % len(RISKY)} never came in 600 changes, "
                         f"resumed at {first}, now {line}: the demo stalled")  # fmt: skip


class _Lines:
    """The daemon's state lines, read on a thread of their own, so that a daemon that stops
    printing fails the test (after `QUIET_S`) instead of hanging it for ever on a readline:
    the demo prints a change every few milliseconds, so silence is a stalled demo."""

    QUIET_S = SERVICE_START_S  # the demo prints every few ms: 30 s of silence is a stall

    def __init__(self, proc: subprocess.Popen[str], err: Path, name: str) -> None:
        assert proc.stdout is not None
        self._proc, self._err, self._name = proc, err, name
        self.last: Line | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def _read(self, stdout: IO[str]) -> None:
        for text in stdout:
            self._lines.put(text)
        self._lines.put(None)

    def next(self, quiet: float = QUIET_S) -> Line | None:
        """The next line, or None at the end; silence for `quiet` s fails the test."""
        try:
            text = self._lines.get(timeout=quiet)
        except queue.Empty:
            raise AssertionError(self._stalled(quiet)) from None
        self.last = None if text is None else json.loads(text)
        return self.last

    def _stalled(self, quiet: float) -> str:
        """Why the test fails: the last line and where each of the daemon's threads was."""
        self._proc.send_signal(signal.SIGABRT)  # the fault handler writes the stacks
        self._proc.wait(timeout=30)
        stacks = self._err.read_text(errors="replace")[-4000:]
        return (
            f"{self._name}: the daemon printed nothing for {quiet:g} s after {self.last}:\n{stacks}"
        )

    def rest(self) -> list[Line]:
        """Every line left once the process has ended."""
        self._thread.join(30)
        out = []
        while not self._lines.empty():
            text = self._lines.get()
            if text is not None:
                out.append(json.loads(text))
        return out


GAMES = (("two", "step"), ("two", "instant"), ("ai", "step"))
"""The kinds of game the daemon is killed in (the configurations, in turn)."""


def _crash_and_resume(
    tmp_path: Path,
    kills: int,
    per_conf: int,
    seed: int,
    point: ReadTo,
    *,
    quick: bool = False,
    games: tuple[tuple[str, str], ...] = GAMES,
) -> None:
    """SIGKILL the daemon `kills` times at the points `point` reads to; every restart must
    resume the same game at the same step, and the store must hold every step it printed.

    `quick`: shorter games on a faster loop, so that the points a game reaches only at its
    end come within a second or two."""
    rng = random.Random(seed)
    confs = []
    for i, (mode, pace) in enumerate(games):
        path = tmp_path / f"c{i}.toml"
        plies, hz = (12, 400) if quick else (30, 50)
        path.write_text(
            f'[game]\nmode = "{mode}"\npace = "{pace}"\nlevel = 1\n'
            f'variant = "ply_limit={plies}"\nover_seconds = 0.05\n[daemon]\ntick_hz = {hz}\n'
        )
        confs.append(path)
    state = tmp_path / "state"
    db = state / "games.sqlite3"
    last_line: dict | None = None
    current = None
    resumed_equal = resumed_later = 0
    for kill in range(kills):
        conf = confs[(kill // per_conf) % len(confs)]
        err = tmp_path / f"stderr-{kill}.txt"
        with err.open("w") as err_file:
            proc = _start(state, conf, kill, err_file)
        try:  # a failed check must not leave the daemon playing on
            lines = _Lines(proc, err, f"kill {kill}")
            first = lines.next(SERVICE_START_S)  # a start on a loaded machine is slow
            assert first is not None, f"kill {kill}: the daemon ended before its first line"
            if last_line is not None and conf == confs[((kill - 1) // per_conf) % len(confs)]:
                # `first` is the resumed state; `current` was read while the daemon was dead.
                if last_line["game"] == first["game"] and last_line["events"] == first["events"]:
                    assert first == last_line, f"kill {kill}: same events, different guide step"
                    resumed_equal += 1
                else:
                    resumed_later += 1
                assert current is None or current[0] == first["game"]
                assert current is None or len(current[2]) == first["events"]
            line = point(rng, kill, first, lines.next)
        finally:
            proc.kill()
            proc.wait(timeout=30)
        # Lines printed after our last read still count: drain them.
        for rest in lines.rest():
            line = rest
        last_line = line
        with SqliteStore(db) as store:
            assert store.report is None, f"kill {kill}: {store.report}"
            for game in store.list_games(limit=1000):
                if game["status"] == "finished":
                    record = parse_record(store.get_game(game["id"]))
                    assert record.final().over
            current = store.current_game()
        if current is not None and current[0] == last_line["game"]:
            # Nothing committed is lost: the store holds at least what was printed.
            assert len(current[2]) >= last_line["events"]
    assert resumed_equal + resumed_later >= kills * 0.9
    # How many kills land between two steps (resumed exactly at the printed step, checked
    # above) is the machine's timing: 2 of 10 at load 20 failed the old bound (> 1 in 4),
    # 7 of 10 quiet. The exact step after every commit is tests/test_demo_resume.py's.
    print(f"{resumed_equal} resumed at the printed step, {resumed_later} after it")


@pytest.mark.soak
@pytest.mark.parametrize("seed", [11])
def test_sigkill_at_random_points_loses_nothing(tmp_path: Path, seed: int) -> None:
    """SIGKILL the daemon ≥ 200 times at random points (`make soak`)."""
    _crash_and_resume(tmp_path, KILLS, 40, seed, _random_point)


@pytest.mark.parametrize("game", GAMES, ids="-".join)
def test_sigkill_at_the_riskiest_points_loses_nothing(
    tmp_path: Path, game: tuple[str, str]
) -> None:
    """30 SIGKILLs, 10 in each of a two-player, an instant and an AI game (one test each,
    so that they run side by side), each just after a write the daemon has shown (the
    resume itself, a step, a game's finish, a new game)."""
    _crash_and_resume(tmp_path, 10, 10, 12 + GAMES.index(game), _risky_point, quick=True,
                      games=(game,))  # fmt: skip


def _double_sigterm(tmp_path: Path, trials: int, seed: int) -> list[float]:
    """Start the daemon `trials` times; each time, once it runs, two SIGTERMs 0–300 µs
    apart (a second signal inside the first one's handler hung the old daemon for ever)."""
    conf = tmp_path / "c.toml"
    conf.write_text('[game]\nmode = "two"\n')
    rng = random.Random(seed)
    gaps = []
    for trial in range(trials):
        proc = _start(tmp_path / f"state{trial % 2}", conf, trial)
        assert proc.stdout is not None
        proc.stdout.readline()  # it resumed (or began) a game: the loop runs
        gap = rng.random() * 300e-6
        os.kill(proc.pid, signal.SIGTERM)
        until = time.perf_counter() + gap
        while time.perf_counter() < until:  # a busy wait: a sleep cannot be this short
            pass
        os.kill(proc.pid, signal.SIGTERM)
        try:
            assert proc.wait(timeout=30) == 0, f"trial {trial}: exit status {proc.returncode}"
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(
                f"trial {trial}: two SIGTERMs {gap * 1e6:.0f} µs apart hung it"
            ) from None
        proc.stdout.close()
        gaps.append(gap)
    return gaps


def test_two_sigterms_close_together_stop_the_daemon(tmp_path: Path) -> None:
    assert len(_double_sigterm(tmp_path, 10, 1)) == 10


@pytest.mark.soak
def test_forty_trials_of_two_sigterms_all_exit(tmp_path: Path) -> None:
    gaps = _double_sigterm(tmp_path, 40, 2)
    print(f"40 trials, two SIGTERMs {min(gaps) * 1e6:.0f}–{max(gaps) * 1e6:.0f} µs apart")
