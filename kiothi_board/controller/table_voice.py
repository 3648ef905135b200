"""The voice's commands (issue 35): entries of the command table (controller/table.py).

They reach the voice as a `VoiceAsked` notice, which the loop's voice (board/speech.py)
hears with the step's other notices.
"""

from __future__ import annotations

from typing import Any

from kiothi_board.controller.commands import Commanded
from kiothi_board.controller.kinds import Flag, Number
from kiothi_board.controller.notices import VoiceAsked
from kiothi_board.controller.spec import Arg, Button, CommandSpec, keyed
from kiothi_board.i18n import tr

__all__ = ["VOICE_COMMANDS"]


def _voice(ctl: Commanded, what: str, args: Any = None) -> dict[str, Any]:
    """The voice's commands are notices for the loop's voice (board/speech.py)."""
    asked = {k: v for k, v in (args or {}).items() if v is not None}
    ctl.session.tell(VoiceAsked(what, asked.get("on"), asked.get("volume")))
    return asked


VOICE_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "voice.set",
        tr("switch the board's voice on or off, or set its volume"),
        "staff",
        (Arg("on", Flag()), Arg("volume", Number(0.0, 1.0))),
        lambda ctl, a: _voice(ctl, "set", a),
        keyed("voice"),
        "`voice`: `on`, `volume` as asked (a board without `[voice]` stays silent)",
        {
            "type": "object",
            "required": ["voice"],
            "properties": {"voice": {"type": "object"}},
        },
        least=1,
    ),
    CommandSpec(
        "voice.repeat",
        tr("say the last sentence again"),
        handler=lambda ctl, _: _voice(ctl, "repeat"),
        chords=((1, 2, None), (11, 12, None)),
        button=Button(tr("Say it again"), ("operator", "twin"), 45, key="l"),
    ),
    CommandSpec(
        "voice.board",
        tr("read the board out: each pit and its seeds"),
        handler=lambda ctl, _: _voice(ctl, "board"),
        chords=((2, 3, None), (12, 13, None)),
        button=Button(tr("Read the board"), ("operator", "twin"), 46, key="b"),
    ),
)
