"""The simulator's terminal view: the board as coloured text, key presses as pit presses.

South's row is the bottom line of keys (`1`…`0` are S1…S10), North's the top letters as
seen from South's seat (`q`…`p` are N10…N1). Shift (`!`…`)`, `Q`…`P` on a US keyboard)
holds a pit, and so does `.` followed by the pit's key, on any keyboard layout.
Commands: `h` hint, `z` undo, `c` check the board, `a` end by agreement, `x` resign,
`n` new game, space pause/resume, `v` walk a long move, `?` help, Ctrl-C quit.
"""

from __future__ import annotations

import os
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from kiothi_board.controller.table import TABLE
from kiothi_board.hardware.protocols import RGB
from kiothi_board.i18n import localize, tr
from kiothi_board.rules import pit_name

SOUTH_KEYS = "1234567890"
NORTH_KEYS = "qwertyuiop"  # left to right from South's seat: N10 … N1
SOUTH_HOLD = "!@#$%^&*()"  # Shift+digit on a US keyboard; `.` then a key on any layout
HOLD_NEXT = "."
NORTH_HOLD = NORTH_KEYS.upper()

KEY_TO_PIT: dict[str, int] = {k: i for i, k in enumerate(SOUTH_KEYS)}
KEY_TO_PIT.update({k: 19 - i for i, k in enumerate(NORTH_KEYS)})
HOLD_TO_PIT: dict[str, int] = {k: i for i, k in enumerate(SOUTH_HOLD)}
HOLD_TO_PIT.update({k: 19 - i for i, k in enumerate(NORTH_HOLD)})
COMMANDS: dict[str, str] = TABLE.keys()
"""The command keys: the table's (`CommandSpec.key`)."""
HELP = tr(
    "keys: 1…0 = S1…S10, q…p = N10…N1, shifted (or . then the key) = hold · h hint · "
    "z undo · c check · a agree · x resign · n new game · g tutorial · space pause · "
    "v walk · ? help · Ctrl-C quit"
)


def _dot(rgb: RGB) -> str:
    r, g, b = rgb
    if r == g == b == 0:
        return "\x1b[38;2;60;60;60m·"
    # Scale dim LEDs up so they stay visible on a dark terminal.
    peak = max(r, g, b)
    k = 255 / peak if peak < 120 else 1.0
    return f"\x1b[38;2;{int(r * k)};{int(g * k)};{int(b * k)}m●"


def ring_lines(ring: Sequence[RGB]) -> tuple[str, str]:
    """A ring as two lines of coloured dots: the first half left to right, the second back."""
    half = (len(ring) + 1) // 2
    top = "".join(_dot(c) for c in ring[:half])
    bottom = "".join(_dot(c) for c in reversed(ring[half:]))
    return top + "\x1b[0m", bottom + "\x1b[0m"


def render_board(
    frame: Sequence[Sequence[RGB]],
    state: dict[str, Any],
    columns: int = 100,
    lang: str | None = None,
) -> str:
    """The whole screen for a frame and a controller state (pure, for tests too); the
    lines of words wrap at words to `columns`, in `lang` (English by default)."""
    state = localize(state, lang)
    board = state.get("board") or [0] * 20
    expect = state.get("expect")
    width = (len(frame[0]) + 1) // 2 if frame else 8

    restore = state.get("restore") or {}
    pending = set(restore.get("pending", ()))

    def label(pit: int) -> str:
        name = pit_name(pit)
        mark = "▶" if name == expect else " "
        # In a restore the label is the ring's target; `*` marks a pit that must change.
        text = f"{mark}{name}:{board[pit]}{'*' if name in pending else ''}"
        return text.ljust(width)[:width] if len(text) <= width else text[:width]

    north = list(range(19, 9, -1))
    south = list(range(10))
    lines = []
    for row, keys in ((north, NORTH_KEYS), (south, SOUTH_KEYS)):
        rings = [ring_lines(frame[p]) for p in row]
        lines.append("  ".join(f"[{k}]".ljust(width) for k in keys))
        lines.append("  ".join(top for top, _ in rings))
        lines.append("  ".join(bottom for _, bottom in rings))
        lines.append("  ".join(label(p) for p in row))
    pos = state.get("position") or {}
    captured = pos.get("captured", [0, 0])
    cols = max(40, columns)
    status = [_styled("1", state.get("instruction") or "", cols)]
    if state.get("said"):  # a hint's reason in the hint's yellow, a wrong press in red
        hint = state.get("said_kind") == "hint"
        status.append(
            _styled("38;2;255;220;90" if hint else "38;2;255;140;140", state["said"], cols)
        )
    if state.get("stage") not in (None, "none"):  # the instruction says who is to move
        line = tr(
            "Game {game} · captured: South {south}, North {north}",
            game=state.get("game_id"),
            south=captured[0],
            north=captured[1],
        )
        status.append(line.render(lang))
    if state.get("url"):
        status.append(tr("web twin: {url}", url=state["url"]).render(lang))
    if state.get("help"):
        status.append(_styled("38;2;140;200;255", HELP_LONG.render(lang), cols))
    return "\n".join([*lines, "", *status, *textwrap.wrap(HELP.render(lang), cols)])


def _styled(sgr: str, text: str, columns: int) -> str:
    """`text` wrapped at words to `columns`, each line in the SGR style `sgr`."""
    return "\n".join(f"\x1b[{sgr}m{line}\x1b[0m" for line in textwrap.wrap(text, columns) or [""])


