"""The opponents' turns and the hint: the AI's searches started, polled and stopped for the
session (`AiTurns`, a mixin that `Session` in kiothi_board/controller/session.py inherits;
its tick polls them). What a search chooses is played as any move is, through the
session's `commit` and `select`; a hint comes back as a `HintReady` notice.
"""

from __future__ import annotations

from kiothi_board.controller.events import GameEvent, OpenGuided
from kiothi_board.controller.game import Game, Settings
from kiothi_board.controller.notices import Changed, Failure, HintReady, Notice
from kiothi_board.controller.opponent import Opponent, OpponentFactory, OpponentHandle
from kiothi_board.controller.seat import WebSeat
from kiothi_board.errors import KiothiError
from kiothi_board.rules import OpeningAction, Side

__all__ = ["AiTurns"]


class AiTurns:
    """The session's searches (see the module docstring); `Session` sets these fields and
    makes the game's moves."""

    game: Game | None
    settings: Settings
    factory: OpponentFactory
    opponents: dict[Side, Opponent]
    _thinking: OpponentHandle | None
    _thinking_for: tuple[int, int] | None
    _hint: OpponentHandle | None
    _hint_offered: bool

    def tell(self, notice: Notice) -> None:
        raise NotImplementedError  # the session's

    def commit(self, event: GameEvent) -> None:
        raise NotImplementedError  # the session's

    def select(self, pit: int, *, lifted: bool) -> None:
        raise NotImplementedError  # the session's

    def need_game(self) -> Game:
        raise NotImplementedError  # the session's

    def hint(self, *, offered: bool = False) -> None:
        """Ask the AI (at the game's level) for a move; a `HintReady` notice follows
        (`offered`: the exhibition offers it, nobody asked)."""
        game = self.need_game()
        if game.stage in ("turn", "open"):
            opponent = self.factory(self.settings.level)
            # The real AI advises (its best, in plain words) rather than play its game move
            # (at the visitor level: a rung's search figures); simple opponents just play.
            advise = getattr(opponent, "advise", None)
            start = advise if callable(advise) else opponent.start
            self._hint = start(game.position)
            self._hint_offered = offered

    @property
    def thinking(self) -> bool:
        """Whether an opponent is searching."""
        return self._thinking is not None

    @property
    def hinting(self) -> bool:
        """Whether a hint is being searched."""
        return self._hint is not None

    def _make_opponents(self) -> None:
        self.opponents = self._opponents_for(self.settings)

    def _opponents_for(self, settings: Settings) -> dict[Side, Opponent]:
        return {
            side: WebSeat(side) if settings.is_web(side) else self.factory(settings.level)
            for side in Side
            if settings.is_ai(side)
        }

    def opponent(self, side: Side) -> Opponent | None:
        """Who plays `side` for the board (None: a person at the board)."""
        return self.opponents.get(side)

    def poll_opponent(self) -> None:
        """Take the opponent's move now if it is ready (a seat's just arrived)."""
        self._poll_opponent()

    def _poll_opponent(self) -> None:
        game = self.game
        if (
            game is None
            or game.stage not in ("turn", "open")
            or not self.settings.is_ai(game.mover)
        ):
            self.cancel_thinking()
            return
        if game.lifted is not None:
            return
        key = (id(game.position), game.position.ply)
        if self._thinking is None or self._thinking_for != key:
            self.cancel_thinking()
            self._thinking = self.opponents[game.mover].start(game.position)
            self._thinking_for = key
            self.tell(Changed())
        if not self._thinking.done():
            return
        choice = self._thinking.result()
        self._thinking = None
        self._thinking_for = None
        try:
            if isinstance(choice, OpeningAction):
                self.commit(OpenGuided(choice))
            else:
                self.select(choice, lifted=False)
        except KiothiError as exc:
            self.tell(Failure(f"the AI chose badly: {exc}"))

    def _poll_hint(self) -> None:
        if self._hint is None or not self._hint.done():
            return
        choice = self._hint.result()
        explain = getattr(self._hint, "explanation", None)  # only the real AI's handle says why
        why = explain() if callable(explain) else None
        self._hint = None
        pit = choice if isinstance(choice, int) else (choice.lifts[0].pit if choice.lifts else None)
        if pit is not None:
            self.tell(HintReady(pit, why if isinstance(why, str) else None, self._hint_offered))

    def cancel_thinking(self) -> None:
        """Stop the opponent's search, if any."""
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None
            self._thinking_for = None
