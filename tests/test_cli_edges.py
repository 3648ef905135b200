"""Issue 24 #6/#7: the command line's rough edges (each failed on the old code)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kiothi_board.daemon_cli import AUTOPLAY_DIR, _parser, state_dir


def test_autoplay_refuses_a_negative_pace(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("-1", "0", "nan", "soon"):
        with pytest.raises(SystemExit) as exc:
            _parser().parse_args(["--autoplay", bad])
        assert exc.value.code == 2
        assert "argument --autoplay:" in capsys.readouterr().err


def test_autoplay_keeps_its_games_in_a_store_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    demo = state_dir(_parser().parse_args(["--sim", "--autoplay", "0.3"]))
    assert demo == str(tmp_path / AUTOPLAY_DIR)
    assert state_dir(_parser().parse_args(["--sim"])) is None  # the default store
    chosen = _parser().parse_args(["--autoplay", "1", "--state-dir", "/x"])
    assert state_dir(chosen) == "/x"


def test_a_driver_fallback_is_printed_once(tmp_path: Path) -> None:
    """On a machine without the board: one line, "no board found" (it was a log line and a
    `warnings.warn` block, the same words twice; then a line for the inputs and one for the
    LEDs, each with gpiozero's "Unable to load any default pin factory!")."""
    config = tmp_path / "board.toml"
    config.write_text("[api]\ntcp_port = -1\nweb_port = -1\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiothi_board", "run", "--config", str(config),
         "--state-dir", str(tmp_path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=tmp_path, text=True, env={**os.environ, "BLINKA_FORCEBOARD": ""},
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "not a terminal" in line:  # built and running: signals are handled now
                break
    finally:
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=30)[1]
    said = "".join(lines) + rest
    assert said.count("no board found here") == 1, said
    assert "board.input = 'auto'" not in said and "pin factory" not in said, said
    assert said.count(" WARNING ") == 1, said
    assert "DriverFallback" not in said


def test_bench_api_help_lists_soak_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    from kiothi_board.cli import main

    with pytest.raises(SystemExit):
        main(["bench", "api", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--soak SECONDS" in text and "(default: 2000)" in text and "(default: 10)" in text