def exhibit_state(state: dict[str, Any], exhibit: dict[str, Any]) -> dict[str, Any]:
    """The controller's state as the exhibition shows it (its `exhibit` status): its line
    instead of the game's while no game is played (the reset, the attract loop, the
    countdown with its seconds), and during the reset the counts the rings ask for."""
    line = exhibit.get("instruction")
    if not exhibit.get("enabled") or line is None:
        return state
    out = {**state, "instruction": line}
    if exhibit.get("phase") in ("countdown", "playing"):
        return out  # the game is still on (dimmed under the countdown, or its result)
    out.update(expect=None, stage="none")  # no game shown
    if exhibit.get("board") is not None:  # the reset's targets, or the start it set
        out["board"] = exhibit["board"]
    if exhibit.get("phase") == "reset":
        out["restore"] = {"pending": exhibit.get("pending") or []}
    return out


NO_GAME = tr("No game in play: hold any pit (Shift with its key) or press n to start one.")
HELP_LONG = tr(
    "Keys: 1…0 press S1…S10 (your row, left to right); q…p press N10…N1 (the far row as "
    "you see it); Shift with a key holds that pit, or `.` then the key on any keyboard (a "
    "hold passes in the opening, confirms a board set back, starts a game when none is on). "
    "h hint · z undo (against the AI: back to your own turn) · c check the board · "
    "a end by agreement · x resign · n new game · g tutorial · space pause or resume a "
    "flowing move · v walk a long move drop by drop · ? this help · Ctrl-C quit. "
    "Any key closes this help."
)

Action = tuple[str, int | str]
"""("tap", pit), ("hold", pit) or ("command", name)."""


class SimKeys:
    """Terminal keys to board actions; `n`, `a` and `x` ask for a `y` first, so no game is
    lost by a slip (with no game on, `n` starts one at once: nothing to lose)."""

    def __init__(self) -> None:
        """No question pending, nothing said."""
        self.prompt: str | None = None
        self.said: str | None = None  # why the last key's command failed, in words
        self.help = False  # `?`: the long help shows until the next key
        self._asked: str | None = None
        self._hold_next = False

    def feed(self, key: str, *, playing: bool = True, ai: bool = False) -> Action | None:
        """The action a key asks for (None: nothing, or a question was asked or answered).
        `playing`: a game is on (not over, not none); `ai`: against the AI."""
        self.help = False
        hold, self._hold_next = self._hold_next, key == HOLD_NEXT
        if self._hold_next:
            return None
        if hold and key in KEY_TO_PIT:  # `.` then a pit key: a hold on any keyboard layout
            return ("hold", KEY_TO_PIT[key])
        if self.prompt is not None:
            asked, self.prompt, self._asked = self._asked, None, None
            return ("command", asked) if key in ("y", "Y") and asked else None
        if key in KEY_TO_PIT:
            return ("tap", KEY_TO_PIT[key])
        if key in HOLD_TO_PIT:
            return ("hold", HOLD_TO_PIT[key])
        spec = TABLE.get(COMMANDS.get(key, ""))
        if spec is None:
            return None
        if spec.name == "help":  # the terminal's own long help (the API's lists commands)
            self.help = True
            return None
        if not playing and spec.needs_game:
            self.said = NO_GAME  # not "no game: start one with new_game()"
            return None
        if spec.ask is not None:
            if not playing:  # `n`: nothing to lose, so no question
                return ("command", "new")
            self._asked = spec.name
            self.prompt = spec.ask_ai or spec.ask if ai else spec.ask
            return None
        return ("command", spec.name)


def no_terminal_notice(url: str | None) -> str:
    """What the simulator says when its input or output is not a terminal (`… | tee log`)."""
    where = (
        f"play on the web twin at {url}"
        if url
        else "the web twin is off too (api.web_port = -1): play through the API"
    )
    return (
        "kiothi-board: the simulator's input or output is not a terminal, so it draws no "
        f"board here and reads no keys; {where}, or run it in a terminal "
        "(--no-terminal silences this)."
    )


class TerminalView:
    """Redraws the board on a terminal and reads keys in raw mode on a thread."""

    def __init__(
        self,
        on_key: Callable[[str], None],
        *,
        out: TextIO | None = None,
        in_fd: int | None = None,
    ) -> None:
        """`on_key(ch)` is called for every key read (from the reader thread)."""
        self._on_key = on_key
        self._out = out or sys.stdout
        self._fd = sys.stdin.fileno() if in_fd is None else in_fd
        self._saved: Any = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        self._last = ""

    @staticmethod
    def available() -> bool:
        """True when both stdin and stdout are terminals."""
        return sys.stdin.isatty() and sys.stdout.isatty()

    def start(self) -> None:
        """Enter raw mode and start reading keys."""
        import termios
        import tty

        self._saved = termios.tcgetattr(self._fd)
        tty.setcbreak(self._fd)
        self._out.write("\x1b[?25l\x1b[2J")
        self._thread = threading.Thread(target=self._read, name="sim-keys", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._closed.is_set():
            try:
                data = os.read(self._fd, 1)
            except OSError:
                return
            if not data:
                return
            self._on_key(data.decode(errors="replace"))

    def draw(self, text: str) -> None:
        """Draw a screen if it changed."""
        if text != self._last:
            self._last = text
            self._out.write("\x1b[H" + text.replace("\n", "\x1b[K\n") + "\x1b[J")
            self._out.flush()

    def close(self) -> None:
        """Restore the terminal; idempotent."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._saved is not None:
            import termios

            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
            self._out.write("\x1b[?25h\n")
            self._out.flush()
