"""`kiothi-board doctor`'s audio check: the ALSA sound card, espeak-ng and aplay, and with
`[voice]` on a short test sentence played through them (docs/install.md, "A voice")."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from kiothi_board.config import Config
from kiothi_board.errors import AudioError
from kiothi_board.i18n import tr
from kiothi_board.tools.doctor_checks import Check, Status

__all__ = ["TEST_SENTENCE", "audio"]

TEST_SENTENCE = tr("This is the board's voice.")
"""What `doctor` says through the speaker."""

Speak = Callable[[str, str], None]


def _espeak_speak(config: Config, root: Path) -> Speak:
    from kiothi_board.hardware.voice import EspeakVoice

    v = config.voice
    voice = EspeakVoice(rate=v.rate, volume=v.volume, device=v.device, root=root)

    def speak(text: str, lang: str) -> None:
        with voice:
            voice.speak(text, lang)

    return speak


def audio(config: Config, root: Path = Path("/"), speak: Speak | None = None) -> Check:
    """The audio device and the voice's programs; with `[voice]` on, a sentence said."""
    from kiothi_board.hardware.voice import APLAY, ESPEAK, audio_cards

    voice = config.voice
    cards = audio_cards(root)
    missing = [p for p in (ESPEAK, APLAY) if shutil.which(p) is None]
    data = {"cards": cards, "missing": missing, "voice": voice.enabled}
    if not cards:
        status: Status = "skip"
        if voice.enabled:  # a named espeak voice needs the card; `auto` falls back to sim
            status = "fail" if voice.output == "espeak" else "warn"
        off = "" if voice.enabled else " ([voice] is off)"
        return Check("audio", status, f"no audio device (no ALSA sound card){off}", data)
    listed = "; ".join(f"card {i}: {name}" for i, name in enumerate(cards))
    if missing:
        status = "fail" if voice.enabled else "warn"
        need = "sudo apt install espeak-ng alsa-utils"
        return Check("audio", status, f"{listed}; {', '.join(missing)} missing ({need})", data)
    if not voice.enabled:
        return Check("audio", "ok", f"{listed} ([voice] is off: nothing played)", data)
    lang = config.board.language
    try:
        (speak or _espeak_speak(config, root))(TEST_SENTENCE.render(lang), lang)
    except AudioError as exc:
        return Check("audio", "fail", f"{listed}; the test sentence failed: {exc}", data)
    return Check("audio", "ok", f"{listed}; said {TEST_SENTENCE.render(lang)!r} ({lang})", data)
