"""The simulator's terminal view: the board as coloured text, key presses as pit presses.

South's row is the bottom line of keys (`1`…`0` are S1…S10), North's the top letters as
seen from South's seat (`q`…`p` are N10…N1). Shift (`!`…`)`, `Q`…`P`) holds a pit.
Commands: `h` hint, `z` undo, `c` check the board, `a` end by agreement, `x` resign,
`n` new game, space pause/resume, `v` walk a long move, `?` help, Ctrl-C quit.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from kiothi_board.hardware.protocols import RGB
from kiothi_board.i18n import localize, tr
from kiothi_board.rules import pit_name

SOUTH_KEYS = "1234567890"
NORTH_KEYS = "qwertyuiop"  # left to right from South's seat: N10 … N1
SOUTH_HOLD = "!@#$%^&*()"
NORTH_HOLD = NORTH_KEYS.upper()

KEY_TO_PIT: dict[str, int] = {k: i for i, k in enumerate(SOUTH_KEYS)}
KEY_TO_PIT.update({k: 19 - i for i, k in enumerate(NORTH_KEYS)})
HOLD_TO_PIT: dict[str, int] = {k: i for i, k in enumerate(SOUTH_HOLD)}
HOLD_TO_PIT.update({k: 19 - i for i, k in enumerate(NORTH_HOLD)})
COMMANDS = {
    "h": "hint",
    "z": "undo",
    "c": "check",
    "a": "end",
    "x": "resign",
    "n": "new",
    " ": "pause",
    "v": "walk",
    "g": "tutorial",
    "?": "help",
}
HELP = tr(
    "keys: 1…0 = S1…S10, q…p = N10…N1, shifted = hold · h hint · z undo · c check · "
    "a agree · x resign · n new game · g tutorial · space pause · v walk · Ctrl-C quit"
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
    frame: Sequence[Sequence[RGB]], state: dict[str, Any], lang: str | None = None
) -> str:
    """The whole screen for a frame and a controller state (pure, for tests too), its words
    in `lang` (English by default)."""
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
    status = [f"\x1b[1m{state.get('instruction') or ''}\x1b[0m"]
    if state.get("said"):
        status.append(f"\x1b[38;2;255;140;140m{state['said']}\x1b[0m")
    if state.get("stage") not in (None, "none"):
        line = tr(
            "game {game} · to move {side} · captured S {south} – N {north}",
            game=state.get("game_id"),
            side=pos.get("to_move", "-"),
            south=captured[0],
            north=captured[1],
        )
        status.append(line.render(lang))
    if state.get("url"):
        status.append(tr("web twin: {url}", url=state["url"]).render(lang))
    return "\n".join([*lines, "", *status, HELP.render(lang)])


ASK_NEW = tr(
    "Start a new game? Press y to confirm (this game is stored as abandoned); "
    "any other key keeps playing."
)

Action = tuple[str, int | str]
"""("tap", pit), ("hold", pit) or ("command", name)."""


class SimKeys:
    """Terminal keys to board actions; `n` asks for a `y` first, so no game is lost by a slip."""

    def __init__(self) -> None:
        """No question pending, nothing said."""
        self.prompt: str | None = None
        self.said: str | None = None  # why the last key's command failed, in words

    def feed(self, key: str) -> Action | None:
        """The action a key asks for (None: nothing, or a question was asked or answered)."""
        if self.prompt is not None:
            self.prompt = None
            return ("command", "new") if key in ("y", "Y") else None
        if key in KEY_TO_PIT:
            return ("tap", KEY_TO_PIT[key])
        if key in HOLD_TO_PIT:
            return ("hold", HOLD_TO_PIT[key])
        command = COMMANDS.get(key)
        if command == "new":
            self.prompt = ASK_NEW
            return None
        if command is None or command == "help":
            return None
        return ("command", command)


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
