"""The command table is the one list of command names (issue 33): no other literal list,
tuple, set or map of the package — Python or the pages' JavaScript — names two commands.

What counts: the strings written directly as the elements (or the keys, or the string values)
of one literal collection. Two or more of them command names is a second list (a door's
table, a page's buttons, a map of keys, a set of roles); one is a use (`request("state")`).
A collection whose strings are all event topics is a list of events, not of commands (several
topics share a command's name: `move`, `hint`, `new_game`, `frame`, `health`). Calls inside a
collection are uses, not elements (`Promise.all([request("state"), …])`).
The word "adaptive" is known in one place too: `LevelChoice` (`ai/levels.py`).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from kiothi_board.api.exhibit_doors import EXHIBIT_COMMANDS
from kiothi_board.controller.replies import TOPICS
from kiothi_board.controller.table import TABLE

PACKAGE = Path(__file__).resolve().parents[1] / "kiothi_board"
THE_TABLE = {"controller/table.py", "api/exhibit_doors.py"}
"""Where commands are entries (the specs themselves, not a list of names)."""
NOT_COMMANDS = {
    ("fleet/hub.py", ("state", "health", "stats")): "the board's retained MQTT topics, "
    "named after what they carry (`status`, `info` beside them)",
    ("controller/seat.py", ("end", "undo")): "the kinds of an offer (`OfferKind`), a type: "
    "the value an `end` or `undo` spec's handler passes, named after that command",
}
"""Lists that name commands' words but are not lists of commands, each with why."""


@functools.cache
def names() -> frozenset[str]:
    """The commands' names: the table's served by a door or a key, the exhibition's, and any
    `CommandSpec("…")` written anywhere in the package (the fake-time `sim.*` ones are made
    inside a function). The board's own gestures (`tap`, `hold`, `drop`, `revert`,
    `release`, `abandon`, `language`) are left out: their names are the game's own words
    (a guide step's `drop`, an event's `abandon`), which no door, key or page lists."""
    found = {s.name for s in TABLE if s.door or s.key} | {s.name for s in EXHIBIT_COMMANDS}
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).as_posix() == "controller/table.py":
            continue  # read above, from the table itself
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "CommandSpec":
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
    return frozenset(found)


def second_list(strings: list[str]) -> list[str] | None:
    """The command names of one collection's strings, if they make a second list: two or
    more, at least half of its strings (a state's twenty fields may share two names with
    commands: `check`, `tutorial`), and not all of them event topics."""
    named = [s for s in strings if s in names()]
    if len(set(named)) < 2 or 2 * len(named) < len(strings):
        return None
    return None if all(s in TOPICS for s in strings) else named


def python_lists(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """(line, strings) of every literal list, tuple, set and dict (keys and string values)."""
    out = []
    exports = {
        id(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)
    }  # `__all__` lists Python names (a handler may share its command's name)
    for node in ast.walk(tree):
        items: list[ast.expr | None] = []
        if id(node) in exports:
            continue
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = [*node.keys, *node.values]
        strings = [
            i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)
        ]
        out.append((getattr(node, "lineno", 0), strings))
    return out


_TOKEN = re.compile(
    r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`"""
    r"""|[A-Za-z_$][\w$]*(?=\s*:(?!:))|[\[\]{}()]""",
    re.S,
)


def js_lists(text: str) -> list[tuple[int, list[str]]]:
    """(line, strings) of every bracketed literal ([…] or {…}) in a script: its quoted
    strings and bare object keys at its own level (not inside a call's parentheses or a
    nested literal)."""
    out: list[tuple[int, list[str]]] = []
    stack: list[tuple[str, int, list[str]]] = []
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith(("//", "/*")):
            continue
        if tok in "[{(":
            stack.append((tok, text.count("\n", 0, m.start()) + 1, []))
        elif tok in "]})":
            if stack:
                kind, line, strings = stack.pop()
                if kind != "(":
                    out.append((line, strings))
        elif stack and stack[-1][0] != "(":
            stack[-1][2].append(tok[1:-1] if tok[0] in "\"'`" else tok)
    return out


def offenders() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in THE_TABLE or path.suffix not in (".py", ".js") or "/axe/" in rel:
            continue
        text = path.read_text("utf-8")
        lists = python_lists(ast.parse(text)) if path.suffix == ".py" else js_lists(text)
        for line, strings in lists:
            named = second_list(strings)
            if named is not None and (rel, tuple(named)) not in NOT_COMMANDS:
                found.setdefault(rel, []).append(f"line {line}: {named}")
    return found


def test_no_second_list_of_command_names_in_the_package() -> None:
    assert offenders() == {}


def test_the_check_finds_the_lists_it_is_for() -> None:
    """The shapes the table replaced, written again, are found (so the test is not blind)."""
    dashboard = (
        'ACTIONS = {"new_game": ("new_game", None), "exhibit": ("exhibit.set", None),'
        ' "brightness": ("settings.set", None)}'
    )
    roles = 'CONTROL = frozenset({"undo", "hint", "resign"})'
    keys = "const WORDS = { new_game: N_('New game'), exhibit: N_('On'), brightness: 1, f: 2 };"
    buttons = 'for (const c of ["undo", "hint", "check"]) add(c);'
    assert any(second_list(s) for _, s in python_lists(ast.parse(dashboard)))
    assert any(second_list(s) for _, s in python_lists(ast.parse(roles)))
    assert any(second_list(s) for _, s in js_lists(keys))
    assert any(second_list(s) for _, s in js_lists(buttons))
    # ...and the uses and the event lists it must leave alone.
    calls = 'Promise.all([request("settings.get"), request("state")]);'
    events = 'new KiothiClient(["new_game", "game_over", "settings", "move", "hint"]);'
    assert not any(second_list(s) for _, s in js_lists(calls))
    assert not any(second_list(s) for _, s in js_lists(events))


def test_only_level_choice_knows_the_word_adaptive() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and node.value == "adaptive":
                found.append(f"{rel}:{node.lineno}")
    # config_tables.py (floor 0, below the AI) writes it once more as the exhibition's
    # default level, a value: test_config holds it equal to the schema's, which is
    # `ADAPTIVE.to_json()`, and the config checks it with `LevelChoice.read`.
    rest = [f for f in found if not f.startswith("ai/levels.py:")]
    assert found and [f.split(":")[0] for f in rest] == ["config_tables.py"], found
