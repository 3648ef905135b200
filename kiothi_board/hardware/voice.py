"""The voice outputs: espeak-ng through ALSA's `aplay`, the terminal's `🔊` line, a recording fake.

Why `aplay` and not an ALSA binding (pyalsaaudio): espeak-ng writes a WAV to its stdout and
Debian's `aplay` (alsa-utils) plays it, two processes joined by a pipe. Cutting speech short
is killing them, at once, whatever the device is doing; a wedged sound driver blocks a child
process, never a thread of the daemon; and nothing is compiled on the Pi (pyalsaaudio needs
libasound2-dev and a C build, and we would feed PCM periods from our own thread).
`espeak-ng` chooses its voice by the board's language code (en, sw, fr, de are Debian's).
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from kiothi_board.errors import AudioError

__all__ = [
    "ESPEAK",
    "EspeakVoice",
    "RecordingVoice",
    "Said",
    "SimVoice",
    "audio_cards",
    "espeak_argv",
    "render_wav",
]

ESPEAK = "espeak-ng"
APLAY = "aplay"


def espeak_argv(text: str, lang: str, *, rate: int, volume: float) -> list[str]:
    """espeak-ng's arguments for `text` (`volume` 0…1 is its amplitude 0…200; `rate` in
    words a minute). The text comes after `--`, so a line starting with `-` is said."""
    amplitude = round(max(0.0, min(1.0, volume)) * 200)
    return [ESPEAK, "-v", lang, "-s", str(rate), "-a", str(amplitude), "--", text]


def _need(program: str) -> str:
    path = shutil.which(program)
    if path is None:
        package = "espeak-ng" if program == ESPEAK else "alsa-utils"
        raise AudioError(f"{program} is not installed (sudo apt install {package})")
    return path


def render_wav(text: str, lang: str, path: Path, *, rate: int = 150, volume: float = 0.5) -> int:
    """Write `text` said in `lang` to the WAV file `path`; its size in bytes."""
    _need(ESPEAK)
    argv = espeak_argv(text, lang, rate=rate, volume=volume)
    argv[1:1] = ["-w", str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0 or not path.exists():
        raise AudioError(f"espeak-ng failed on {text[:40]!r} ({lang}): {done.stderr.strip()}")
    return path.stat().st_size


def audio_cards(root: Path = Path("/")) -> list[str]:
    """The ALSA sound cards the kernel lists (`/proc/asound/cards`), one name each."""
    try:
        text = (root / "proc/asound/cards").read_text("utf-8", "replace")
    except OSError:
        return []
    cards = []
    for line in text.splitlines():
        head, sep, name = line.partition(" - ")
        if sep and head.strip().split(" ", 1)[0].isdigit():
            cards.append(name.strip())
    return cards


class EspeakVoice:
    """espeak-ng | aplay, one sentence at a time (see the module docstring).

    `device` is aplay's `-D` (empty: ALSA's default, the card `doctor` names)."""

    def __init__(
        self,
        *,
        rate: int = 150,
        volume: float = 0.5,
        device: str = "",
        root: Path = Path("/"),
    ) -> None:
        """Checks that both programs are installed and that ALSA has a card."""
        self._espeak = _need(ESPEAK)
        self._aplay = _need(APLAY)
        if not audio_cards(root):
            raise AudioError("no audio device (no ALSA sound card in /proc/asound/cards)")
        self.rate, self.volume, self.device = rate, volume, device
        self._lock = threading.Lock()
        self._procs: list[subprocess.Popen[bytes]] = []
        self._closed = False

    def speak(self, text: str, lang: str) -> None:
        """Render and play; returns when aplay is done or was stopped."""
        argv = espeak_argv(text, lang, rate=self.rate, volume=self.volume)
        play = [self._aplay, "-q", *(["-D", self.device] if self.device else []), "-"]
        with self._lock:
            if self._closed:
                return
            espeak = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            out: IO[bytes] | None = espeak.stdout
            aplay = subprocess.Popen(play, stdin=out, stderr=subprocess.DEVNULL)
            if out is not None:
                out.close()  # aplay holds the pipe now: espeak-ng sees it close if aplay dies
            self._procs = [espeak, aplay]
        aplay.wait()
        espeak.wait()
        with self._lock:
            self._procs = []

    def stop(self) -> None:
        """Kill the sentence's two processes (the worker's `speak` then returns)."""
        with self._lock:
            procs = list(self._procs)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()

    def close(self) -> None:
        """Stop; later sentences are not said."""
        with self._lock:
            self._closed = True
        self.stop()

    def __enter__(self) -> EspeakVoice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SimVoice:
    """The simulator's voice: `🔊 sentence` on its own line (`write`: print), and `last`, the
    line said last (the terminal's screen shows it under the board)."""

    def __init__(self, write: Callable[[str], None] | None = None) -> None:
        """`write` gets each line (default: print to stdout)."""
        self.write = write or (lambda line: print(line, flush=True))
        self.last = ""

    def speak(self, text: str, lang: str) -> None:
        """Print the sentence."""
        self.last = f"\U0001f50a {text}"
        self.write(self.last)

    def stop(self) -> None:
        """Nothing to cut: a printed line is said at once."""

    def close(self) -> None:
        """Nothing held."""


@dataclass(frozen=True, slots=True)
class Said:
    """One sentence the recording voice was given; `cut` when `stop()` cut it short."""

    lang: str
    text: str
    cut: bool = False


class RecordingVoice:
    """A fake for tests: records each sentence (`said`), and how many were spoken at once
    at most (`most_at_once`, 1 when speech never overlaps). With `hold` set, `speak` waits
    until `stop()` (or `release()`): a sentence that is still being said."""

    def __init__(self, *, hold: bool = False) -> None:
        """An empty record."""
        self.said: list[Said] = []
        self.hold = hold
        self.most_at_once = 0
        self._speaking = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.started = threading.Event()  # set when a sentence begins

    def speak(self, text: str, lang: str) -> None:
        """Record the sentence (and with `hold`, wait for `stop()` or `release()`)."""
        with self._lock:
            self._speaking += 1
            self.most_at_once = max(self.most_at_once, self._speaking)
            self._stop.clear()
        self.started.set()
        cut = False
        if self.hold:
            self._stop.wait(30)
            cut = self._stopped
        with self._lock:
            self._speaking -= 1
            self.said.append(Said(lang, text, cut))

    _stopped = False

    def stop(self) -> None:
        """Cut the sentence being said."""
        self._stopped = True
        self._stop.set()

    def release(self) -> None:
        """Let the held sentence end by itself (not cut)."""
        self._stopped = False
        self._stop.set()

    def texts(self, lang: str | None = None) -> list[str]:
        """The sentences said (in `lang` only, when given), in order."""
        with self._lock:
            return [s.text for s in self.said if lang is None or s.lang == lang]

    def close(self) -> None:
        """Let a held sentence go."""
        self.release()
