"""`kiothi-board voice say [--lang CODE] [--wav FILE] (TEXT | --message ID)`: the board's voice
for builders and tests — a sentence said through espeak-ng and aplay, or written to a WAV file.

`--message ID` says a catalog entry (its English msgid, placeholders left as they are) in
`--lang`; TEXT is said as given. `--sim` prints the `🔊` line instead of playing it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from kiothi_board.errors import AudioError
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.i18n import available, tr

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kiothi-board voice",
        description="The board's voice: say a sentence, or write it to a WAV file.",
        formatter_class=DefaultsFormatter,
    )
    sub = parser.add_subparsers(dest="action", required=True)
    say = sub.add_parser("say", help="say TEXT (or a catalog entry) in a language's voice")
    say.add_argument("text", nargs="?", help="what to say")
    say.add_argument("--message", metavar="ID", help="a catalog entry's id (its English text)")
    say.add_argument("--lang", default="en", help=f"the voice: {', '.join(available())}")
    say.add_argument("--wav", type=Path, metavar="FILE", help="write a WAV file, play nothing")
    say.add_argument("--rate", type=int, default=150, help="words a minute")
    say.add_argument("--volume", type=float, default=0.5, help="0…1")
    say.add_argument("--device", default="", help="aplay's ALSA device (empty: the default)")
    say.add_argument("--sim", action="store_true", help="print the 🔊 line instead")
    return parser


def _sentence(args: argparse.Namespace) -> str:
    if (args.text is None) == (args.message is None):
        raise SystemExit("kiothi-board voice say: give TEXT or --message ID (one of them)")
    if args.lang not in available():
        raise SystemExit(f"kiothi-board voice say: no catalog for --lang {args.lang!r}")
    if args.message is not None:
        return tr(args.message).render(args.lang)
    return str(args.text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool; 0 when said or written, 1 when the voice cannot speak (why on stderr)."""
    args = _parser().parse_args(argv)
    text = _sentence(args)
    from kiothi_board.hardware.voice import EspeakVoice, SimVoice, render_wav

    try:
        if args.wav is not None:
            size = render_wav(text, args.lang, args.wav, rate=args.rate, volume=args.volume)
            print(f"{args.wav}: {size} bytes ({args.lang}): {text}")
        elif args.sim:
            SimVoice().speak(text, args.lang)
        else:
            with EspeakVoice(rate=args.rate, volume=args.volume, device=args.device) as voice:
                voice.speak(text, args.lang)
    except AudioError as exc:
        print(f"kiothi-board voice say: {exc}", file=sys.stderr)
        return 1
    return 0
