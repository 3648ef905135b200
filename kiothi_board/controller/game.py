"""The controller's game state and its reducer: `apply(game, event) -> game`.

Every change to a game is a typed event (`kiothi_board.controller.events`). The session
stores an event, then applies it; resuming replays the stored events through the same
`apply`, so a resumed game is at exactly the same guide step. `apply` is pure and raises
IllegalMoveError for an event that does not fit the state, before anything is stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from kiothi_board.controller.events import (
    Abandon,
    Advance,
    Agree,
    Complete,
    GameEvent,
    OpenEnd,
    OpenGuided,
    OpenLift,
    OpenPlace,
    Resign,
    Select,
    Undo,
    Walk,
)
from kiothi_board.controller.settings import DEFAULT_LONG_MOVE_LAPS, Mode, Pace, Settings
from kiothi_board.errors import IllegalMoveError
from kiothi_board.guide.steps import GuideStep, opening_steps, set_steps, sow_steps
from kiothi_board.i18n import Msg, tr
from kiothi_board.rules import (
    END_BY_PLAYERS,
    GameRecord,
    Lift,
    OpeningAction,
    Outcome,
    Position,
    Side,
    SowTrace,
    parse_opening,
    parse_pit,
    pit_name,
)

__all__ = [
    "DEFAULT_LONG_MOVE_LAPS",
    "Game",
    "Mode",
    "Pace",
    "Settings",
    "Stage",
    "apply",
    "expected_board",
    "new_game",
]

Stage = Literal["open", "turn", "sow", "guided_open", "set", "over"]
_PITS = 20


@dataclass(frozen=True, slots=True)
class Game:
    """One game: the position, what was played, and the guided sequence in progress."""

    settings: Settings
    position: Position
    # Who played each action. Earlier positions are not kept: each carries its repetition
    # history (R11), so keeping them all grows quadratically; undo replays instead.
    movers: tuple[Side, ...] = ()
    actions: tuple[str, ...] = ()  # the actions played, in text notation
    stage: Stage = "open"
    steps: tuple[GuideStep, ...] = ()
    index: int = 0
    trace: SowTrace | None = None
    after: Position | None = None  # the position the move in progress leads to
    pending: str | None = None  # the action being guided, in text notation
    target: Position | None = None  # where a correction (undo) leads
    undo_back: int = 0  # actions the correction takes back (0: only the one in progress)
    # A human's opening action being built press by press (R3).
    lifts: tuple[Lift, ...] = ()
    lifted: int | None = None
    placing: tuple[int, ...] = ()
    # The physical board during a human's opening, and as left by a resignation or an
    # abandoned game (R13: no seeds move, even in the middle of a move).
    board: tuple[int, ...] | None = None

    @property
    def result(self) -> Outcome | None:
        """How the game ended (R10–R13), once it is over."""
        return self.position.result

    @property
    def ended(self) -> str | None:
        """ "resign", "agreement" or "abandoned" when the players ended it (R13), else None."""
        result = self.position.result
        return result.end if result is not None and result.end in END_BY_PLAYERS else None

    @property
    def lift_limit(self) -> int:
        """Lifts in one opening action: 2 under V1, else 1 (R3)."""
        return 2 if self.settings.variant.V1 else 1

    @property
    def lifted_seeds(self) -> int:
        """The seeds the lifted pit held when lifted (the board before this lift)."""
        assert self.lifted is not None
        before = list(self.position.board)
        for lift in self.lifts:
            before[lift.pit] = 0
            for p in lift.place:
                before[p] += 1
        return before[self.lifted]

    @property
    def hand(self) -> int:
        """Seeds still in the hand during a human's opening lift (0 when none is lifted)."""
        return 0 if self.lifted is None else self.lifted_seeds - len(self.placing)

    @property
    def step(self) -> GuideStep | None:
        """The guided step in progress, if any."""
        if self.stage in ("sow", "guided_open", "set") and self.steps:
            return self.steps[min(self.index, len(self.steps) - 1)]
        return None

    @property
    def mover(self) -> Side:
        """The side whose action is being played or awaited."""
        return self.position.to_move

    def record(self) -> GameRecord:
        """The game's record with its result (R10–R13) once over; replay checks it."""
        result = self.position.result
        # Built directly (no replay): the actions were checked by the rules as they were played.
        k = 0 if self.settings.variant.V2 else min(2, len(self.actions))
        opening = tuple(parse_opening(a) for a in self.actions[:k])
        moves = tuple(parse_pit(a) for a in self.actions[k:])
        return GameRecord(self.settings.variant, opening, moves, result)


