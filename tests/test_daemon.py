"""The daemon as a user runs it: the simulator, orderly shutdown, resume after a kill."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.rules import parse_record
from kiothi_board.store.sqlite import SqliteStore


def config(mode: str = "two", pace: str = "step", variant: str = "ply_limit=24") -> dict:
    return {"game": {"mode": mode, "pace": pace, "variant": variant, "over_seconds": 0.2}}


def test_simulator_plays_complete_games_and_records_replay(tmp_path: Path) -> None:
    clock = FakeClock()
    daemon = Daemon(
        validate(config()), sim=True, state_dir=str(tmp_path), api=False, clock=clock,
        autoplay=0.01, seed=3,
    )  # fmt: skip
    finished: list[dict] = []
    daemon.controller.add_listener(
        lambda e: finished.append(e) if e["type"] == "game_over" else None
    )
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


def test_restart_resumes_the_same_game_at_the_same_step(tmp_path: Path) -> None:
    clock = FakeClock()
    cfg = validate(config(variant=""))
    first = Daemon(cfg, sim=True, state_dir=str(tmp_path), api=False, clock=clock, autoplay=0.01)
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
    assert f"{path}: game.level = 12: must be between 1 and 9" in proc.stderr


def _start(state: Path, conf: Path, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "kiothi_board", "run", "--sim", "--no-api", "--no-terminal",
            "--state-dir", str(state), "--config", str(conf), "--autoplay", "0.003",
            "--trace", "--seed", str(seed),
        ],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
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


@pytest.mark.parametrize("seed", [11])
def test_sigkill_at_random_points_loses_nothing(tmp_path: Path, seed: int) -> None:
    """SIGKILL the daemon ≥ 200 times; every restart resumes the same game at the same step."""
    rng = random.Random(seed)
    confs = []
    for i, (mode, pace) in enumerate([("two", "step"), ("two", "instant"), ("ai", "step")]):
        path = tmp_path / f"c{i}.toml"
        path.write_text(
            f'[game]\nmode = "{mode}"\npace = "{pace}"\nlevel = 1\n'
            f'variant = "ply_limit=30"\nover_seconds = 0.05\n'
        )
        confs.append(path)
    state = tmp_path / "state"
    db = state / "games.sqlite3"
    last_line: dict | None = None
    current = None
    resumed_equal = resumed_later = 0
    for kill in range(KILLS):
        conf = confs[(kill // 40) % len(confs)]
        proc = _start(state, conf, kill)
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        if last_line is not None and conf == confs[((kill - 1) // 40) % len(confs)]:
            # `first` is the resumed state; `current` was read while the daemon was dead.
            if last_line["game"] == first["game"] and last_line["events"] == first["events"]:
                assert first == last_line, f"kill {kill}: same events, different guide step"
                resumed_equal += 1
            else:
                resumed_later += 1
            assert current is None or current[0] == first["game"]
            assert current is None or len(current[2]) == first["events"]
        line = first
        for _ in range(rng.randint(0, 25)):
            text = proc.stdout.readline()
            if not text:
                break
            line = json.loads(text)
        time.sleep(rng.random() * 0.02)
        proc.kill()
        # Lines printed after our last read still count: drain them.
        rest = proc.stdout.read()
        proc.wait(timeout=10)
        for text in rest.splitlines():
            line = json.loads(text)
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
    assert resumed_equal + resumed_later >= KILLS * 0.9
    assert resumed_equal > KILLS / 4, "most kills resume at exactly the printed step"
