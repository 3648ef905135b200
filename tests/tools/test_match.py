"""The match runner: built-in levels, and external engines that crash, cheat or hang."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest

from kiothi_board.rules import parse_record
from kiothi_board.tools import match

PRELUDE = """
import sys
def say(s):
    print(s, flush=True)
for line in sys.stdin:
    cmd = line.split()[0] if line.split() else ""
    if cmd == "kei":
        say("id name fake"); say("keiok")
    elif cmd == "quit":
        break
"""


def fake(tmp_path: Path, name: str, on_go: str) -> str:
    script = tmp_path / f"{name}.py"
    body = PRELUDE + f"    elif cmd == 'go':\n        {on_go}\n"
    script.write_text(body)
    return f'cmd:"{sys.executable}" {script}'


@pytest.mark.parametrize(
    ("name", "on_go", "reason"),
    [
        ("crash", "sys.exit(3)", "crashed"),
        ("illegal", "say('bestopening S1>S2')", "illegal"),
        ("hang", "pass", "hung"),
    ],
)
def test_faulty_engine_loses(tmp_path: Path, name: str, on_go: str, reason: str) -> None:
    spec = fake(tmp_path, name, on_go)
    out = match.play_game(0, spec, "level:1", None, 0.02, 40, 1)
    assert out.a_score == 0.0
    assert reason in out.end
    assert "result" not in out.record
    parse_record(json.dumps(out.record))


def test_builtin_match_writes_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    status = match.main(
        ["level:2", "level:1", "--games", "2", "--max-plies", "40", "--out", str(out)]
    )
    assert status == 0
    captured = capsys.readouterr()
    text = captured.out
    assert "2 games" in text and "Elo difference" in text and "p99" in text
    # Not a terminal: a line a game as it ends, so a stopped match's log still has its score.
    lines = [x for x in captured.err.splitlines() if x.startswith("game ")]
    assert len(lines) == 2 and lines[-1].split("so far ")[1].count("+") == 1, captured.err
    lines = out.read_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        rec = parse_record(line)
        assert rec.final().result == rec.result
    summary = json.loads((tmp_path / "games.summary.json").read_text())
    assert summary["games"][0]["south"] == "level:2"
    assert summary["games"][1]["south"] == "level:1"


def test_elo_and_openings() -> None:
    assert match.elo(0.5) == 0
    e, lo, hi = match.elo_interval([1.0, 0.5, 1.0, 0.0, 1.0])
    assert lo < e < hi
    pairs = match.load_openings(None)
    assert len(pairs) >= 20


def test_external_engine_plays_a_legal_game() -> None:
    spec = f'cmd:"{sys.executable} -m kiothi_board engine"'
    out = match.play_game(1, "level:1", spec, ("pass", "pass"), 0.02, 12, 1)
    assert out.record["result"]["end"] == "ply-limit"
    assert len(out.times["B"]) == 5  # South's moves at plies 2, 4, … 10


def test_the_process_clock_counts_cpu_not_waiting() -> None:
    from kiothi_board.clock import ProcessClock

    clock = ProcessClock()
    t0, w0 = clock.now(), clock.wall()
    threading.Event().wait(0.3)  # waiting: the wall moves, the CPU clock hardly
    t1, w1 = clock.now(), clock.wall()
    assert w1 - w0 >= 0.3 and t1 - t0 < 0.1
    x = 0
    while clock.now() - t1 < 0.05:  # work: the CPU clock moves
        x += 1
    assert x > 0


def test_a_cpu_clock_match_times_moves_in_cpu_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.jsonl"
    args = ["level:9,movetime=60", "level:1", "--games", "2", "--max-plies", "24"]
    assert match.main([*args, "--clock", "cpu", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "2 games" in text and "forfeit" not in text
    records = [parse_record(line) for line in out.read_text().splitlines()]
    assert len(records) == 2 and all(r.final().result == r.result for r in records)
    # Level 9 thinks to its budget on the CPU clock: its average move is near 60 ms of CPU.
    avg = float(text.split("A level:9,movetime=60:")[1].split("average ")[1].split(" ms")[0])
    assert 10 < avg < 120, text


def test_a_cpu_clock_refuses_external_engines(tmp_path: Path) -> None:
    engine = fake(tmp_path, "e", "say('bestmove 1')")
    with pytest.raises(SystemExit) as exc:
        match.main([engine, "level:1", "--clock", "cpu"])
    assert exc.value.code == 2
