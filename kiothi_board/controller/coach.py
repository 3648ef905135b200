"""The first-game tutorial, driven on a real game (guide.tutorial words the lessons).

A tutorial is a game against the AI in which South's opening (RULES.md's example) and first
move (one with a relay, R5) are *guided* like the AI's, so a new player is walked through
both seed by seed. The controller hands `Coach` each notice (before the presenter, so a
lesson is never a step late) to know which part is on, and its `tick` commits the
tutorial's own actions when their turn comes. The first game on a
board whose store holds none is a tutorial; the `tutorial` command starts one on request.
"""

from __future__ import annotations

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.controller.events import Complete, OpenGuided, Select
from kiothi_board.controller.notices import Applied, Notice, Started
from kiothi_board.controller.session import Session
from kiothi_board.controller.settings import Settings
from kiothi_board.guide.tutorial import TUTORIAL_OPENING, Part, Tutorial, tutorial_move
from kiothi_board.rules import Side, parse_opening

__all__ = ["Coach"]

TUTORIAL_LEVEL = LevelChoice(2)
"""The tutorial's opponent when the board names none (Casual)."""


class Coach:
    """Which tutorial part is on, and the tutorial's own actions when their turn comes."""

    def __init__(self, session: Session, level: LevelChoice = TUTORIAL_LEVEL) -> None:
        """Coach games of `session`; tutorials play the AI at `level`."""
        self.session = session
        self.level = level
        self.tutorial: Tutorial | None = None
        self._game: int | None = None  # the tutorial game's store id

    def start(self) -> int:
        """Start a tutorial game: South (you) against the AI, step pace, standard rules."""
        gid = self.session.begin(Settings("ai", (Side.S,), self.level, "step"), tutorial=True)
        self._game = gid
        self.tutorial = Tutorial()
        return gid

    def resume(self) -> None:
        """A resumed tutorial game (a restart, a power cut) goes on as the tutorial, at the
        part its actions have reached: the lessons are not lost with the process."""
        s, game = self.session, self.session.game
        if game is None or not s.tutorial_game or game.stage == "over":
            return
        part = _part(game.movers.count(Side.S), game.stage == "sow" and game.mover is Side.S)
        if part is not None:
            self._game = s.game_id
            self.tutorial = Tutorial(part)

    @property
    def active(self) -> Tutorial | None:
        """The tutorial part with a lesson still to tell, if any."""
        t = self.tutorial
        return t if t is not None and t.active else None

    def observe(self, notices: list[Notice]) -> None:
        """Follow the game through a step's notices, in order."""
        for notice in notices:
            self.on_notice(notice)

    def on_notice(self, notice: Notice) -> None:
        """Follow the game: which part the player is in."""
        t = self.tutorial
        match notice:
            case Started(game_id):
                if game_id != self._game:
                    self.tutorial = None  # any other new game ends the tutorial
            case Applied(Complete(), old, _) if t is not None:
                opened = t.part == "opening" and old.stage == "guided_open"
                moved = t.part == "move" and old.stage == "sow" and old.mover is Side.S
                if opened or moved:
                    self.tutorial = t.next()
            case Applied(Select(), old, _) if t is not None and t.part == "play-on":
                if old.mover is Side.S:  # the player's own next move: the lessons are over
                    self.tutorial = t.next()

    def tick(self) -> None:
        """Commit the tutorial's opening and first move when South's turn comes."""
        t, game = self.active, self.session.game
        if t is None or game is None or game.mover is not Side.S or game.step is not None:
            return
        if t.part == "opening" and game.stage == "open" and game.lifted is None and not game.lifts:
            self.session.commit(OpenGuided(parse_opening(TUTORIAL_OPENING)))
        elif t.part == "their-opening" and game.stage == "turn":
            self.tutorial = t.next()
            self.session.select(tutorial_move(game.position), lifted=False)


def _part(south_actions: int, south_sowing: bool) -> Part | None:
    """The tutorial's part after South's `south_actions` finished actions (its opening, its
    first move), `south_sowing` while South's next move is being sown."""
    if south_actions == 0:
        return "opening"
    if south_actions == 1:
        return "move" if south_sowing else "their-opening"
    if south_actions == 2 and not south_sowing:
        return "play-on"
    return None  # the player's own moves have begun: the lessons are over
