"""`kiothi-board engine`: the engine protocol on stdin/stdout (docs/engine-protocol.md).

A line protocol modelled on UCI. The reader thread (the caller's) keeps reading while a
`go` searches on a worker thread, so `stop` and `isready` are answered at once. Every
output line is flushed. Bad input gets `info string error: …` and the engine carries on.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import IO

from kiothi_board import __version__
from kiothi_board.ai.levels import LevelChoice
from kiothi_board.ai.registry import level_names, level_player
from kiothi_board.ai.search import Iteration
from kiothi_board.ai.thinking import Hint, MoveBudget, PlayerBase
from kiothi_board.clock import Clock, SystemClock
from kiothi_board.errors import KiothiError
from kiothi_board.rules import Position, Variant, parse_record, pit_name

NAME = f"Kiothi-AI {__version__}"
AUTHOR = "the kiothi-board authors"


class EngineSession:
    """One protocol session: options, the current position and at most one search.

    `position` is None after a `position` command was refused: `go` is refused too until a
    valid position (or `newgame`, or a new Variant) is set, so a GUI never gets a move for
    a position it did not mean."""

    def __init__(self, out: IO[str], *, clock: Clock | None = None) -> None:
        self.out = out
        self.clock: Clock = clock or SystemClock()
        self.lock = threading.Lock()
        self.level = LevelChoice(5)  # Strong
        self.seed = 0
        self.variant = Variant()
        self.player = self.make_player()
        self.position: Position | None = Position.initial(self.variant)
        self.worker: threading.Thread | None = None
        self.infinite = False  # the running search waits for `stop`
        self.stop_event = threading.Event()

    # ----------------------------------------------------------------- output
    def send(self, line: str) -> None:
        """Write one line and flush (both threads write; the lock keeps lines whole)."""
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, message: str) -> None:
        """Report bad input without stopping."""
        self.send(f"info string error: {message}")

    # ----------------------------------------------------------------- commands
    def handle(self, line: str) -> bool:
        """Handle one input line; False means quit."""
        words = line.split()
        if not words:
            return True
        cmd, args = words[0], words[1:]
        try:
            if cmd == "quit":
                self.stop()
                return False
            handler = getattr(self, f"cmd_{cmd}", None)
            if handler is None:
                self.error(f"unknown command {cmd!r}")
            else:
                handler(args, line)
        except (KiothiError, ValueError) as exc:
            self.error(f"{line.strip()!r}: {exc}")
        return True

    def cmd_kei(self, args: list[str], line: str) -> None:
        """Identify and list the options."""
        self.send(f"id name {NAME}")
        self.send(f"id author {AUTHOR}")
        names = " ".join(f"var {name}" for name in level_names())
        self.send(f"option name Level type combo default {self.level.to_json()} {names}")
        self.send("option name Seed type spin default 0 min 0 max 2147483647")
        self.send("option name Variant type string default standard")
        self.send("keiok")

    def cmd_isready(self, args: list[str], line: str) -> None:
        """Answered at once, even while searching."""
        self.send("readyok")

    def cmd_setoption(self, args: list[str], line: str) -> None:
        """`setoption name <Name> value <value>`."""
        if len(args) < 4 or args[0] != "name" or "value" not in args:
            raise ValueError("expected: setoption name <Name> value <value>")
        at = args.index("value")
        name = " ".join(args[1:at]).lower()
        value = " ".join(args[at + 1 :])
        self.stop()  # a running search answers first, with the old options
        if name == "level":
            self.level = LevelChoice.parse(value)
        elif name == "seed":
            if not value.isdigit():
                raise ValueError(f"Seed must be a non-negative integer, got {value!r}")
            self.seed = int(value)
        elif name == "variant":
            self.variant = Variant() if value in ("", "standard") else Variant.parse(value)
            self.position = Position.initial(self.variant)
        else:
            raise ValueError(f"unknown option {name!r} (Level, Seed, Variant)")
        self.player = self.make_player()

    def make_player(self) -> PlayerBase:
        """The player for the current Level and Seed options (from the registry)."""
        return level_player(self.level, seed=self.seed, clock=self.clock)

    def cmd_newgame(self, args: list[str], line: str) -> None:
        """Forget the tables and start from the initial position."""
        self.stop()
        self.player.new_game()
        self.position = Position.initial(self.variant)

    def cmd_position(self, args: list[str], line: str) -> None:
        """`position startpos [moves …]` or `position record <JSON>`."""
        self.stop()  # a running search answers (bestmove) before the position changes
        self.position = None  # until this command proves valid: `go` is refused meanwhile
        if not args:
            raise ValueError("expected: position startpos [moves …] | position record <JSON>")
        if args[0] == "startpos":
            rest = args[1:]
            if rest and rest[0] != "moves":
                raise ValueError(f"expected 'moves' after startpos, got {rest[0]!r}")
            pos = Position.initial(self.variant)
            for i, text in enumerate(rest[1:]):
                if pos.over:
                    raise ValueError(f"action {i} ({text}) comes after the end of the game")
                try:
                    pos = pos.apply(text)
                except KiothiError as exc:
                    raise ValueError(f"action {i} ({text}): {exc}") from exc
            self.position = pos
        elif args[0] == "record":
            source = line.split("record", 1)[1].strip()
            record = parse_record(source)
            self.position = record.final()
        else:
            raise ValueError(f"expected startpos or record, got {args[0]!r}")

    def cmd_go(self, args: list[str], line: str) -> None:
        """`go [movetime MS | depth N | infinite]`: search on a worker thread."""
        self.stop()  # one search at a time: the running one answers first
        movetime: float | None = None
        depth: int | None = None
        if args:
            kind = args[0]
            if kind == "infinite" and len(args) == 1:
                movetime, depth = 1e9, 64
            elif kind in ("movetime", "depth") and len(args) == 2 and args[1].isdigit():
                n = int(args[1])
                if kind == "movetime":
                    movetime = max(n, 1) / 1000
                else:
                    depth = max(n, 1)
                    movetime = 1e9
            else:
                raise ValueError("expected: go [movetime MS | depth N | infinite]")
        pos = self.position
        if pos is None:
            self.error("go refused: no valid position (the last position command was rejected)")
            self.send("bestmove none")
            return
        if pos.over:
            self.send("info string game over: " + str(pos.result))
            self.send("bestmove none")
            return
        self.stop_event = threading.Event()
        stop = self.stop_event
        self.infinite = bool(args) and args[0] == "infinite"
        self.worker = threading.Thread(
            target=self._search, args=(pos, stop, movetime, depth), daemon=True
        )
        self.worker.start()

    def _search(
        self, pos: Position, stop: threading.Event, movetime: float | None, depth: int | None
    ) -> None:
        start = self.clock.now()
        me = pos.to_move
        base = 100 * (pos.captured[me] - pos.captured[me.other])

        def info(it: Iteration) -> None:
            elapsed = max(it.elapsed, 1e-6)
            pv = " ".join(pit_name(p) for p in it.pv)
            self.send(
                f"info depth {it.depth} score cp {base + it.score} nodes {it.nodes} "
                f"nps {int(it.nodes / elapsed)} time {int(elapsed * 1000)} pv {pv}"
            )

        try:
            hint: Hint = self.player.choose(pos, MoveBudget(movetime, depth, stop, info))
        except Exception as exc:  # the engine must answer even if the search fails
            self.error(f"search failed: {exc!r}")
            self.send("bestmove none")
            return
        elapsed = self.clock.now() - start
        self.send(f"info string {hint.explanation}")
        rung = getattr(self.player, "last_rung", None)  # the visitor level's, for engine users
        if rung is not None:
            self.send(f"info string adaptive: playing as {rung} this move")
        if hint.opening is not None:
            self.send(
                f"info depth {hint.depth} score cp {round(hint.score * 100)} nodes {hint.nodes} "
                f"time {int(elapsed * 1000)} pv {hint.action}"
            )
            self.send(f"bestopening {hint.action}")
        else:
            self.send(f"bestmove {hint.action}")

    def cmd_stop(self, args: list[str], line: str) -> None:
        """Stop a search; its bestmove line comes before the next answer."""
        self.stop()

    def cmd_d(self, args: list[str], line: str) -> None:
        """Debug: the current position as a diagram and JSON."""
        if self.position is None:
            self.send("info string no valid position (the last position command was rejected)")
            return
        for text in self.position.diagram().splitlines():
            self.send(f"info string {text}")
        self.send("info string " + json.dumps(self.position.to_json()))

    # ----------------------------------------------------------------- helpers
    def busy(self) -> bool:
        """True while a search runs."""
        return self.worker is not None and self.worker.is_alive()

    def stop(self) -> None:
        """Stop any search and wait until its bestmove is written."""
        if self.worker is not None:
            self.stop_event.set()
            self.worker.join()
            self.worker = None

    def wait(self) -> None:
        """End of input: let a running search finish by itself and answer, but stop one
        that would only end on `stop` (`go infinite`), which can no longer come."""
        if self.infinite:
            self.stop()
        if self.worker is not None:
            self.worker.join()
            self.worker = None


def main(
    argv: list[str] | None = None,
    *,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> int:
    """Run the protocol until `quit` or end of input; returns the exit status."""
    args = list(argv or [])
    if args and args[0] in ("-h", "--help"):
        print(
            "usage: kiothi-board engine\n\nSpeak the Kiothi engine protocol on stdin/stdout "
            "(see docs/engine-protocol.md)."
        )
        return 0
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    engine = EngineSession(out)
    while True:
        line = inp.readline()
        if not line:
            engine.wait()  # end of input: let a running search finish and answer
            break
        if not engine.handle(line):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
