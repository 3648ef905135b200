"""The gesture recogniser: input events in, commands out (taps, holds, chords, buttons).

Pure: it keeps only which pits are down and what each press began; it knows nothing of
the game. The session runs the commands it returns (see `Session.run`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.rules import PITS

__all__ = ["Command", "Gestures"]


@dataclass(frozen=True, slots=True)
class Command:
    """A command name of the session's table and its argument (a pit, a side, …)."""

    name: str
    arg: Any = None


@dataclass(slots=True)
class _Down:
    chord: frozenset[int] | None = None
    acted: bool = False  # a hold or chord command already fired for this press


class Gestures:
    """Turns `InputEvent`s into `Command`s.

    A pit press is a `tap` at once (the session marks what it changed); a hold past
    `hold_seconds` takes the tap back (`revert`) and fires `hold`; a second press that
    makes a chord takes the first tap back, and the chord's command fires on hold.
    `release` tells the session a press is over; `drop` is a seed sensed in a pit.
    """

    def __init__(
        self,
        hold_seconds: float = 1.0,
        *,
        chords: dict[frozenset[int], Command] | None = None,
        controls: dict[int, Command] | None = None,
    ) -> None:
        """Recognise holds after `hold_seconds`; chords and buttons as the command table
        gives them (`CommandTable.chords`, `.controls`; none by default)."""
        self.hold_seconds = hold_seconds
        self.chords = dict(chords or {})
        self.controls = dict(controls or {})
        self._down: dict[int, _Down] = {}

    def reset(self) -> None:
        """Forget the presses in progress (a new game began)."""
        self._down.clear()

    def feed(self, event: InputEvent) -> list[Command]:
        """The commands one input event fires, in order (often none)."""
        if event.control is not None:
            command = self.controls.get(event.control)
            return [command] if event.kind == "pressed" and command else []
        pit = event.pit
        if not 0 <= pit < PITS:
            return []
        match event.kind:
            case "pressed":
                return self._pressed(pit)
            case "released" | "stuck":
                self._down.pop(pit, None)
                return [Command("release", pit)]
            case "held":
                return self._held(pit, event.seconds)
            case "dropped":
                return [Command("drop", pit)]
        return []

    def _pressed(self, pit: int) -> list[Command]:
        if self._down:
            first = next(iter(self._down))
            chord = frozenset((*self._down, pit))
            if chord in self.chords:
                # A chord: whatever the first press did is taken back; it fires on hold.
                for down in self._down.values():
                    down.chord = chord
                self._down[pit] = _Down(chord)
                return [Command("revert", first)]
        self._down[pit] = _Down()
        return [Command("tap", pit)]

    def _held(self, pit: int, seconds: float) -> list[Command]:
        down = self._down.get(pit)
        if down is None or down.acted or seconds < self.hold_seconds:
            return []
        if down.chord is not None:
            if not down.chord <= set(self._down):
                return []
            for d in self._down.values():
                d.acted = True
            return [self.chords[down.chord]]
        if len(self._down) > 1:
            return []
        down.acted = True
        return [Command("revert", pit), Command("hold", pit)]
