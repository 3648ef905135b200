"""The playing levels: what each one is, by effort, and in words a player understands."""

from __future__ import annotations

from dataclasses import dataclass

from kiothi_board.ai.eyes import Eyes
from kiothi_board.i18n import tr, trp


@dataclass(frozen=True, slots=True)
class Level:
    """A playing strength, defined by effort so it plays the same on any machine.

    Level 1 plays as a beginner sees the board (`style`, see `human.py`); levels 2–8
    search to `max_depth` plies with at most `nodes` nodes, and `movetime` is only a
    safety cap on the wall clock; level 9 (`nodes` None) uses its `movetime` to the full.
    `lapse` is the chance, per move, that a searching level plays one move with a
    beginner's eyes (`style`) instead: a person's lapse of attention, not a random move;
    1.0 means every move (level 1).
    `beginner_hints`: its hints are explained in one plain sentence, not the search's figures.
    `blurb` tells a player what to expect.
    """

    number: int
    name: str
    movetime: float
    max_depth: int
    nodes: int | None = None
    style: Eyes | None = None
    lapse: float = 0.0
    beginner_hints: bool = False
    blurb: str = ""

    def __str__(self) -> str:
        return f"{self.number} ({self.name})"


BEGINNER_EYES = Eyes(relays_seen=1, sees_chain=False, grab=0.35, looks_ahead=False)
CASUAL_EYES = Eyes(relays_seen=2, sees_chain=True, grab=0.15, looks_ahead=True)

LEVELS: dict[int, Level] = {
    1: Level(
        1,
        "Beginner",
        1.0,
        1,
        style=BEGINNER_EYES,
        lapse=1.0,
        beginner_hints=True,
        blurb=tr(
            "Plays like someone in their first game: goes for the captures it can see, loses "
            "count when a sowing relays more than once, never sees the long chain along "
            "your row, often grabs the first capture it spots, and never thinks about "
            "your reply."
        ),
    ),
    2: Level(
        2,
        "Casual",
        5.0,
        1,
        nodes=20_000,
        beginner_hints=True,
        blurb=tr(
            "Counts every relay of its own moves exactly and takes the biggest capture, "
            "and sees when you could capture straight back; it does not look further."
        ),
    ),
    3: Level(
        3,
        "Club",
        5.0,
        2,
        nodes=20_000,
        style=CASUAL_EYES,
        lapse=0.4,
        beginner_hints=True,
        blurb=tr(
            "Looks at your best reply to each of its moves, but two moves in five it plays "
            "by eye: it loses count after two relays and grabs a capture without checking."
        ),
    ),
    4: Level(
        4,
        "Skilled",
        5.0,
        4,
        nodes=2_000,
        style=CASUAL_EYES,
        lapse=0.2,
        beginner_hints=True,
        blurb=tr(
            "Thinks four moves ahead, but one move in five it plays by eye: it loses count "
            "after two relays and grabs a capture without checking."
        ),
    ),
    5: Level(
        5,
        "Strong",
        5.0,
        6,
        nodes=5_000,
        style=CASUAL_EYES,
        lapse=0.1,
        blurb=tr(
            "Thinks up to six moves ahead and judges the position; one move in ten it still "
            "plays by eye, so a long relay or a chain can catch it out."
        ),
    ),
    6: Level(
        6,
        "Advanced",
        10.0,
        7,
        nodes=12_000,
        style=CASUAL_EYES,
        # One in fifteen (was 0.04, one in 25): Veteran's step over it was 56.8 % on
        # visitors' random openings, below the band (docs/ai.md, "The ladder on two sets").
        lapse=1 / 15,
        blurb=tr(
            "Thinks seven moves ahead, but about one move in fifteen it plays by eye: "
            "a careful player who waits for that slip can beat it."
        ),
    ),
    7: Level(
        7,
        "Veteran",
        10.0,
        7,
        nodes=12_000,
        blurb=tr(
            "Thinks seven moves ahead, as Advanced does, and never plays by eye: no careless "
            "slips, but it does not see as far as the Expert."
        ),
    ),
    8: Level(
        8,
        "Expert",
        10.0,
        9,
        # Depth 9 and 80,000 nodes (was 8 and 40,000): its step over Veteran was 63.0 %
        # on visitors' random openings, below the band.
        nodes=80_000,
        blurb=tr("Thinks nine moves ahead and never plays by eye; beats almost every person."),
    ),
    9: Level(
        9,
        "Master",
        0.8,
        64,
        blurb=tr("Searches as deep as it can in 0.8\u00a0s a move and solves endgames exactly."),
    ),
}
LEVEL_NAMES = {lv.name.lower(): lv for lv in LEVELS.values()}
MAX_LEVEL = max(LEVELS)
LADDER_VERSION = 2
"""The numbering of `LEVELS`: 1 had six levels; 2 put Skilled (4), Advanced (6) and Veteran (7)
between them, so that each level is a step a player can climb (docs/ai.md)."""
FROM_LADDER_1 = {1: 1, 2: 2, 3: 3, 4: 5, 5: 8, 6: 9}
"""Ladder 1's level numbers as today's: the same players, renumbered."""


_ADAPTIVE_WORD = "adaptive"  # the one place that knows the word (the config, the API, the store)


