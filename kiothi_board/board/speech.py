"""The board's voice as a part of the loop: the step's notices become sentences for the speaker.

The board loop hands every step's notices here right after the rings change (the "voice"
part of docs/architecture.md's walk of a press), with the exhibition's director; this part
decides what is said (`Announcer`, pure: notices in, catalog messages out) and hands it to
the speaker's worker (`hardware/speaker.py`), which never blocks the loop. A press cuts what
is being said. Nothing is said in the schedule's quiet hours.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kiothi_board.controller.events import Select
from kiothi_board.controller.game import Game, expected_board
from kiothi_board.controller.notices import (
    Applied,
    Finished,
    Guided,
    HintReady,
    Inputted,
    LanguageChanged,
    Notice,
    Started,
    VoiceAsked,
    Wrong,
)
from kiothi_board.exhibit.director import Director
from kiothi_board.exhibit.words import ATTRACT, CLOSED, WAKING
from kiothi_board.hardware.speaker import Speaker, Utterance
from kiothi_board.i18n import Msg, joined, tr, trn, trp
from kiothi_board.i18n.numbers import number_word
from kiothi_board.rules import Outcome, Side, pit_name

__all__ = ["WHAT", "Announcer", "Voice"]

WHAT = ("guide", "events", "accessibility")
"""What the voice may say (`voice.what`): the guide's line and wrong presses, the game's
events and the exhibition's invitations, each press and the board read out."""

_SIDE = {Side.S: trp("side", "South"), Side.N: trp("side", "North")}


def seeds(n: int) -> Msg:
    """`n` seeds, the number as a word: "four seeds", "mbegu nne"."""
    if n == 1:  # its own entry: "une graine", "ein Samen" (the number alone is "un", "eins")
        return tr("one seed")
    return trn("{word} seed", "{word} seeds", n, word=number_word(n))


def pit_count(pit: int, n: int) -> Msg:
    """A pressed pit and what it holds: "S6, four seeds"."""
    if n == 0:
        return tr("{pit}, empty", pit=pit_name(pit))
    return tr("{pit}, {seeds}", pit=pit_name(pit), seeds=seeds(n))


def row_words(board: Sequence[int], side: Side) -> Msg:
    """One row read out: "S1 empty, S2 three, …"."""
    start = 0 if side is Side.S else 10
    items = [
        tr("{pit} empty", pit=pit_name(p))
        if board[p] == 0
        else tr("{pit} {count}", pit=pit_name(p), count=number_word(board[p]))
        for p in range(start, start + 10)
    ]
    return joined(items)


def result_words(outcome: Outcome | None) -> Msg:
    """Game over with the result, the scores as words."""
    if outcome is None or outcome.end == "abandoned":
        return tr("Game over: the game was abandoned.")
    s, n = outcome.captured
    if outcome.winner is None:
        return tr("Game over: a draw, {south} to {north}.", south=number_word(s),
                  north=number_word(n))  # fmt: skip
    won, lost = (s, n) if outcome.winner is Side.S else (n, s)
    return tr("Game over: {side} wins, {won} to {lost}.", side=_SIDE[outcome.winner],
              won=number_word(won), lost=number_word(lost))  # fmt: skip