def new_game(settings: Settings) -> Game:
    """A game at its initial position."""
    pos = Position.initial(settings.variant)
    return Game(settings, pos, stage=_stage_of(pos))


def _stage_of(pos: Position) -> Stage:
    return "over" if pos.over else "open" if pos.phase == "opening" else "turn"


def expected_board(game: Game) -> tuple[int, ...]:
    """The counts the physical board should hold right now (after an ending: as left)."""
    step = game.step
    if step is not None:
        return step.board
    if game.stage in ("open", "over") and game.board is not None:
        return game.board
    return game.position.board


def _after_action(game: Game, pos: Position, text: str) -> Game:
    return replace(
        game,
        position=pos,
        movers=(*game.movers, game.position.to_move),
        actions=(*game.actions, text),
        stage=_stage_of(pos),
        steps=(),
        index=0,
        trace=None,
        after=None,
        pending=None,
        target=None,
        lifts=(),
        lifted=None,
        placing=(),
        board=None,
    )


_WHEN: dict[str, Msg] = {
    "open": tr("not possible during the opening"),
    "turn": tr("not possible while a move is being chosen"),
    "sow": tr("not possible while a move is being sown"),
    "guided_open": tr("not possible while an opening is being placed"),
    "set": tr("not possible while the board is being set"),
    "over": tr("not possible now: the game is over"),
}


def _need(game: Game, *stages: Stage) -> None:
    if game.stage not in stages:
        raise IllegalMoveError(_WHEN[game.stage])


def apply(game: Game, event: GameEvent) -> Game:
    """The game after one event; raises IllegalMoveError if the event does not fit."""
    match event:
        case Select(pit, lifted, walk):
            return _select(game, pit, lifted=lifted, walk=walk)
        case Walk():
            if game.stage != "set" or game.trace is None or game.target is not None:
                raise IllegalMoveError(
                    tr(
                        "Nothing to walk: only a long move, shown as its result, can be "
                        "walked drop by drop."
                    )
                )
            # Walking starts from the board as it was before the move; set pits reset by hand.
            return replace(game, stage="sow", steps=sow_steps(game.trace), index=0)
        case Advance():
            _need(game, "sow", "guided_open", "set")
            if game.index >= len(game.steps) - 1:
                raise IllegalMoveError(tr("the guided sequence is already done"))
            return replace(game, index=game.index + 1)
        case Complete():
            return _complete(game)
        case OpenGuided(action):
            _need(game, "open")
            if game.lifted is not None or game.lifts:
                raise IllegalMoveError(tr("an opening action is already being placed by hand"))
            game.position.open(action)  # checks legality before anything is guided
            steps = opening_steps(game.position.board, action.lifts)
            return replace(game, stage="guided_open", steps=steps, index=0, pending=str(action))
        case OpenLift(pit):
            return _open_lift(game, pit)
        case OpenPlace(pit):
            return _open_place(game, pit)
        case OpenEnd():
            _need(game, "open")
            if game.lifted is not None:
                raise IllegalMoveError(tr("seeds are still in the hand"))
            return _finish_opening(game)
        case Undo(own_turn):
            return _undo(game, own_turn=own_turn)
        case Resign(side):
            return _end(game, lambda pos: pos.resign(side), seeds_stay=True)
        case Agree():
            return _end(game, Position.end_by_agreement, seeds_stay=False)
        case Abandon():
            return _end(game, Position.abandon, seeds_stay=True)
    raise IllegalMoveError(f"{event!r} does not apply to a game (a revert replays the store)")


def _select(game: Game, pit: int, *, lifted: bool, walk: bool) -> Game:
    _need(game, "turn")
    pos = game.position
    if pit not in pos.legal_moves():
        raise IllegalMoveError(tr("{pit} is not a legal move now", pit=pit_name(pit)))
    after, trace = pos.play_traced(pit)
    if len(trace.laps) > game.settings.long_move_laps and not walk:
        # A very long move: show the result and set the board pit by pit instead.
        steps = set_steps(pos.board, trace.board_after)
        stage: Stage = "set"
        start = 0
    else:
        steps = sow_steps(trace)
        stage = "sow"
        start = 1 if lifted else 0
    return replace(
        game, stage=stage, steps=steps, index=start, trace=trace, after=after, pending=pit_name(pit)
    )