@dataclass(frozen=True, slots=True)
class LevelChoice:
    """What a game plays against: a ladder level (`number` 1…MAX_LEVEL) or, with `number`
    None, the adaptive visitor level that keeps the game close (`ai.adaptive`).

    Parsed once where a level comes in (the config, the API, the store); everything inside
    passes this value, so no part special-cases the word "adaptive"."""

    number: int | None

    def __post_init__(self) -> None:
        if self.number is not None and self.number not in LEVELS:
            raise ValueError(f"bad level {self.number!r}: expected 1…{MAX_LEVEL} or 'adaptive'")

    @classmethod
    def parse(cls, value: object) -> LevelChoice:
        """A level as a config, a request or a stored game gives it: 3, "3", a name
        ("Club") or "adaptive"; ValueError naming the value when it is none of these."""
        if isinstance(value, LevelChoice):
            return value
        if isinstance(value, str) and value.strip().lower() == _ADAPTIVE_WORD:
            return ADAPTIVE
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError(f"bad level {value!r}: expected 1…{MAX_LEVEL} or 'adaptive'")
        try:
            return cls(level(value).number)
        except ValueError:
            raise ValueError(
                f"bad level {value!r}: expected 1…{MAX_LEVEL}, a level's name or 'adaptive'"
            ) from None

    @classmethod
    def read(cls, value: object) -> LevelChoice:
        """A level as a request gives it (JSON): an integer 1…MAX_LEVEL or "adaptive"
        (no names, no digits in a string); ValueError saying what it must be otherwise."""
        if isinstance(value, LevelChoice):
            return value
        if value != _ADAPTIVE_WORD and (not isinstance(value, int) or isinstance(value, bool)):
            raise ValueError(cls.want())
        try:
            return cls.parse(value)
        except ValueError:
            raise ValueError(cls.want()) from None

    @staticmethod
    def want() -> str:
        """What a level must be, in the words of a bad-argument message."""
        return f'an integer from 1 to {MAX_LEVEL} or "{_ADAPTIVE_WORD}"'

    @staticmethod
    def schema() -> dict[str, object]:
        """The JSON schema of a level as requests, replies and the store write it."""
        return {
            "oneOf": [
                {"type": "integer", "minimum": 1, "maximum": MAX_LEVEL},
                {"const": _ADAPTIVE_WORD},
            ]
        }

    @property
    def adaptive(self) -> bool:
        """Whether this is the adaptive visitor level."""
        return self.number is None

    def to_json(self) -> int | str:
        """The level as the API and the store write it: a number, or "adaptive"."""
        return _ADAPTIVE_WORD if self.number is None else self.number

    def __str__(self) -> str:
        return _ADAPTIVE_WORD if self.number is None else str(LEVELS[self.number])


ADAPTIVE = LevelChoice(None)
"""The adaptive visitor level."""


def stored_level(value: object, ladder: object = 1) -> LevelChoice:
    """A level stored under numbering `ladder` (games stored before 2 say none), as today's.

    A game begun at the old level 6 resumes against the same player, now level 9."""
    if value == _ADAPTIVE_WORD:
        return ADAPTIVE
    n = int(str(value))
    return LevelChoice(FROM_LADDER_1.get(n, n) if ladder == 1 else n)


BASELINE_LEVEL = Level(0, "Baseline", 5.0, 4)

ADAPTIVE_ABOUT = tr(
    "Keeps the game close whoever plays: it eases off when it leads and tightens up when "
    "it trails, so a first game is a real game and a good player still has to earn the win."
)
Choice = dict[str, int | str]
_SHOWN_NAMES = {  # the names as a player reads them (the English ones stay the identifiers)
    "Beginner": trp("level", "Beginner"),
    "Casual": trp("level", "Casual"),
    "Club": trp("level", "Club"),
    "Skilled": trp("level", "Skilled"),
    "Strong": trp("level", "Strong"),
    "Advanced": trp("level", "Advanced"),
    "Veteran": trp("level", "Veteran"),
    "Expert": trp("level", "Expert"),
    "Master": trp("level", "Master"),
}
LEVEL_CHOICES: tuple[Choice, ...] = (
    *(
        Choice(level=lv.number, name=_SHOWN_NAMES.get(lv.name, lv.name), about=lv.blurb)
        for lv in LEVELS.values()
    ),
    Choice(level=ADAPTIVE.to_json(), name=trp("level", "Visitor"), about=ADAPTIVE_ABOUT),
)
"""The levels a player can choose, in words (the API's `hello` lists them for the pages)."""


def level(spec: int | str | Level) -> Level:
    """A level by number (1–9), name ("Club") or as given."""
    if isinstance(spec, Level):
        return spec
    if isinstance(spec, int) or spec.isdigit():
        n = int(spec)
        if n not in LEVELS:
            raise ValueError(f"bad level {spec!r}: expected 1…{MAX_LEVEL}")
        return LEVELS[n]
    try:
        return LEVEL_NAMES[spec.lower()]
    except KeyError:
        names = ", ".join(lv.name for lv in LEVELS.values())
        raise ValueError(f"bad level {spec!r}: expected 1…{MAX_LEVEL} or one of {names}") from None
