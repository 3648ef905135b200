"""What the game commands do on the session: the handlers the command table names.

The table (kiothi_board/controller/table.py) says which command runs which of these; a
command receives one value (a pit index, a side letter, a flag, the arguments' dict, or
None) and may return a value for the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.controller.events import (
    Abandon,
    Advance,
    Agree,
    Complete,
    OpenEnd,
    OpenGuided,
    OpenLift,
    OpenPlace,
    Resign,
    Undo,
    Walk,
)
from kiothi_board.controller.kinds import Kind
from kiothi_board.controller.notices import Changed
from kiothi_board.controller.seat import Offer, OfferKind, WebSeat, live_offer
from kiothi_board.controller.session import Session
from kiothi_board.controller.settings import DEFAULT_LONG_MOVE_LAPS, Settings
from kiothi_board.errors import BadArgumentError, ConflictError, IllegalMoveError, NotFoundError
from kiothi_board.i18n import tr
from kiothi_board.rules import OpeningAction, Side, Variant, parse_opening, pit_name

__all__ = [
    "OPENING",
    "Commanded",
    "NewGame",
    "agreed",
    "check",
    "drop",
    "ending",
    "game_get",
    "hold",
    "move",
    "opening",
    "pit_reply",
    "resign",
    "start",
    "tap",
    "web_play",
]


class Commanded(Protocol):
    """What a handler may use of the controller."""

    session: Session

    def start_tutorial(self) -> int: ...

    def choose_language(self, lang: str | None) -> str: ...

    def get_settings(self) -> dict[str, Any]: ...

    def apply_settings(self, values: dict[str, Any]) -> dict[str, Any]: ...

    def list_games(self, limit: int, offset: int) -> list[dict[str, Any]]: ...

    def get_game(self, game_id: int) -> dict[str, Any] | None: ...


def game_get(ctl: Commanded, gid: int) -> dict[str, Any]:
    """`games.get`: the stored game, or NotFoundError."""
    game = ctl.get_game(gid)
    if game is None:
        raise NotFoundError(f"no game {gid}")
    return game


def pit_reply(result: Any, args: Any) -> dict[str, Any]:
    """The reply of a command on a pit: the pit's name."""
    return {"pit": pit_name(args["pit"])}


@dataclass(frozen=True, slots=True)
class NewGame:
    """The arguments of `new_game` (see `Controller.new_game`)."""

    mode: str = "two"
    sides: str = "S"
    level: LevelChoice | int | str = 3  # parsed by `settings()`: 1…9, a name or "adaptive"
    pace: str = "step"
    variant: Variant | dict[str, Any] | str | None = None
    long_move_laps: int = DEFAULT_LONG_MOVE_LAPS
    web: str = ""  # the sides a seat on the web plays ("N"): nobody at the board plays them

    def settings(self) -> Settings:
        """Checked settings; a BadArgumentError names a bad value."""
        if self.mode not in ("two", "ai", "demo"):
            raise BadArgumentError(f"bad mode {self.mode!r}: expected 'two', 'ai' or 'demo'")
        if self.pace not in ("step", "flow", "instant"):
            raise BadArgumentError(f"bad pace {self.pace!r}: expected 'step', 'flow' or 'instant'")
        if isinstance(self.variant, str):
            var = Variant.parse(self.variant)
        elif isinstance(self.variant, dict):
            var = Variant.from_json(self.variant)
        else:
            var = self.variant or Variant()
        humans: tuple[Side, ...]
        if self.mode == "two":
            humans = (Side.S, Side.N)
        elif self.mode == "ai":
            humans = tuple(Side.parse(s) for s in self.sides if s.strip()) or (Side.S,)
        else:
            humans = ()
        web = tuple(Side.parse(x) for x in self.web if x.strip())
        humans = tuple(h for h in humans if h not in web)
        try:
            level = LevelChoice.parse(self.level)
        except ValueError as exc:
            raise BadArgumentError(str(exc)) from None
        return Settings(
            self.mode,  # type: ignore[arg-type]
            humans,
            level,
            self.pace,  # type: ignore[arg-type]
            var,
            self.long_move_laps,
            web,
        )

    @classmethod
    def of(cls, values: dict[str, Any]) -> NewGame:
        """The arguments of a settings dict (the operator settings with a request's)."""
        names = ("mode", "sides", "level", "pace", "variant", "long_move_laps", "web")
        return cls(**{k: values[k] for k in names if k in values})

    @classmethod
    def same_as(cls, s: Settings) -> NewGame:
        """The arguments that start another game like one with settings `s`."""
        sides = "".join(side.letter for side in s.humans) or "S"
        web = "".join(side.letter for side in s.web)
        return cls(s.mode, sides, s.level, s.pace, s.variant, s.long_move_laps, web)


