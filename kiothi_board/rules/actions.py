"""Opening actions (R3, V1) and their text notation: `S7>S1,S1,N3,N3,N4,S2`, `pass`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiothi_board.errors import NotationError
from kiothi_board.rules.board import parse_pit, pit_name


@dataclass(frozen=True, slots=True)
class Lift:
    """Lift all seeds of `pit` and place them one by one into `place`, in order (R3)."""

    pit: int
    place: tuple[int, ...]

    def __str__(self) -> str:
        return f"{pit_name(self.pit)}>{','.join(pit_name(p) for p in self.place)}"

    def to_json(self) -> dict[str, Any]:
        """The lift object of a record."""
        return {"lift": pit_name(self.pit), "place": [pit_name(p) for p in self.place]}

    @classmethod
    def from_json(cls, data: Any) -> Lift:
        """Read a lift object `{"lift": "S7", "place": [...]}`."""
        if not isinstance(data, dict) or set(data) != {"lift", "place"}:
            raise NotationError(
                f"bad opening lift {data!r}: expected an object with keys 'lift' and 'place'"
            )
        place = data["place"]
        if not isinstance(place, list):
            raise NotationError(f"bad opening lift {data!r}: 'place' must be a list of pit names")
        return cls(parse_pit(data["lift"]), tuple(parse_pit(p) for p in place))


@dataclass(frozen=True, slots=True)
class OpeningAction:
    """One player's opening action: no lift (pass), one lift, or under V1 up to two."""

    lifts: tuple[Lift, ...] = ()

    @property
    def is_pass(self) -> bool:
        """True for `pass`."""
        return not self.lifts

    def __str__(self) -> str:
        return ";".join(str(lift) for lift in self.lifts) if self.lifts else "pass"

    def to_json(self) -> Any:
        """The record form: `"pass"`, one lift object, or a list of lift objects."""
        if not self.lifts:
            return "pass"
        if len(self.lifts) == 1:
            return self.lifts[0].to_json()
        return [lift.to_json() for lift in self.lifts]

    @classmethod
    def from_json(cls, data: Any) -> OpeningAction:
        """Read the record form of an opening action."""
        if data == "pass":
            return PASS
        if isinstance(data, dict):
            return cls((Lift.from_json(data),))
        if isinstance(data, list):
            return cls(tuple(Lift.from_json(item) for item in data))
        raise NotationError(
            f'bad opening action {data!r}: expected "pass", a lift object or a list of them'
        )


PASS = OpeningAction()


def parse_opening(text: str) -> OpeningAction:
    """Parse `pass`, `S7>S1,S1,N3` or (V1) two lifts joined by `;`."""
    if not isinstance(text, str):
        raise NotationError(f"opening action must be text, got {text!r}")
    stripped = text.strip()
    if stripped == "pass":
        return PASS
    lifts = []
    for part in stripped.split(";"):
        head, sep, tail = part.partition(">")
        if not sep:
            raise NotationError(
                f"bad opening action {text!r}: expected 'pass' or PIT>PIT,PIT,… such as S7>S1,N3"
            )
        try:
            pit = parse_pit(head.strip())
            place = tuple(parse_pit(p.strip()) for p in tail.split(",")) if tail.strip() else ()
        except NotationError as exc:
            raise NotationError(f"bad opening action {text!r}: {exc}") from None
        lifts.append(Lift(pit, place))
    return OpeningAction(tuple(lifts))


def format_opening(action: OpeningAction) -> str:
    """The text notation of an opening action."""
    return str(action)
