"""A Babel extractor for the pages' HTML: the words of elements marked for translation.

`<p data-i18n>Some <b>words</b></p>` gives the message `Some <b>words</b>` (the element's
inner HTML, white space collapsed: what kiothi_board/api/web/i18n.js looks up and puts
back); `data-i18n-attr="title aria-label"` gives those attributes' values. Named in
babel.cfg as `kiothi_board.tools.i18n_html:extract`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import IO, Any

__all__ = ["extract", "messages"]

_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


class _Marked(HTMLParser):
    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.starts = [0]
        for m in re.finditer("\n", source):
            self.starts.append(m.end())
        self.stack: list[tuple[str, int | None, int]] = []  # tag, inner start if marked, line
        self.found: list[tuple[int, str]] = []

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs)
        line = self.getpos()[0]
        for name in (given.get("data-i18n-attr") or "").split():
            value = given.get(name)
            if value:
                self.found.append((line, _norm(value)))
        if tag in _VOID:
            return
        start = None
        if "data-i18n" in given:
            start = self._offset() + len(self.get_starttag_text() or "")
        self.stack.append((tag, start, line))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            open_tag, start, line = self.stack.pop()
            if start is not None:
                text = _norm(self.source[start : self._offset()])
                if text:
                    self.found.append((line, text))
            if open_tag == tag:
                return


def messages(source: str) -> list[tuple[int, str]]:
    """(line, message) of every marked element and attribute, in order."""
    parser = _Marked(source)
    parser.feed(source)
    parser.close()
    return sorted(parser.found)


def extract(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extractor interface: (line, funcname, message, comments)."""
    for line, text in messages(fileobj.read().decode("utf-8")):
        yield line, "", text, []
