"""Notation: opening text, positions' JSON/text/repr forms, errors that quote the input."""

from __future__ import annotations

import pytest

from kiothi_board.errors import KiothiError, NotationError, RulesError
from kiothi_board.rules import (
    PASS,
    Lift,
    OpeningAction,
    Position,
    Side,
    Variant,
    format_opening,
    parse_opening,
    parse_pit,
)
from kiothi_board.rules.position import Result  # noqa: F401 - names for eval(repr(...))


def test_opening_text_round_trip() -> None:
    text = "S7>S1,S1,N3,N3,N4,S2"
    action = parse_opening(text)
    assert action == OpeningAction((Lift(6, (0, 0, 12, 12, 13, 1)),))
    assert format_opening(action) == text
    assert parse_opening("pass") is PASS and str(PASS) == "pass"
    two = "S7>S1,S1,N3,N3,N4,S2;S8>S8,S8,S8,S8,S8,N1"
    assert str(parse_opening(two)) == two


@pytest.mark.parametrize(
    ("text", "quoted"),
    [("S7", "'S7'"), ("S7>S1,X2", "'X2'"), ("Pass", "'Pass'"), ("S7>S1,,S2", "''"), ("", "''")],
)
def test_bad_opening_text(text: str, quoted: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_opening(text)
    assert quoted in str(info.value)
    assert isinstance(info.value, RulesError) and isinstance(info.value, ValueError)
    assert isinstance(info.value, KiothiError)


def test_opening_json_forms() -> None:
    lift = {"lift": "S7", "place": ["S1", "S1", "N3", "N3", "N4", "S2"]}
    one = OpeningAction.from_json(lift)
    assert one.to_json() == lift
    assert OpeningAction.from_json([lift, lift]).to_json() == [lift, lift]
    assert OpeningAction.from_json("pass").to_json() == "pass"
    for bad in ({"lift": "S7"}, {"lift": "S7", "place": "S1"}, 3, "PASS"):
        with pytest.raises(NotationError):
            OpeningAction.from_json(bad)


def test_position_json_round_trip_and_repr() -> None:
    pos = Position.initial(Variant(V3=True, ply_limit=50)).open("pass").open("pass").play("S6")
    assert Position.from_json(pos.to_json(full=True)) == pos
    assert eval(repr(pos)) == pos  # repr reads like a constructor call
    assert repr(pos).startswith("Position(board=(0, 0, 0, 0, 0, 0, 7, 7, 7, 7, 1, 1,")
    short = pos.to_json()
    assert "variant" not in short and "history" not in short
    assert Position.from_json(short).board == pos.board


def test_position_validation() -> None:
    with pytest.raises(NotationError, match="must add up to 60"):
        Position(board=(1,) * 20)
    with pytest.raises(NotationError, match="20 non-negative counts"):
        Position(board=(-1,) + (0,) * 19, captured=(61, 0))
    with pytest.raises(NotationError, match="bad position"):
        Position.from_json({"board": [0] * 20})
    with pytest.raises(NotationError, match="'X'"):
        Side.parse("X")


def test_diagram_shows_both_rows_from_souths_seat() -> None:
    pos = Position.initial().open("S7>S1,S1,N3,N3,N4,S2").open("pass").play("S1")
    text = pos.diagram()
    lines = text.splitlines()
    assert lines[0].split() == [f"N{k}" for k in range(10, 0, -1)]
    assert lines[3].split() == [f"S{k}" for k in range(1, 11)]
    assert lines[2].startswith("S  0 [ 0] ( 2) ( 1)")  # S1 sown and empty; S2, S3 unsown
    assert "N to move" in lines[4]
    assert parse_pit("S1") == 0


def test_moves_accept_names_or_indices() -> None:
    pos = Position.initial(Variant(V2=True))
    assert pos.play("S6") == pos.play(5)
    assert pos.apply("S6") == pos.play(5)
    assert Position.initial().apply("pass").to_move is Side.N