class Announcer:
    """What the board says for a step's notices (pure: it keeps only what it heard)."""

    def __init__(self, what: Iterable[str], languages: Sequence[str]) -> None:
        """Say the kinds of `what` (`WHAT`), in the board's language (first of
        `languages`, the venue's list: the invitation is said in each in turn)."""
        self.what = frozenset(what)
        self.languages = tuple(languages) or ("en",)
        self.lang = self.languages[0]
        self.last: Utterance | None = None
        self._line: str | None = None  # the guide's line last said (its English value)
        self._lesson: str | None = None  # and the tutorial's lesson
        self._game: Game | None = None
        self._phase: str | None = None

    def hear(self, notices: Sequence[Notice], phase: str | None = None,
             reset: Msg | None = None) -> tuple[bool, Utterance | None]:  # fmt: skip
        """(whether a press cuts speech short, what to say) for one step; `phase` is the
        exhibition's (None: off), `reset` its reset request while it asks for one."""
        cut = False
        said: list[Msg] = []
        for notice in notices:
            if isinstance(notice, Inputted):
                if notice.event.kind == "pressed":
                    cut = True
                    said += self._pressed(notice.event.pit, notice.event.control)
            else:
                said += self._notice(notice)
        invite = phase == "attract" and self._phase != "attract" and "events" in self.what
        said += self._exhibit(phase, reset)
        utterance = self._utterance(said, invite)
        if any(isinstance(n, VoiceAsked) and n.what == "repeat" for n in notices):
            utterance = self.last
        elif utterance is not None:
            self.last = utterance
        return cut, utterance

    def _utterance(self, said: list[Msg], invite: bool) -> Utterance | None:
        parts: list[tuple[str, str]] = [(self.lang, m) for m in said]  # the worker renders
        if invite:  # the invitation: in each of the venue's languages in turn
            parts += [(lang, ATTRACT) for lang in self.languages]
        return Utterance(tuple(parts)) if parts else None

    def _pressed(self, pit: int, control: int | None) -> list[Msg]:
        if "accessibility" not in self.what or control is not None or not 0 <= pit < 20:
            return []
        if self._game is None:
            return []
        return [pit_count(pit, expected_board(self._game)[pit])]

    def _notice(self, notice: Notice) -> list[Msg]:
        events, guide = "events" in self.what, "guide" in self.what
        match notice:
            case LanguageChanged(lang):
                self.lang, self._line = lang, None
            case Started(_, _, game):
                self._game, self._line = game, None
            case Applied(event, old, new):
                self._game = new
                return self._applied(event, old, new) if events else []
            case Guided(stage, _, _, _, text) if guide and stage not in ("over", "none"):
                return self._guided(text)
            case Wrong(message=message) if guide and isinstance(message, Msg):
                self._line = None  # after the reason, the same instruction is said again
                return [message]
            case HintReady(why=why) if guide and isinstance(why, Msg):
                return [why]
            case Finished(_, outcome) if events:
                return [result_words(outcome)]
            case VoiceAsked("board") if self._game is not None:
                return self._board()
        return []

    def _guided(self, text: str) -> list[Msg]:
        """The guide's line when it changed; a tutorial's lesson only when it changed."""
        if str(text) == self._line or not isinstance(text, Msg):
            return []
        self._line = str(text)
        lesson, line = text.args.get("lesson"), text.args.get("line")
        if isinstance(lesson, Msg) and isinstance(line, Msg):
            if str(lesson) == self._lesson:
                return [line]
            self._lesson = str(lesson)
        return [text]

    def _applied(self, event: object, old: Game, new: Game) -> list[Msg]:
        out: list[Msg] = []
        mover = old.position.to_move
        if isinstance(event, Select) and old.settings.is_ai(mover):
            out.append(tr("The board plays {pit}.", pit=pit_name(event.pit)))
        before, after = old.position.captured, new.position.captured
        if after != before and new.stage != "over":
            side = Side.S if after[0] != before[0] else Side.N
            took = after[side] - before[side]
            out.append(tr("{side} captures {seeds}.", side=_SIDE[side], seeds=seeds(took)))
            out.append(tr("Score: South {south}, North {north}.",
                          south=number_word(after[0]), north=number_word(after[1])))  # fmt: skip
        return out

    def _board(self) -> list[Msg]:
        game = self._game
        assert game is not None
        board = expected_board(game)
        humans = game.settings.humans
        mine = humans[0] if humans else Side.S
        return [
            tr("Your row: {pits}.", pits=row_words(board, mine)),
            tr("The other row: {pits}.", pits=row_words(board, mine.other)),
        ]

    def _exhibit(self, phase: str | None, reset: Msg | None) -> list[Msg]:
        if phase == self._phase:
            return []
        self._phase = phase
        if "events" not in self.what:
            return []
        if phase == "waking":
            return [WAKING]
        if phase == "closed":
            return [CLOSED]
        if phase == "countdown":
            return [tr("Still playing? Press any pit, or this game ends soon.")]
        if phase == "reset" and reset is not None:
            return [reset]
        return []


@dataclass
class Voice:
    """The loop's voice part: an announcer and the speaker it feeds (None: silent)."""

    announcer: Announcer
    speaker: Speaker | None = None
    on: bool = True

    @classmethod
    def silent(cls) -> Voice:
        """A board without a voice (`[voice]` off): the part is walked, and says nothing."""
        return cls(Announcer((), ("en",)), None, False)

    def hear(self, notices: Sequence[Notice], director: Director | None) -> None:
        """One step's notices (on the loop; returns at once)."""
        speaker = self.speaker
        if speaker is None:
            return
        for notice in notices:
            if isinstance(notice, VoiceAsked) and notice.what == "set":
                self._set(notice)
        phase, reset, quiet = None, None, False
        if director is not None:
            status = director.status()
            phase = status["phase"] if director.enabled else None
            quiet = bool(status["quiet"])
            line = status["instruction"]
            reset = line if phase == "reset" and isinstance(line, Msg) else None
        cut, utterance = self.announcer.hear(notices, phase, reset)
        if cut:
            speaker.interrupt()
        if utterance is not None and self.on and not quiet:
            speaker.say(utterance)

    def _set(self, asked: VoiceAsked) -> None:
        if asked.on is not None:
            self.on = asked.on
            if not asked.on and self.speaker is not None:
                self.speaker.interrupt()
        if asked.volume is not None and self.speaker is not None:
            output = self.speaker.output
            if hasattr(output, "volume"):
                output.volume = asked.volume

    def close(self) -> None:
        """Stop the speaker; idempotent."""
        if self.speaker is not None:
            self.speaker.close()
