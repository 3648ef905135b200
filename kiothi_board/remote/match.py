"""One remote match as each board holds it: the log of actions and the checker.

A board applies an action only when the sender (the broker user that wrote it) plays the
action's side, its sequence number is the next one, it is legal and the hash of the position
after it is the one it names. A duplicate is ignored, a gap is asked for again, and anything
else from the rightful sender (an illegal action, another hash, another action at a used
number) is a desync: the match stops, never resolved silently (docs/remote.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kiothi_board.errors import IllegalMoveError, KiothiError
from kiothi_board.remote.actions import PLAYS, Action, BadActionError, Kind, position_hash
from kiothi_board.rules import STANDARD, Position, Side, Variant, parse_opening, parse_pit

__all__ = [
    "Checked",
    "Desync",
    "Duplicate",
    "Gap",
    "Match",
    "MatchSpec",
    "Refused",
    "Verdict",
]

CLAIMS = ("win", "draw")


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """What both boards agreed on: the id, the board playing each side, the rules and an
    optional time per move (seconds)."""

    match: str
    south: str
    north: str
    variant: Variant = STANDARD
    move_seconds: int | None = None

    def board(self, side: Side) -> str:
        """The board id playing `side`."""
        return self.south if side is Side.S else self.north

    def side_of(self, board: str) -> Side | None:
        """The side `board` plays, or None."""
        return Side.S if board == self.south else Side.N if board == self.north else None

    def to_json(self) -> dict[str, Any]:
        """The spec on the bus and in the match's file."""
        return {
            "match": self.match,
            "S": self.south,
            "N": self.north,
            "variant": self.variant.to_json(),
            "move_seconds": self.move_seconds,
        }

    @classmethod
    def from_json(cls, data: Any) -> MatchSpec:
        """Read a spec; a BadActionError says what is wrong."""
        try:
            seconds = data.get("move_seconds")
            spec = cls(
                str(data["match"]),
                str(data["S"]),
                str(data["N"]),
                Variant.from_json(data.get("variant", {})),
                None if seconds is None else int(seconds),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadActionError(f"bad match spec: {exc}") from None
        if spec.south == spec.north or not spec.match:
            raise BadActionError("bad match spec: one board on both sides")
        return spec


@dataclass(frozen=True, slots=True)
class Checked:
    """The action was checked and applied."""

    action: Action


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The action is already in the log (a redelivery or a replayed message): ignored."""

    action: Action


@dataclass(frozen=True, slots=True)
class Gap:
    """Actions before this one are missing: ask again from `have` on."""

    have: int


@dataclass(frozen=True, slots=True)
class Refused:
    """Not from a board of the match (or not for it): ignored, the match goes on."""

    reason: str


@dataclass(frozen=True, slots=True)
class Desync:
    """The boards disagree: the match is stopped."""

    reason: str


Verdict = Checked | Duplicate | Gap | Refused | Desync


@dataclass(frozen=True, slots=True)
class _State:
    position: Position
    actions: tuple[str, ...] = ()  # the game's actions in text notation
    movers: tuple[Side, ...] = ()
    offer: tuple[Side, str] | None = None  # a standing offer: by whom, "agreement"/"takeback"


def _step(state: _State, kind: Kind, side: Side, value: str) -> _State:
    """The state after one action; IllegalMoveError when it does not fit."""
    pos = state.position
    if pos.over:
        raise IllegalMoveError("the match is over")
    if kind in PLAYS:
        if pos.to_move is not side:
            raise IllegalMoveError(f"not {side.letter}'s turn")
        if (kind == "opening") != (pos.phase == "opening"):
            raise IllegalMoveError(f"no {kind} now (phase {pos.phase})")
        after = pos.open(parse_opening(value)) if kind == "opening" else _play(pos, value)
        return _State(after, (*state.actions, value), (*state.movers, side), None)
    if kind == "resign":
        return replace(state, position=pos.resign(side), offer=None)
    if kind in ("offer", "takeback"):
        if state.offer is not None:
            raise IllegalMoveError("an offer is already standing")
        if kind == "takeback" and side not in state.movers:
            raise IllegalMoveError("nothing of yours to take back")
        return replace(state, offer=(side, "agreement" if kind == "offer" else "takeback"))
    if kind == "accept":
        _need_offer(state, side, "agreement")
        return replace(state, position=pos.end_by_agreement(), offer=None)
    if kind == "takeback_accept":
        _need_offer(state, side, "takeback")
        return _taken_back(state, side.other)
    if value not in CLAIMS:
        raise IllegalMoveError(f"bad claim {value!r}: expected win or draw")
    return replace(state, position=pos.resign(side.other) if value == "win" else pos.abandon())


def _play(pos: Position, value: str) -> Position:
    pit = parse_pit(value)
    if pit not in pos.legal_moves():
        raise IllegalMoveError(f"{value} is not a legal move")
    return pos.play(pit)


def _need_offer(state: _State, side: Side, what: str) -> None:
    if state.offer != (side.other, what):
        raise IllegalMoveError(f"no {what} offer of the other side to accept")


def _taken_back(state: _State, by: Side) -> _State:
    """Back to before `by`'s last action (so `by` is to move again)."""
    keep = max(i for i, s in enumerate(state.movers) if s is by)
    pos = Position.initial(state.position.variant)
    for text in state.actions[:keep]:
        pos = pos.apply(text)
    return _State(pos, state.actions[:keep], state.movers[:keep], None)


@dataclass
class Match:
    """The match as one board holds it (`local`: the side this board plays). Not
    thread-safe: its owner serialises calls."""

    spec: MatchSpec
    local: Side
    log: list[Action] = field(default_factory=list)
    stopped: str | None = None
    _state: _State = field(init=False)

    def __post_init__(self) -> None:
        self._state = _State(Position.initial(self.spec.variant))

    @property
    def position(self) -> Position:
        """The position after the log."""
        return self._state.position

    @property
    def actions(self) -> tuple[str, ...]:
        """The game's actions (opening actions, moves) in text notation."""
        return self._state.actions

    @property
    def offer(self) -> tuple[Side, str] | None:
        """The standing offer, if any: by whom, and of what."""
        return self._state.offer

    @property
    def over(self) -> bool:
        """Whether the game has ended (or the match stopped)."""
        return self.stopped is not None or self._state.position.over

    def play(self, kind: Kind, value: str = "") -> Action:
        """This board's own action: checked, applied, logged; the action to send.
        IllegalMoveError (a KiothiError) when it does not fit."""
        if self.stopped is not None:
            raise IllegalMoveError(f"the match is stopped: {self.stopped}")
        state = _step(self._state, kind, self.local, value)
        action = Action(
            self.spec.match, len(self.log), kind, self.local, value, position_hash(state.position)
        )
        self._state = state
        self.log.append(action)
        return action

    def receive(self, action: Action, sender: str) -> Verdict:
        """Check an action the broker delivered from broker user `sender` and apply it
        if it is the next one (see the module docstring)."""
        if action.match != self.spec.match:
            return Refused(f"action of match {action.match!r}, not {self.spec.match!r}")
        if self.spec.side_of(sender) is not action.side:
            return Refused(f"{sender!r} does not play {action.side.letter} in this match")
        if self.stopped is not None:
            return Refused(f"the match is stopped: {self.stopped}")
        if action.seq < len(self.log):
            if self.log[action.seq] == action:
                return Duplicate(action)
            return self._stop(f"action {action.seq} differs from the one applied")
        if action.seq > len(self.log):
            return Gap(len(self.log))
        try:
            state = _step(self._state, action.kind, action.side, action.value)
        except KiothiError as exc:
            return self._stop(
                f"action {action.seq} ({action.kind} {action.value}) is illegal: {exc}"
            )
        if position_hash(state.position) != action.hash:
            return self._stop(f"action {action.seq}: the position's hash differs")
        self._state = state
        self.log.append(action)
        return Checked(action)

    def stop(self, reason: str) -> None:
        """Stop the match (the other board said it is out of step)."""
        if self.stopped is None:
            self.stopped = reason

    def _stop(self, reason: str) -> Desync:
        self.stop(reason)
        return Desync(reason)
