"""`LevelChoice`: a level parsed once where it comes in, and written back the same."""

from __future__ import annotations

import pytest

from kiothi_board.ai.levels import ADAPTIVE, MAX_LEVEL, LevelChoice, stored_level


@pytest.mark.parametrize(
    ("given", "number"), [(3, 3), ("3", 3), ("Club", 3), ("master", 9), ("adaptive", None)]
)
def test_a_level_parses_from_a_number_a_name_or_adaptive(given: object, number: int | None) -> None:
    choice = LevelChoice.parse(given)
    assert choice.number == number and choice.adaptive == (number is None)
    assert LevelChoice.parse(choice.to_json()) == choice


@pytest.mark.parametrize("bad", [0, MAX_LEVEL + 1, "11", "hard", True, 2.5, None, [3]])
def test_a_bad_level_is_refused_naming_it(bad: object) -> None:
    with pytest.raises(ValueError, match="bad level") as err:
        LevelChoice.parse(bad)
    assert repr(bad) in str(err.value)


def test_stored_levels_of_the_six_level_ladder_read_as_todays_players() -> None:
    assert stored_level(6) == LevelChoice(9) and stored_level(6, 2) == LevelChoice(6)
    assert stored_level("adaptive") is ADAPTIVE
    assert str(LevelChoice(3)) == "3 (Club)" and str(ADAPTIVE) == "adaptive"
