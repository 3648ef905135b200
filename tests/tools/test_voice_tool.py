"""`kiothi-board voice say` through the real espeak-ng, and doctor's audio check (issue 35)."""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from kiothi_board.board.speech import pit_count, result_words
from kiothi_board.config import validate
from kiothi_board.exhibit.words import ATTRACT
from kiothi_board.hardware.voice import audio_cards
from kiothi_board.i18n import Msg
from kiothi_board.rules import Outcome, Side
from kiothi_board.tools.doctor_voice import TEST_SENTENCE, audio

REPO = Path(__file__).resolve().parents[2]
SENTENCES: tuple[Msg, ...] = (
    ATTRACT,
    pit_count(5, 4),
    result_words(Outcome(Side.S, (34, 26), "no-moves")),
    TEST_SENTENCE,
)


def _kiothi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kiothi_board", *args],
        capture_output=True, text=True, timeout=60, cwd=REPO, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "sw", "fr", "de"])
def test_each_language_renders_to_a_wav_of_plausible_length(lang: str, tmp_path: Path) -> None:
    """Through the CLI and the real espeak-ng: each WAV is a real recording, and its length
    follows its text (espeak-ng says 0.05-0.09 s a character at 150 words a minute)."""
    for i, message in enumerate(SENTENCES):
        text = message.render(lang)
        wav = tmp_path / f"{lang}-{i}.wav"
        done = _kiothi("voice", "say", "--lang", lang, "--wav", str(wav), text)
        assert done.returncode == 0, done.stderr
        with wave.open(str(wav)) as w:
            seconds = w.getnframes() / w.getframerate()
            assert w.getnchannels() == 1 and w.getsampwidth() == 2
        per_char = seconds / len(text)
        assert 0.03 < per_char < 0.2, (lang, text, seconds)
        print(f"{lang}: {seconds:.2f} s for {len(text)} characters: {text}")


def test_a_catalog_message_is_said_in_its_language(tmp_path: Path) -> None:
    wav = tmp_path / "sw.wav"
    done = _kiothi("voice", "say", "--lang", "sw", "--wav", str(wav), "--message", str(ATTRACT))
    assert done.returncode == 0, done.stderr
    assert ATTRACT.render("sw") in done.stdout and wav.stat().st_size > 10_000
    sim = _kiothi("voice", "say", "--lang", "de", "--sim", "--message", str(TEST_SENTENCE))
    assert sim.stdout == f"\U0001f50a {TEST_SENTENCE.render('de')}\n"


def test_saying_aloud_here_says_no_audio_device() -> None:
    """This machine has no sound card: one line, exit 1, no traceback."""
    assert audio_cards() == []
    done = _kiothi("voice", "say", "hello")
    assert done.returncode == 1
    assert done.stderr.strip() == "kiothi-board voice say: no audio device (no ALSA sound card " \
        "in /proc/asound/cards)"  # fmt: skip


def test_doctor_reports_no_audio_device_cleanly() -> None:
    done = _kiothi("doctor", "--no-leds", "--no-press", "--json")
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["audio"]["status"] == "skip"
    assert checks["audio"]["detail"] == "no audio device (no ALSA sound card) ([voice] is off)"
    named = validate({"voice": {"enabled": True, "output": "espeak"}})
    check = audio(named)
    assert check.status == "fail" and check.detail.startswith("no audio device")


def test_doctor_plays_its_test_sentence_on_a_card(tmp_path: Path) -> None:
    (tmp_path / "proc/asound").mkdir(parents=True)
    (tmp_path / "proc/asound/cards").write_text(
        " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n"
        "                      bcm2835 Headphones\n"
        " 1 [UACDemoV10     ]: USB-Audio - UACDemoV1.0\n"
        "                      Jieli Technology UACDemoV1.0 at usb-xhci-hcd.0-1, full speed\n"
    )
    said: list[tuple[str, str]] = []
    config = validate({"voice": {"enabled": True}, "board": {"language": "fr"}})
    check = audio(config, tmp_path, lambda text, lang: said.append((lang, text)))
    assert check.status == "ok", check
    assert said == [("fr", TEST_SENTENCE.render("fr"))]
    assert check.data["cards"] == ["bcm2835 Headphones", "UACDemoV1.0"]
    assert "card 1: UACDemoV1.0" in check.detail