def start(s: Session, defaults: dict[str, Any], args: NewGame | dict[str, Any]) -> int:
    """`new_game`: the arguments given (a request's dict, or a `NewGame`), the missing
    ones from `defaults` (the operator settings); the new game's id."""
    if isinstance(args, dict):
        args = NewGame.of({**defaults, **{k: v for k, v in args.items() if v is not None}})
    return s.begin(args.settings())


@dataclass(frozen=True, slots=True)
class _Opening(Kind):
    """An opening action in text notation; read as its canonical text."""

    def read(self, value: Any) -> str:
        if not isinstance(value, str) or not value or len(value) > 400:
            raise ValueError(value)
        return str(parse_opening(value))

    def want(self) -> str:
        return "an opening action like 'pass' or 'S7>S1,S1,N3,N3,N4,S2' (V1: two joined by ';')"

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "minLength": 1, "maxLength": 400}


OPENING = _Opening()


def ending(s: Session, event: Undo | Agree | Abandon) -> None:
    s.need_game()
    s.cancel_thinking()
    s.commit(event)


def resign(s: Session, side: Side | str | None) -> None:
    game = s.need_game()
    # Side.S is 0: `side or game.mover` would make South's resignation the mover's.
    who = Side.parse(side) if isinstance(side, str) else game.mover if side is None else side
    s.cancel_thinking()
    s.commit(Resign(who))


def move(s: Session, pit: int) -> None:
    game = s.need_game()
    if s.settings.is_web(game.mover):
        web_play(s, pit)
        return
    if game.stage != "turn" or s.settings.is_ai(game.mover):
        raise ConflictError(tr("no human move is awaited now"))
    s.select(pit, lifted=False)


def opening(s: Session, action: OpeningAction | str) -> None:
    game = s.need_game()
    parsed = action if isinstance(action, OpeningAction) else parse_opening(action)
    if s.settings.is_web(game.mover):
        web_play(s, parsed)
        return
    if game.stage != "open" or s.settings.is_ai(game.mover):
        raise ConflictError(tr("no human opening action is awaited now"))
    s.commit(OpenGuided(parsed))


def web_play(s: Session, choice: int | OpeningAction) -> None:
    """The web seat's move (a pit) or opening action: checked now (an illegal one is
    refused to the seat, nothing kept), then taken as the AI's is, so the board guides the
    hand at the board through it."""
    game = s.need_game()
    seat = s.opponent(game.mover)
    if not isinstance(seat, WebSeat) or game.stage not in ("turn", "open") or game.lifted:
        raise ConflictError(tr("It is not the web player's turn."))
    if isinstance(choice, OpeningAction):
        if game.stage != "open":
            raise ConflictError(tr("The opening is over: play a move."))
        game.position.open(choice)  # raises IllegalMoveError, as the guided opening would
    elif game.stage != "turn" or choice not in game.position.legal_moves():
        raise IllegalMoveError(tr("{pit} is not a legal move now", pit=pit_name(choice)))
    seat.play(game.position, choice)
    s.poll_opponent()


