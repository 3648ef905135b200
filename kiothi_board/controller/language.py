"""The board's own language: the one its rings and terminal speak, and the pages that chose none.

A venue enables a few (`[board] languages`, its default `[board] language` first); holding
S9+S10 (or N9+N10) cycles them. The rings say which with a short picture: for
`PICTURE_SECONDS` the first k pits of both rows glow in the winner's colour, k being the
language's place in the venue's list (1 = the default). A new visitor's game in the
exhibition goes back to the default (`Language.reset`).
"""

from __future__ import annotations

from kiothi_board.controller.notices import LanguageChanged
from kiothi_board.guide import Cue, Overlay

__all__ = ["PICTURE_SECONDS", "Language", "LanguageChanged", "picture"]

PICTURE_SECONDS = 2.5


class Language:
    """Which of the venue's languages the board speaks now."""

    def __init__(self, languages: tuple[str, ...] = ("en",)) -> None:
        """The venue's languages, its default first."""
        self.languages = languages or ("en",)
        self.current = self.languages[0]

    @property
    def index(self) -> int:
        """The current language's place in the venue's list."""
        return self.languages.index(self.current)

    def cycle(self) -> LanguageChanged:
        """The next language (after the last: the default again)."""
        self.current = self.languages[(self.index + 1) % len(self.languages)]
        return LanguageChanged(self.current, self.index)

    def choose(self, lang: str) -> LanguageChanged | None:
        """Speak `lang` if the venue enabled it (a change, or None if it was already so)."""
        if lang not in self.languages:
            raise ValueError(f"language {lang!r} is not enabled here: {', '.join(self.languages)}")
        if lang == self.current:
            return None
        self.current = lang
        return LanguageChanged(lang, self.index)

    def reset(self) -> LanguageChanged | None:
        """Back to the venue's default (a new visitor); a change, or None."""
        return self.choose(self.languages[0])


def picture(change: LanguageChanged, now: float) -> list[Overlay]:
    """The rings' short picture of a language change: k pits of each row, k = index + 1."""
    until = now + PICTURE_SECONDS
    k = change.index + 1
    pits = [*range(k), *range(10, 10 + k)]
    return [Overlay(p, Cue.WIN, now, until) for p in pits]
