"""The engine protocol: conversations in memory and through a subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from kiothi_board.ai.protocol import main
from kiothi_board.rules import GameRecord, Position, Variant


def talk(script: str) -> list[str]:
    out = io.StringIO()
    assert main([], stdin=io.StringIO(script), stdout=out) == 0
    return out.getvalue().splitlines()


def test_handshake_and_isready() -> None:
    lines = talk("kei\nisready\nquit\n")
    assert lines[0].startswith("id name ")
    assert lines[1].startswith("id author ")
    assert any(line.startswith("option name Level") for line in lines)
    assert lines[-2:] == ["keiok", "readyok"]


def test_the_adaptive_level_plays_through_the_protocol() -> None:
    lines = talk("kei\nsetoption name Level value adaptive\nposition startpos\ngo\n")
    assert any("var adaptive" in line for line in lines if line.startswith("option name Level"))
    assert not [line for line in lines if "error" in line]
    assert lines[-1] == "bestopening pass"  # level 1's opening: every pit stays protected
    assert any("adaptive: playing as level:1" in line for line in lines)


def test_go_gives_info_and_bestmove() -> None:
    lines = talk(
        "setoption name Level value 3\n"
        "position startpos moves pass N7>N1,N1,S3,S3,N4,N2 S6 N8\n"
        "go depth 3\n"
    )
    infos = [line for line in lines if line.startswith("info depth")]
    assert infos and " pv " in infos[-1] and " nps " in infos[-1]
    best = lines[-1].split()
    assert best[0] == "bestmove"
    pos = Position.initial()
    for a in ["pass", "N7>N1,N1,S3,S3,N4,N2", "S6", "N8"]:
        pos = pos.apply(a)
    pos.play(best[1])


def test_opening_phase_answers_bestopening() -> None:
    lines = talk("setoption name Level value 2\nposition startpos\ngo movetime 50\n")
    assert lines[-1].startswith("bestopening ")
    Position.initial().open(lines[-1].split()[1])


def test_position_record() -> None:
    rec = GameRecord.from_actions(Variant(), ["pass", "pass", "S6", "N8"])
    lines = talk(f"position record {json.dumps(rec.to_json())}\ngo depth 2\nquit\n")
    assert lines[-1].startswith("bestmove S")


def test_malformed_lines_are_reported_and_the_engine_carries_on() -> None:
    lines = talk(
        "frobnicate\n"
        "position sideways\n"
        "position startpos moves S99\n"
        "position startpos moves pass S7>S1\n"
        "position record {not json\n"
        "setoption name Level value 10\n"
        "setoption Level 3\n"
        "go sideways\n"
        "isready\n"
    )
    errors = [line for line in lines if line.startswith("info string error:")]
    assert len(errors) == 8
    assert lines[-1] == "readyok"


def test_game_over_position() -> None:
    rec = GameRecord.from_actions(Variant(ply_limit=3), ["pass", "pass", "S6"])
    lines = talk(f"position record {json.dumps(rec.to_json())}\ngo depth 2\n")
    assert lines[-1] == "bestmove none"


def test_subprocess_engine_answers_stop_while_searching() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("kei\n")
    proc.stdin.flush()
    while proc.stdout.readline().strip() != "keiok":
        pass
    proc.stdin.write("position startpos moves pass pass S6 N8\ngo infinite\nisready\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    while line.startswith("info"):
        line = proc.stdout.readline()
    assert line.strip() == "readyok"  # answered while the search runs
    proc.stdin.write("stop\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    while line.startswith("info"):
        line = proc.stdout.readline()
    assert line.startswith("bestmove S")
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    assert proc.wait(10) == 0


def test_go_is_refused_after_a_rejected_position_until_a_valid_one() -> None:
    """Issue 23: after an illegal `position` the engine kept the old position and answered
    `go` for it, a move for a position the GUI never meant."""
    lines = talk(
        "position startpos moves pass pass S6 N8\n"
        "position startpos moves pass pass S6 S7\n"  # S7 is not North's pit: rejected
        "go depth 2\n"
        "d\n"
        "position startpos moves pass pass S6\n"
        "go depth 1\n"
    )
    refused = lines.index("bestmove none")
    assert "go refused" in lines[refused - 1] and "S7" in " ".join(lines[: refused - 1])
    assert not [line for line in lines[:refused] if line.startswith("bestmove N")]
    assert "no valid position" in lines[refused + 1]  # `d` says so too
    assert lines[-1].startswith("bestmove N")  # a valid position: go answers again


def test_a_stop_ends_the_opening_decision_at_once() -> None:
    """Issue 23: `stop` during an opening search answered 3–10× slower than in play: each
    remaining candidate's search ran on to its first 1,024-node check."""
    import threading

    from kiothi_board.ai.opening import choose_opening
    from kiothi_board.ai.search import Searcher
    from kiothi_board.clock import SystemClock

    stop = threading.Event()
    stop.set()  # "stop" has arrived: no candidate may search further than its first ply
    choice = choose_opening(
        Position.initial(), Searcher(), budget=1e9, clock=SystemClock(), stop=stop
    )
    assert choice.nodes <= 20
    Position.initial().open(choice.action)  # and the answer is a legal opening action


def test_end_of_input_stops_an_infinite_search_and_exits() -> None:
    """Issue 23: when its input closed during `go infinite` the engine searched for ever."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        out, _ = proc.communicate("position startpos moves pass pass S6 N8\ngo infinite\n", 120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    assert out.splitlines()[-1].startswith("bestmove S")
