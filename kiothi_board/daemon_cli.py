"""`kiothi-board run`'s command line: arguments, the printed messages, the terminal view.

The `Daemon` (the composition root) lives in `kiothi_board.daemon`; this module only
parses the arguments, builds one, tells the terminal where the web page is, wires the
simulator's terminal board and `--trace`, and runs it until a signal stops it.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import signal
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kiothi_board.config import Config, default_state_dir, load
from kiothi_board.controller import Controller
from kiothi_board.daemon import Daemon
from kiothi_board.errors import ConfigError, DriverFallback, KiothiError
from kiothi_board.hardware.fakes import FakePitInput
from kiothi_board.helptext import DefaultsFormatter
from kiothi_board.i18n import Msg, use_folders, venue_folder

if TYPE_CHECKING:
    from kiothi_board.sim import SimKeys, TerminalView

log = logging.getLogger("kiothi_board.daemon")

OnTick = Callable[[], None]


def _sim_keys(daemon: Daemon, keys: SimKeys, key: str) -> None:
    """Turn a terminal key into a press, a hold or a command (the simulator's board)."""
    inputs = daemon.inputs
    board = daemon.board
    if key == "\x03":
        daemon.stop()
        return
    keys.said = None
    glance = board.ask(Controller.glance)
    playing = glance.stage not in ("none", "over")
    humans = glance.settings.humans
    ai = playing and len(humans) == 1  # one player against the AI
    action = keys.feed(key, playing=playing, ai=ai)
    try:
        match action:
            case ("tap", int(pit)) if isinstance(inputs, FakePitInput):
                inputs.tap(pit)
            case ("hold", int(pit)) if isinstance(inputs, FakePitInput):
                inputs.hold(pit, daemon.config.board.hold_s + 0.1)
            case ("command", "new"):
                daemon.new_game_from_config()
            case ("command", "resign") if ai:
                board.call("resign", side=humans[0])  # the player resigns, even on the AI's turn
            case ("command", str(command)):
                board.call(command)  # the command table, as the doors and gestures use
    except KiothiError as exc:
        keys.said = exc.args[0] if exc.args and isinstance(exc.args[0], Msg) else str(exc)
        log.info("key %r: %s (stage %s)", key, exc, board.ask(Controller.glance).stage)


AUTOPLAY_DIR = "autoplay"
"""The demo's own store (under the default state directory): it never touches your games."""


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds above 0")
    return value


def state_dir(args: argparse.Namespace) -> str | None:
    """Where the game store lives: --state-dir, the demo's own store with --autoplay (a
    demo must not store your game in progress as abandoned), else the default (None)."""
    if args.state_dir is not None or args.autoplay is None:
        return args.state_dir  # type: ignore[no-any-return]
    return str(Path(default_state_dir()) / AUTOPLAY_DIR)


def _parser() -> argparse.ArgumentParser:
    """The arguments of `kiothi-board run`."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board run",
        description="Run the board daemon. Without a board attached it runs the simulator "
        "(with a warning); --sim forces it.",
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("--config", help="TOML configuration file (default: built-in)")
    parser.add_argument("--sim", action="store_true", help="simulated pit inputs and LED rings")
    parser.add_argument(
        "--state-dir",
        help="where the game store lives (default: systemd's "
        "$STATE_DIRECTORY or ~/.local/state/kiothi-board)",
    )
    parser.add_argument("--no-api", action="store_true", help="run without the API servers")
    parser.add_argument(
        "--autoplay",
        type=_seconds,
        metavar="SECONDS",
        help="simulator: press where the light points every SECONDS (an unattended demo; "
        f"its games go to a store of their own, {AUTOPLAY_DIR}/ in the default state "
        "directory, unless --state-dir is given)",
    )
    parser.add_argument("--seed", type=int, help="seed the AI and autoplay (reproducible demos)")
    parser.add_argument(
        "--fake-clock",
        type=float,
        metavar="EPOCH",
        help=argparse.SUPPRESS,  # the whole-day tests' fake time (docs/exhibition.md)
    )
    parser.add_argument(
        "--trace", action="store_true", help="print a JSON line whenever the game state changes"
    )
    parser.add_argument(
        "--no-terminal",
        action="store_true",
        help="in the simulator, do not draw the board in this terminal",
    )
    return parser


def _announce(daemon: Daemon, config: Config) -> str | None:
    """Tell the terminal where the web page is; the address to play on (with a ticket)."""
    play_url = daemon.web_url
    if daemon.web_url is not None:
        print(f"kiothi-board: the board's web page is at {daemon.web_url}", file=sys.stderr)
        api_cfg = config["api"]
        if daemon.simulated and daemon.api is not None and sys.stderr.isatty():
            # Whoever reads this terminal started the simulator: give them control of the
            # twin with a one-time, 10-minute ticket (the plain address stays read-only).
            # Never when stderr is not a terminal: that is a journal or a file, kept for
            # months and readable by others.
            play_url = f"{daemon.web_url}#ticket={daemon.api.access.issue_ticket('once')}"
            print(f"kiothi-board: play on the web twin: {play_url}", file=sys.stderr)
            print(f"kiothi-board: {operator_line(daemon, True)}", file=sys.stderr)
        elif daemon.simulated and daemon.api is not None:
            # With a token or a PIN set, that is the way in: say so, not to set one.
            codes = " or ".join(f"api.{k}" for k in ("token", "staff_pin") if api_cfg[k])
            how = (
                f"enter its {codes} as the access code on the operator page"
                if codes
                else "run in a terminal, or set api.token or api.staff_pin"
            )
            print(
                "kiothi-board: the web twin is read-only here (no terminal to show a one-time "
                f"link on): {how}",
                file=sys.stderr,
            )
            print(f"kiothi-board: {operator_line(daemon, False)}", file=sys.stderr)
        elif not (api_cfg["token"] or api_cfg["staff_pin"]):
            print(
                "kiothi-board: the page and TCP are read-only: set api.token "
                "(kiothi-board token makes one) or api.staff_pin to play from them",
                file=sys.stderr,
            )
    return play_url


def operator_line(daemon: Daemon, tty: bool) -> str:
    """Where the simulator's operator page is and how it gives control, in words.

    The access code is a secret: it is shown on a terminal only, never written to a log
    or a journal (a service's stderr)."""
    page = f"{daemon.web_url}operator"
    if daemon.sim_code is None:
        return f"the operator page is at {page}; its access code is your api.staff_pin"
    if not tty and daemon.config["api"]["token"]:
        return f"the operator page is at {page}; its access code is your api.token"
    if not tty:
        return (
            f"the operator page is at {page}; its access code is shown only when the "
            "simulator runs in a terminal (or set api.staff_pin)"
        )
    return f"the operator page is at {page}; its access code for this run is {daemon.sim_code}"


def _terminal_board(
    daemon: Daemon, play_url: str | None
) -> tuple[TerminalView | None, OnTick | None]:
    """The simulator's board drawn in this terminal, when there is one: (view, on_tick)."""
    from kiothi_board.hardware.voice import SimVoice
    from kiothi_board.sim import SimKeys, TerminalView, no_terminal_notice

    if not TerminalView.available():
        print(no_terminal_notice(play_url), file=sys.stderr, flush=True)
        return None, None
    keys = SimKeys()
    if isinstance(daemon.voice_output, SimVoice):  # said under the board, not over it
        daemon.voice_output.write = lambda _line: None
    view = TerminalView(lambda key: _sim_keys(daemon, keys, key))
    view.start()
    terminal = view

    def on_tick() -> None:  # on the board loop: it reads the loop's own parts
        terminal.draw(screen(daemon, keys, play_url))

    return view, on_tick


def screen(daemon: Daemon, keys: SimKeys, play_url: str | None) -> str:
    """The simulator's terminal screen now (on the board loop; tests call it too)."""
    from kiothi_board.sim import exhibit_state, render_board

    state = daemon.controller.state()
    state["url"] = play_url
    if play_url is not None:  # the view is a terminal: the access code may show
        state["url"] = f"{play_url}\n{operator_line(daemon, True)}"
    if keys.prompt or keys.said:  # a question or a refused key: the terminal's own words
        state.update(said=keys.prompt or keys.said, said_kind="prompt")
    state["help"] = keys.help
    director = daemon.exhibition.director
    status = director.status()
    if status["instruction"] is not None:  # its own picture, or a result and what follows
        language = daemon.controller.language
        if status["phase"] == "attract" and language.current == language.languages[0]:
            # Nobody chose a language: the invitation speaks each of the venue's in turn.
            from kiothi_board.exhibit.words import invitation_at

            _, status["instruction"] = invitation_at(daemon.clock.wall(), language.languages)
        state = exhibit_state(state, status)
    columns = shutil.get_terminal_size().columns
    board = render_board(
        daemon.board.loop.shown, state, columns, daemon.controller.language.current
    )
    said = getattr(daemon.voice_output, "last", "")  # the sim voice's line (`[voice]` on)
    return f"{board}\n{said}" if said else board


def _traced(daemon: Daemon, draw: OnTick | None) -> OnTick:
    """`--trace`: print the state as resumed, then a JSON line whenever it changes."""
    last = [daemon.trace_line()]
    print(last[0], flush=True)  # the state as resumed, before anything else happens

    def on_tick() -> None:
        if draw is not None:
            draw()
        line = daemon.trace_line()
        if line != last[0]:
            last[0] = line
            print(line, flush=True)

    return on_tick


def _start(args: argparse.Namespace) -> Daemon | int:
    """Load the configuration and build the daemon, or the exit code saying why not."""
    # The venue's own catalogs first (docs/translating.md): `[board] languages` may name them.
    use_folders(venue_folder(state_dir(args) or default_state_dir()))
    try:
        config = load(args.config)
    except ConfigError as exc:
        print(f"kiothi-board run: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=config.daemon.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    warnings.simplefilter("ignore", DriverFallback)  # the log line says it, once
    try:
        return Daemon(
            config,
            sim=args.sim,
            state_dir=state_dir(args),
            api=not args.no_api,
            autoplay=args.autoplay,
            seed=args.seed,
            fake_clock=args.fake_clock,
        )
    except (KiothiError, OSError) as exc:
        print(f"kiothi-board run: {exc}", file=sys.stderr)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `kiothi-board run`."""
    args = _parser().parse_args(argv)
    daemon = _start(args)
    if isinstance(daemon, int):
        return daemon
    # A signal only sets the loop's flag and wakes it (a reentrant queue): any number of
    # them, in any rhythm, stop the board once.
    signal.signal(signal.SIGTERM, daemon.stop)
    signal.signal(signal.SIGINT, daemon.stop)
    view: TerminalView | None = None
    on_tick: OnTick | None = None
    play_url = _announce(daemon, daemon.config)
    if daemon.simulated and not args.no_terminal:
        view, on_tick = _terminal_board(daemon, play_url)
    if args.trace:
        on_tick = _traced(daemon, on_tick)
    try:
        daemon.run(on_tick=on_tick)
    finally:
        if view is not None:
            view.close()
        daemon.close()
    return 0
