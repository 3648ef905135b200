"""`kiothi-board replay`: positions on stdout, exit 2 on an illegal action, 3 on a bad result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kiothi_board.cli import main

EXAMPLES = Path(__file__).parent / "data" / "examples"


def write(tmp_path: Path, record: dict[str, object]) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_replay_prints_every_position_as_the_independent_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(EXAMPLES / "standard-3.json")]) == 0
    out = capsys.readouterr().out.splitlines()
    expected = (EXAMPLES / "standard-3.positions.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in out] == [json.loads(line) for line in expected]
    assert list(json.loads(out[0])) == [
        "board", "captured", "sown", "to_move", "phase", "legal", "ply", "over", "result",
    ]  # fmt: skip


def test_replay_as_a_real_command(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kiothi_board", "replay", str(EXAMPLES / "variant-V8.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (EXAMPLES / "variant-V8.positions.jsonl").read_text()


def test_illegal_action_stops_with_status_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {"format": "kiothi-game/1", "opening": ["pass", "pass"], "moves": ["S6", "S7"]}
    assert main(["replay", write(tmp_path, record)]) == 2
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 4  # initial, two openings, S6: nothing after
    assert "action 3 (S7) is illegal: S7 is not N's pit (R4)" in captured.err


def test_result_mismatch_exits_3_with_both_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads((EXAMPLES / "standard-1.json").read_text())
    record["result"] = {"captured": [30, 30], "end": "no-moves"}
    assert main(["replay", write(tmp_path, record)]) == 3
    err = capsys.readouterr().err
    assert '"captured": [30, 30]' in err and '"captured": [34, 26]' in err


def test_result_on_an_unfinished_game_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {
        "format": "kiothi-game/1",
        "opening": ["pass", "pass"],
        "moves": ["S6"],
        "result": {"captured": [30, 30], "end": "repetition"},
    }
    assert main(["replay", write(tmp_path, record)]) == 3
    assert "not over" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "kiothi-game/2"}', "kiothi-game/2"),
        ('{"format": "kiothi-game/1", "opening": ["pass", "pass"], "moves": ["S11"]}', "'S11'"),
        ('{"format": "kiothi-game/1", "moves": ["S6"]}', "before both opening"),
        ('{"format": "kiothi-game/1", "opening": ["pass", "pass"], "moves": "S6"}', "'moves'"),
        ('{"format": "kiothi-game/1", "variant": {"V9": true}}', "'V9'"),
        ('{"format": "kiothi-game/1", "opening": ["lift"]}', "'lift'"),
        ('{"format": "kiothi-game/1", "extra": 1}', "extra"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_malformed_records_exit_2_with_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(record)
    assert main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "/nonexistent/game.json"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_text_diagrams(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--text", str(EXAMPLES / "standard-2.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("initial position\n")
    assert "after action 0: S7>" in out and "game over: N wins 22-38 (no-moves)" in out
    assert "N10   N9" in out
