"""Game records (`kiothi-game/1`): parse, format, and replay them position by position."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kiothi_board.errors import IllegalMoveError, NotationError, RecordError
from kiothi_board.rules.actions import OpeningAction, parse_opening
from kiothi_board.rules.board import parse_pit, pit_name
from kiothi_board.rules.outcome import END_BY_PLAYERS, Outcome
from kiothi_board.rules.position import Position, Result
from kiothi_board.rules.variant import STANDARD, Variant

FORMAT = "kiothi-game/1"
_KEYS = {"format", "variant", "opening", "moves", "result"}


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game as RULES.md records it: variant, opening actions, moves and (optionally) result."""

    variant: Variant = STANDARD
    opening: tuple[OpeningAction, ...] = ()
    moves: tuple[int, ...] = ()
    result: Result | None = None

    def actions(self) -> list[str]:
        """Every action in order in text notation (opening actions, then moves)."""
        return [str(a) for a in self.opening] + [pit_name(m) for m in self.moves]

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "variant": self.variant.to_json(),
            "opening": [a.to_json() for a in self.opening],
            "moves": [pit_name(m) for m in self.moves],
        }
        if self.result is not None:
            out["result"] = self.result.to_json()
        return out

    def dumps(self, *, indent: int | None = None) -> str:
        """The record as JSON text (one line unless `indent` is given)."""
        return json.dumps(self.to_json(), indent=indent)

    def replay(self) -> Iterator[tuple[int, str, Position]]:
        """Yield `(index, action text, position)`: index -1 is the initial position.

        A result the players chose (R13: resign, agreement, abandoned) is applied last, as
        one more entry whose text names it (`resign S`, `agreement`, `abandoned`).

        Raises IllegalMoveError naming the action's index and text when one is illegal.
        """
        pos = Position.initial(self.variant)
        yield -1, "", pos
        steps: list[OpeningAction | int] = [*self.opening, *self.moves]
        for i, action in enumerate(steps):
            text = str(action) if isinstance(action, OpeningAction) else pit_name(action)
            try:
                if isinstance(action, OpeningAction):
                    if pos.phase != "opening":
                        raise IllegalMoveError("an opening action after the opening phase")
                    pos = pos.open(action)
                else:
                    if pos.phase == "opening":
                        raise IllegalMoveError("a sowing move during the opening phase")
                    pos = pos.play(action)
            except IllegalMoveError as exc:
                raise IllegalMoveError(f"action {i} ({text}) is illegal: {exc}") from exc
            yield i, text, pos
        result = self.result
        if result is not None and result.end in END_BY_PLAYERS:
            # R13: replay to the position before the ending, then apply the ending.
            try:
                pos = pos.end(result)
            except IllegalMoveError as exc:
                raise IllegalMoveError(f"the ending {result.end!r} cannot apply: {exc}") from exc
            yield len(steps), _ending_text(result), pos

    def final(self) -> Position:
        """The position after every action (raises IllegalMoveError like `replay`)."""
        last = Position.initial(self.variant)
        for _, _, pos in self.replay():
            last = pos
        return last

    @classmethod
    def from_actions(
        cls, variant: Variant, actions: list[str], result: Result | None = None
    ) -> GameRecord:
        """Build a record from action texts as played (opening actions first)."""
        pos = Position.initial(variant)
        opening: list[OpeningAction] = []
        moves: list[int] = []
        for text in actions:
            if pos.phase == "opening":
                act = parse_opening(text)
                opening.append(act)
                pos = pos.open(act)
            else:
                pit = parse_pit(text)
                moves.append(pit)
                pos = pos.play(pit)
        return cls(variant, tuple(opening), tuple(moves), result)


def parse_record(source: str | dict[str, Any]) -> GameRecord:
    """Parse a record from JSON text or a decoded object; malformed input is a RecordError."""
    if isinstance(source, str):
        try:
            data = json.loads(source)
        except json.JSONDecodeError as exc:
            raise RecordError(f"game record is not valid JSON: {exc}") from None
    else:
        data = source
    if not isinstance(data, dict):
        raise RecordError(f"game record must be a JSON object, got {type(data).__name__}")
    unknown = set(data) - _KEYS
    if unknown:
        raise RecordError(f"game record has unknown keys: {', '.join(sorted(unknown))}")
    if data.get("format") != FORMAT:
        raise RecordError(f"game record format is {data.get('format')!r}, expected {FORMAT!r}")
    try:
        variant = Variant.from_json(data.get("variant", {}))
        opening_data = data.get("opening", [])
        if not isinstance(opening_data, list):
            raise NotationError(f"'opening' must be a list, got {opening_data!r}")
        expected = 0 if variant.V2 else 2
        if len(opening_data) > expected:
            raise NotationError(
                f"'opening' holds {len(opening_data)} actions; at most {expected}"
                + (" (V2: no opening phase)" if variant.V2 else " (South's, then North's)")
            )
        opening = tuple(OpeningAction.from_json(a) for a in opening_data)
        moves_data = data.get("moves", [])
        if not isinstance(moves_data, list):
            raise NotationError(f"'moves' must be a list of pit names, got {moves_data!r}")
        if moves_data and len(opening) != expected:
            raise NotationError("'moves' given before both opening actions")
        moves = tuple(parse_pit(m) for m in moves_data)
        result = None if data.get("result") is None else Result.from_json(data["result"])
    except NotationError as exc:
        raise RecordError(f"bad game record: {exc}") from None
    return GameRecord(variant, opening, moves, result)


def format_record(record: GameRecord, *, indent: int | None = None) -> str:
    """The JSON text of a record."""
    return record.dumps(indent=indent)


def _ending_text(result: Outcome) -> str:
    return f"resign {result.by.letter}" if result.by is not None else result.end
