"""The `kiothi-board` command: replay, bench, engine, match, run."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence

from kiothi_board import __version__
from kiothi_board.errors import IllegalMoveError, RulesError
from kiothi_board.helptext import DefaultsFormatter

Command = Callable[[list[str]], int | None]


# Subcommands owned by other modules, imported only when used (start-up time). Each takes
# the remaining argv and returns an exit status.
def _help(argv: list[str]) -> int | None:
    from kiothi_board.tools.command_help import main

    return main(argv)


def _engine(argv: list[str]) -> int | None:
    from kiothi_board.ai.protocol import main

    return main(argv)


def _match(argv: list[str]) -> int | None:
    if argv[:1] == ["--ladder"]:  # the ladder is built on the match runner
        from kiothi_board.tools import ladder

        return ladder.main(argv[1:])
    from kiothi_board.tools.match import main

    return main(argv)


def _run(argv: list[str]) -> int | None:
    from kiothi_board.daemon_cli import main

    return main(argv)


def _leds(argv: list[str]) -> int | None:
    from kiothi_board.tools.leds import main

    return main(argv)


def _guide_pictures(argv: list[str]) -> int | None:
    from kiothi_board.tools.guide_pictures import main

    return main(argv)


def _fleet(argv: list[str]) -> int | None:
    from kiothi_board.fleet.dashboard import main

    return main(argv)


def _remote(argv: list[str]) -> int | None:
    from kiothi_board.tools.remote_cli import main

    return main(argv)


def _bench_remote(argv: list[str]) -> int | None:
    from kiothi_board.tools.bench_remote import main

    return main(argv)


def _bench_fleet(argv: list[str]) -> int | None:
    from kiothi_board.tools.bench_fleet import main

    return main(argv)


def _bench_exhibit(argv: list[str]) -> int | None:
    from kiothi_board.tools.bench_exhibit import main

    return main(argv)


def _bench_rules(argv: list[str]) -> int | None:
    from kiothi_board.tools.bench_rules import bench_rules

    return bench_rules(argv)


def _bench_ai(argv: list[str]) -> int | None:
    from kiothi_board.tools.bench_ai import main

    return main(argv)


def _bench_guide(argv: list[str]) -> int | None:
    from kiothi_board.tools.bench_guide import main

    return main(argv)


def _bench_api(argv: list[str]) -> int | None:
    if "--soak" in argv:  # the real daemon under mixed clients, for minutes
        from kiothi_board.tools.soak import main as soak

        return soak(argv)
    from kiothi_board.tools.bench_api import main

    return main(argv)


def _token(argv: list[str]) -> int | None:
    from kiothi_board.api.access import token_main

    return token_main(argv)


def _pinout(argv: list[str]) -> int | None:
    from kiothi_board.tools.pinout import main

    return main(argv)


def _bom(argv: list[str]) -> int | None:
    from kiothi_board.tools.bom import main

    return main(argv)


def _doctor(argv: list[str]) -> int | None:
    from kiothi_board.tools.doctor import main

    return main(argv)


def _i18n(argv: list[str]) -> int | None:
    from kiothi_board.tools.i18n import main

    return main(argv)


def _seat_link(argv: list[str]) -> int | None:
    from kiothi_board.tools.seat_link import main

    return main(argv)


def _voice(argv: list[str]) -> int | None:
    from kiothi_board.tools.voice import main

    return main(argv)


def _firmware(argv: list[str]) -> int | None:
    from kiothi_board.tools.firmware import main

    return main(argv)


_DELEGATED: dict[str, tuple[Command, str]] = {
    "help": (_help, "the board's commands (API, gestures, keys) with their help"),
    "engine": (_engine, "speak the engine protocol on stdin/stdout"),
    "match": (_match, "play two engines against each other"),
    "run": (_run, "run the board daemon (--sim: the simulator)"),
    "fleet": (_fleet, "a web dashboard of every board on an MQTT broker"),
    "remote": (_remote, "play a board elsewhere: invite, list the boards online, claim"),
    "token": (_token, "print a new random api.token"),
    "pinout": (_pinout, "print and check a pin map (and --write-docs)"),
    "bom": (_bom, "bill of materials and LED power budget"),
    "doctor": (_doctor, "self-test: pins, store, link, LEDs, each pit"),
    "firmware": (_firmware, "firmware install: copy it to a Pico"),
    "seat-link": (_seat_link, "print a one-time link that seats a web player as one side"),
    "i18n": (_i18n, "message catalogs: extract, update, compile, check"),
    "voice": (_voice, "voice say: a sentence through espeak-ng, or to a WAV file"),
    "leds": (_leds, "leds off: blank the LED rings (run by the service)"),
    "guide-pictures": (
        _guide_pictures,
        "draw every LED guide cue as PNG pictures (for docs/led-guide.md)",
    ),
}
_BENCHES: dict[str, Command] = {
    "rules": _bench_rules,
    "ai": _bench_ai,
    "guide": _bench_guide,
    "api": _bench_api,
    "fleet": _bench_fleet,
    "exhibit": _bench_exhibit,
    "remote": _bench_remote,
}
_BENCH_HELP = {
    "rules": "sowing and move generation speed (moves a second)",
    "ai": "search speed and the AI's think time per level",
    "guide": "press-to-frame latency of the controller and the LED guide",
    "api": "request and event latency over TCP and WebSocket",
    "fleet": "the fleet adapter's throughput",
    "exhibit": "days of fake exhibition through one daemon: RSS per day (memory slope)",
    "remote": "two boards over two bridged brokers: press-to-ring latency across, bytes a move",
}


def subcommands() -> list[str]:
    """Every command this CLI runs, `bench` once per benchmark (the suite runs each once)."""
    return ["replay", *(f"bench {name}" for name in _BENCHES), *_DELEGATED]


def replay_main(argv: Sequence[str]) -> int:
    """`kiothi-board replay FILE [--text]`: print every position of a game record."""
    from kiothi_board.rules import parse_record

    parser = argparse.ArgumentParser(
        prog="kiothi-board replay",
        description="Replay a kiothi-game/1 record: one position JSON per line "
        "(the initial position, then after each opening action and each move).",
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("file", help="the game record (JSON); '-' reads standard input")
    parser.add_argument("--text", action="store_true", help="print board diagrams instead")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            source = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                source = fh.read()
    except OSError as exc:
        print(f"kiothi-board replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        record = parse_record(source)
    except RulesError as exc:
        print(f"kiothi-board replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    final = None
    try:
        for index, text, pos in record.replay():
            if args.text:
                head = "initial position" if index < 0 else f"after action {index}: {text}"
                out.write(f"{head}\n{pos.diagram()}\n\n")
            else:
                out.write(json.dumps(pos.to_json()) + "\n")
            final = pos
    except IllegalMoveError as exc:
        out.flush()
        print(f"kiothi-board replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    out.flush()
    if record.result is not None and final is not None:
        got = final.result
        if got != record.result:
            got_text = "not over" if got is None else json.dumps(got.to_json())
            print(
                f"kiothi-board replay: {args.file}: the record's result "
                f"{json.dumps(record.result.to_json())} disagrees with the replay: {got_text}",
                file=sys.stderr,
            )
            return 3
    return 0


def bench_main(argv: Sequence[str]) -> int:
    """`kiothi-board bench WHAT`: run a benchmark and print its figures."""
    usage = f"usage: kiothi-board bench {{{','.join(_BENCHES)}}} [options]"
    if argv and argv[0] in ("-h", "--help"):
        print(f"{usage}\n\nRun a benchmark and print its figures.\n")
        for name in _BENCHES:
            print(f"  {name:8} {_BENCH_HELP.get(name, '')}")
        print("\n`kiothi-board bench WHAT --help` lists the options of one benchmark.")
        return 0
    if not argv or argv[0] not in _BENCHES:
        got = f"unknown benchmark {argv[0]!r}; " if argv else ""
        print(f"{usage}\nkiothi-board bench: {got}try --help", file=sys.stderr)
        return 2
    return int(_BENCHES[argv[0]](list(argv[1:])) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `kiothi-board` console script."""
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        # The reader went away (`kiothi-board replay --text … | head`): that is no error.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _main(args: list[str]) -> int:
    commands = {
        "replay": "print every position of a game record",
        "bench": f"benchmarks: {', '.join(_BENCHES)}",
        **{name: help for name, (_, help) in _DELEGATED.items()},
    }
    if not args or args[0] in ("-h", "--help"):
        print(f"kiothi-board {__version__}\n\nusage: kiothi-board COMMAND [options]\n")
        for name, help in commands.items():
            print(f"  {name:15} {help}")
        return 0 if args else 2
    if args[0] == "--version":
        print(f"kiothi-board {__version__}")
        return 0
    command, rest = args[0], args[1:]
    if command == "replay":
        return replay_main(rest)
    if command == "bench":
        return bench_main(rest)
    if command in _DELEGATED:
        return int(_DELEGATED[command][0](rest) or 0)
    print(f"kiothi-board: unknown command {command!r}; try --help", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
