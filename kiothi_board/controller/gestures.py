"""The gesture recogniser: input events in, commands out (taps, holds, chords, buttons).

Pure: it keeps only which pits are down and what each press began; it knows nothing of
the game. The session runs the commands it returns (see `Session.run`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kiothi_board.hardware.protocols import InputEvent
from kiothi_board.rules import PITS

__all__ = ["CHORDS", "CONTROLS", "Command", "Gestures"]


@dataclass(frozen=True, slots=True)
class Command:
    """A command name of the session's table and its argument (a pit, a side, …)."""

    name: str
    arg: int | str | bool | None = None

    @classmethod
    def parse(cls, text: str) -> Command:
        """`"undo"` or `"resign S"`: a name and an optional word argument."""
        name, _, arg = text.partition(" ")
        return cls(name, arg or None)


# Two-pit chords (RULES.md names) and the command each fires when held; see docs/controls.md.
CHORDS: dict[frozenset[int], str] = {
    frozenset((0, 9)): "check",  # S1+S10: the two ends of South's row
    frozenset((10, 19)): "check",  # N1+N10
    frozenset((4, 5)): "undo",  # S5+S6: the middle of the row
    frozenset((14, 15)): "undo",  # N5+N6
    frozenset((0, 1)): "resign S",  # S1+S2: South's own left corner
    frozenset((10, 11)): "resign N",  # N1+N2
    frozenset((9, 10)): "end",  # S10+N1: facing pits, one finger from each player
    frozenset((0, 19)): "new",  # S1+N10: the other facing pair
    frozenset((8, 9)): "language",  # S9+S10: South's right corner; the next language
    frozenset((18, 19)): "language",  # N9+N10
}

# The optional control buttons, by index (board.control_pins in the config).
CONTROLS: dict[int, str] = {0: "undo", 1: "hint", 2: "check", 3: "new"}


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
        chords: dict[frozenset[int], str] | None = None,
        controls: dict[int, str] | None = None,
    ) -> None:
        """Recognise holds after `hold_seconds`; chords and buttons from the tables given."""
        self.hold_seconds = hold_seconds
        self.chords = dict(CHORDS if chords is None else chords)
        self.controls = dict(CONTROLS if controls is None else controls)
        self._down: dict[int, _Down] = {}

    def reset(self) -> None:
        """Forget the presses in progress (a new game began)."""
        self._down.clear()

    def feed(self, event: InputEvent) -> list[Command]:
        """The commands one input event fires, in order (often none)."""
        if event.control is not None:
            name = self.controls.get(event.control)
            return [Command.parse(name)] if event.kind == "pressed" and name else []
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
            return [Command.parse(self.chords[down.chord])]
        if len(self._down) > 1:
            return []
        down.acted = True
        return [Command("revert", pit), Command("hold", pit)]
