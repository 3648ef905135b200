"""`Msg`: a message id with named placeholders, English as its value, renderable in any language."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kiothi_board.i18n.catalog import DEFAULT_LANGUAGE, translation

__all__ = ["Joined", "Msg", "has_words", "joined", "localize", "render", "tr", "trn", "trp"]

Arg = object  # a placeholder's value: a number, a pit name, or another Msg (rendered too)


class Msg(str):
    """A user-facing message. As a `str` it is the English text; `render(lang)` translates.

    `msgid` is the catalog's key (English, with `{name}` placeholders), `plural` its plural
    form and `count` the placeholder that chooses between them, `context` the catalog's
    context. Placeholder values that are themselves `Msg` are rendered in the same language.
    `addressed`: the line speaks to the player at the board (marked where it is made:
    `guide.address.to_player`), so a watcher's page says the state instead.
    """

    msgid: str
    plural: str | None
    count_key: str | None
    context: str | None
    args: Mapping[str, Arg]
    addressed: bool = False

    def __new__(
        cls,
        msgid: str,
        args: Mapping[str, Arg] | None = None,
        *,
        plural: str | None = None,
        count: str | None = None,
        context: str | None = None,
        addressed: bool = False,
    ) -> Msg:
        """A message; its `str` value is the English rendering."""
        params = dict(args or {})
        english = _format(_choose(msgid, plural, count, params), params, DEFAULT_LANGUAGE)
        self = super().__new__(cls, english)
        self.msgid, self.plural, self.count_key, self.context = msgid, plural, count, context
        self.args, self.addressed = params, addressed
        return self

    def render(self, lang: str | None) -> str:
        """The message in `lang` (English when `lang` is None, English or has no catalog)."""
        if not lang or lang == DEFAULT_LANGUAGE:
            return str.__str__(self)
        t = translation(lang)
        if self.plural is not None and self.count_key is not None:
            n = int(self.args[self.count_key])  # type: ignore[call-overload]
            if self.context is not None:
                text = t.npgettext(self.context, self.msgid, self.plural, n)
            else:
                text = t.ngettext(self.msgid, self.plural, n)
        elif self.context is not None:
            text = t.pgettext(self.context, self.msgid)
        else:
            text = t.gettext(self.msgid)
        return _format(text, self.args, lang)

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles keep the id and the args
        return (
            _rebuild,
            (
                self.msgid,
                dict(self.args),
                self.plural,
                self.count_key,
                self.context,
                self.addressed,
            ),
        )


class Joined(Msg):
    """Several messages in a row, joined by `sep` (a list of pits and their counts)."""

    parts: tuple[object, ...]
    sep: str

    def __new__(cls, parts: tuple[object, ...], sep: str = ", ") -> Joined:
        self = str.__new__(cls, sep.join(str(p) for p in parts))
        self.msgid, self.plural, self.count_key, self.context, self.args = (
            str(self),
            None,
            None,
            None,
            {},
        )
        self.parts, self.sep = parts, sep
        return self

    def render(self, lang: str | None) -> str:
        """Each part in `lang`, joined."""
        return self.sep.join(str(render(p, lang)) for p in self.parts)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Joined, (self.parts, self.sep))


def joined(parts: Sequence[object], sep: str = ", ") -> Joined:
    """`parts` (messages or plain values) in a row, each rendered in the reader's language."""
    return Joined(tuple(parts), sep)


def _rebuild(
    msgid: str,
    args: dict[str, Arg],
    plural: str | None,
    count: str | None,
    context: str | None,
    addressed: bool = False,
) -> Msg:
    return Msg(msgid, args, plural=plural, count=count, context=context, addressed=addressed)


def _choose(msgid: str, plural: str | None, count: str | None, args: Mapping[str, Arg]) -> str:
    if plural is None or count is None:
        return msgid
    return msgid if int(args[count]) == 1 else plural  # type: ignore[call-overload]


def _format(text: str, args: Mapping[str, Arg], lang: str) -> str:
    if not args:
        return text
    values = {k: render(v, lang) for k, v in args.items()}
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):  # a broken translation must not stop the board
        return text


def render(value: object, lang: str | None) -> object:
    """`value` in `lang` if it is a `Msg`, else `value` itself."""
    return value.render(lang) if isinstance(value, Msg) else value


def localize(value: Any, lang: str | None) -> Any:
    """A JSON-able value with every `Msg` inside it rendered in `lang` (dicts and lists walked)."""
    if isinstance(value, Msg):
        return value.render(lang)
    if isinstance(value, dict):
        return {k: localize(v, lang) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [localize(v, lang) for v in value]
    return value


def has_words(value: Any) -> bool:
    """Whether a JSON-able value holds a `Msg` anywhere."""
    if isinstance(value, Msg):
        return True
    if isinstance(value, dict):
        return any(has_words(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(has_words(v) for v in value)
    return False


def tr(msgid: str, /, **args: Arg) -> Msg:
    """A message: `tr("{pit} is empty.", pit="S3")`."""
    return Msg(msgid, args)


def trn(singular: str, plural: str, n: int, /, **args: Arg) -> Msg:
    """A message with plural forms chosen by `n` (the placeholder `{n}`)."""
    return Msg(singular, {"n": n, **args}, plural=plural, count="n")


def trp(context: str, msgid: str, /, **args: Arg) -> Msg:
    """A message with a context: `trp("side", "South")`."""
    return Msg(msgid, args, context=context)
