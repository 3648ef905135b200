"""The match runner: built-in levels, and external engines that crash, cheat or hang."""

from __future__ import annotations

import json
import sys
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
    text = capsys.readouterr().out
    assert "2 games" in text and "Elo difference" in text and "p99" in text
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