def agreed(s: Session, kind: OfferKind, side: Side | str | None) -> None:
    """`end` or `undo`. With a seat on the web both players must want it: the first asks
    (an `Offer`), the other's same command accepts; at one board it is done at once.
    `side`: who asks (a seat's own; None: the player at the board)."""
    game = s.need_game()
    event = Agree() if kind == "end" else Undo(own_turn=not s.settings.web)
    if not s.settings.web:
        ending(s, event)
        return
    local = s.settings.humans[0] if s.settings.humans else game.mover
    who = Side.parse(side) if isinstance(side, str) else local if side is None else side
    offer = live_offer(s.offer, s.seq)
    if offer is not None and offer.kind == kind and offer.side is not who:
        s.offer = None
        ending(s, event)
        return
    s.offer = Offer(kind, who, s.seq)
    s.tell(Changed())


def check(s: Session, on: bool | None) -> bool:
    """Enter (or leave, or toggle with None) board check; whether it is on."""
    want = s.check is None if on is None else on
    s.check = frozenset() if want else None
    s.tell(Changed())
    return want


def tap(s: Session, pit: int) -> None:
    """A press on a pit: what it means depends on the stage (see docs/controls.md)."""
    s.mark(pit)
    game = s.game
    if game is None or game.stage == "over":
        return
    if s.check is not None:
        # Board check: a first press marks a pit wrong (it blinks), a second clears it.
        _check_mark(s, pit)
        return
    ai_turn = s.settings.is_ai(game.mover)
    if game.stage == "turn":
        if ai_turn:
            s.wrong(pit)
            return
        try:
            s.select(pit, lifted=True)  # the rules check the move, once
        except IllegalMoveError:
            s.wrong(pit, endless=pit in game.position.endless_moves())
    elif game.stage == "open":
        if ai_turn:
            s.wrong(pit)
        elif game.lifted is None:
            board = game.board if game.board is not None else game.position.board
            if pit in game.mover.pits and board[pit]:
                s.commit(OpenLift(pit))
            else:
                s.wrong(pit)
        else:
            s.commit(OpenPlace(pit))
    elif game.stage == "set" and not s.settings.auto:
        # Setting the board: a tap ticks a changing pit off (again: unticks); a hold confirms.
        changed = {p for p in range(20) if game.steps[0].board[p] != game.steps[-1].board[p]}
        if pit in changed:
            s.ticks = s.ticks ^ {pit}
            s.tell(Changed())
    else:
        step = game.step
        assert step is not None
        if s.auto(step.kind):
            s.set_pause(None)  # flow: the animation leads; a press pauses and resumes
        elif pit == step.pit:
            s.commit(Advance())
        else:
            s.wrong(pit)


def _check_mark(s: Session, pit: int) -> None:
    assert s.check is not None
    s.check = s.check ^ {pit}
    s.tell(Changed())


def hold(s: Session, pit: int) -> None:
    """A long press: a new game when idle or over, else pass, walk or hint by stage."""
    game = s.game
    if game is None or game.stage == "over":
        first = game is None and s.game_id is None and not s.store.list_games(1)
        s.run("tutorial" if first and "tutorial" in s.commands else "new")
    elif s.check is not None:
        return
    elif game.stage == "set" and not s.settings.auto:
        if game.target is None and game.trace is not None and pit == game.trace.pit:
            s.commit(Walk())  # a long move: holding the pit it was played from walks it
        else:
            s.commit(Complete())  # one gesture confirms the whole board
    elif game.stage == "open" and not s.settings.is_ai(game.mover):
        s.commit(OpenEnd())  # R3: pass (or, under V1, one lift only)
    elif game.stage == "set" and game.target is None:
        s.commit(Walk())
    elif game.stage in ("turn", "open"):
        s.hint()


def drop(s: Session, pit: int) -> None:
    """A seed sensed landing in `pit` (boards with drop sensors)."""
    game = s.game
    step = None if game is None else game.step
    if game is None or step is None or s.check is not None:
        return
    if step.kind == "drop" and pit == step.pit:
        s.commit(Advance())
    elif step.kind == "relay":
        # A sensor cannot feel a lift: a seed landing on the next drop implies it (R5).
        nxt = game.steps[game.index + 1]
        if nxt.kind == "drop" and nxt.pit == pit:
            s.commit(Advance())
            s.commit(Advance())
    else:
        s.wrong(pit)
