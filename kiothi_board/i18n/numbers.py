"""Numbers as words, 0 to 60 (every count a pit or a store can hold: 60 seeds in all, R2),
each a catalog entry, so that the board's voice says "four seeds", "mbegu nne", "quatre
graines", "vier Samen" and never reads a digit in another language's words."""

from __future__ import annotations

from kiothi_board.i18n.msg import Msg, trp

__all__ = ["HIGHEST", "number_word"]

# TRANSLATORS: numbers as words, said by the board's voice (a pit's count, a score).
_WORDS: tuple[Msg, ...] = (
    trp("number", "zero"),
    trp("number", "one"),
    trp("number", "two"),
    trp("number", "three"),
    trp("number", "four"),
    trp("number", "five"),
    trp("number", "six"),
    trp("number", "seven"),
    trp("number", "eight"),
    trp("number", "nine"),
    trp("number", "ten"),
    trp("number", "eleven"),
    trp("number", "twelve"),
    trp("number", "thirteen"),
    trp("number", "fourteen"),
    trp("number", "fifteen"),
    trp("number", "sixteen"),
    trp("number", "seventeen"),
    trp("number", "eighteen"),
    trp("number", "nineteen"),
    trp("number", "twenty"),
    trp("number", "twenty-one"),
    trp("number", "twenty-two"),
    trp("number", "twenty-three"),
    trp("number", "twenty-four"),
    trp("number", "twenty-five"),
    trp("number", "twenty-six"),
    trp("number", "twenty-seven"),
    trp("number", "twenty-eight"),
    trp("number", "twenty-nine"),
    trp("number", "thirty"),
    trp("number", "thirty-one"),
    trp("number", "thirty-two"),
    trp("number", "thirty-three"),
    trp("number", "thirty-four"),
    trp("number", "thirty-five"),
    trp("number", "thirty-six"),
    trp("number", "thirty-seven"),
    trp("number", "thirty-eight"),
    trp("number", "thirty-nine"),
    trp("number", "forty"),
    trp("number", "forty-one"),
    trp("number", "forty-two"),
    trp("number", "forty-three"),
    trp("number", "forty-four"),
    trp("number", "forty-five"),
    trp("number", "forty-six"),
    trp("number", "forty-seven"),
    trp("number", "forty-eight"),
    trp("number", "forty-nine"),
    trp("number", "fifty"),
    trp("number", "fifty-one"),
    trp("number", "fifty-two"),
    trp("number", "fifty-three"),
    trp("number", "fifty-four"),
    trp("number", "fifty-five"),
    trp("number", "fifty-six"),
    trp("number", "fifty-seven"),
    trp("number", "fifty-eight"),
    trp("number", "fifty-nine"),
    trp("number", "sixty"),
)

HIGHEST = len(_WORDS) - 1
"""The highest number with a word (above it, the digits: espeak-ng reads them itself)."""


def number_word(n: int) -> Msg | str:
    """`n` as a word to render in any language; the digits beyond `HIGHEST`."""
    return _WORDS[n] if 0 <= n <= HIGHEST else str(n)