def _open_lift(game: Game, pit: int) -> Game:
    _need(game, "open")
    board = game.board if game.board is not None else game.position.board
    if game.lifted is not None:
        raise IllegalMoveError(tr("a pit is already lifted"))
    if len(game.lifts) >= game.lift_limit:
        raise IllegalMoveError(tr("no more lifts allowed in this opening action"))
    if not (pit in game.mover.pits and board[pit]):
        raise IllegalMoveError(tr("{pit} cannot be lifted now (R3)", pit=pit_name(pit)))
    b = list(board)
    b[pit] = 0
    return replace(game, lifted=pit, placing=(), board=tuple(b))


def _open_place(game: Game, pit: int) -> Game:
    _need(game, "open")
    if game.lifted is None or game.board is None:
        raise IllegalMoveError(tr("no pit is lifted"))
    b = list(game.board)
    b[pit] += 1
    placing = (*game.placing, pit)
    g = replace(game, board=tuple(b), placing=placing)
    if len(placing) == game.lifted_seeds:
        g = replace(g, lifts=(*g.lifts, Lift(game.lifted, placing)), lifted=None, placing=())
        if len(g.lifts) == game.lift_limit:
            return _finish_opening(g)
    return g


def _end(game: Game, ending: Callable[[Position], Position], *, seeds_stay: bool) -> Game:
    """R13: an ending the players choose; the position carries the `Outcome`. `board` keeps
    the counts the pits are left with: where the seeds lay (a resignation or an abandoned
    game moves none, even mid-move), or nothing (by agreement each player takes their row)."""
    if game.stage == "over":
        raise IllegalMoveError(tr("the game is already over"))
    left = expected_board(game) if seeds_stay else None
    return replace(
        game, position=ending(game.position), stage="over", steps=(), index=0, board=left
    )


def _finish_opening(game: Game) -> Game:
    action = OpeningAction(game.lifts)
    pos = game.position.open(action)
    return _after_action(game, pos, str(action))


def _complete(game: Game) -> Game:
    _need(game, "sow", "guided_open", "set")
    if game.target is not None:  # an undo's correction is done
        n = len(game.movers)
        back = game.undo_back
        return replace(
            game,
            position=game.target,
            movers=game.movers[: n - back],
            actions=game.actions[: n - back],
            stage=_stage_of(game.target),
            steps=(),
            index=0,
            trace=None,
            pending=None,
            target=None,
            undo_back=0,
        )
    assert game.pending is not None
    if game.stage == "guided_open":
        return _after_action(game, game.position.open(game.pending), game.pending)
    after = game.after if game.after is not None else game.position.play(game.pending)
    return _after_action(game, after, game.pending)


def _undo_depth(game: Game, *, own_turn: bool) -> int:
    """How many played actions an undo takes back (0: only the move in progress)."""
    in_progress = game.stage in ("sow", "guided_open", "set") and game.target is None
    if in_progress and game.pending:
        # The AI's move being guided: back to the human's own turn with `own_turn`, or the
        # AI would replay the same move at once (docs/controls.md).
        ai_move = own_turn and game.settings.humans and game.settings.is_ai(game.mover)
        if not (ai_move and game.movers):
            return 0
    if game.stage == "open" and (game.lifted is not None or game.lifts):
        return 0
    n = len(game.movers)
    back = 1
    # Against the AI, take back to the human's own turn, or the AI would just replay (a web
    # seat's move is taken back alone: both players agreed to it).
    while back < n and _replays(game.settings, game.movers[n - back]):
        back += 1
    return back if n else 0


def _replays(settings: Settings, side: Side) -> bool:
    """Whether `side`'s player would replay a move taken back at once (the AI)."""
    return settings.is_ai(side) and not settings.is_web(side)


def _replay(game: Game, count: int) -> Position:
    """The position after the first `count` actions of the game."""
    pos = Position.initial(game.settings.variant)
    for text in game.actions[:count]:
        pos = pos.apply(text)
    return pos


def _undo(game: Game, *, own_turn: bool = False) -> Game:
    _need(game, "turn", "open", "sow", "guided_open", "set")
    if game.target is not None:
        raise IllegalMoveError(tr("an undo is already being set on the board"))
    back = _undo_depth(game, own_turn=own_turn)
    if back == 0 and not (game.pending or game.lifted is not None or game.lifts):
        raise IllegalMoveError(tr("nothing to undo"))
    target = game.position if back == 0 else _replay(game, len(game.actions) - back)
    steps = set_steps(expected_board(game), target.board)
    return replace(
        game,
        stage="set",
        steps=steps,
        index=0,
        target=target,
        undo_back=back,
        pending=None,
        trace=None,
        lifts=(),
        lifted=None,
        placing=(),
        board=None,
    )
