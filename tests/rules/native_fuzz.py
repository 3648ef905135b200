"""Every entry point of the native core (kiothi_board.native._core) called with hostile
values: each call must end in a Python exception (never a crash, never a SystemError, never
a quiet success). Run as a script in a child process by tests/rules/test_native_fuzz.py, so
a segfault fails that test instead of killing pytest; it prints each case before it runs it
(flushed), so the last line names the case that crashed.

Prints `N cases, N refused` at the end (a `Same` counts: it ran as it must); exit status 1
when a case was not refused.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from kiothi_board.native import _core  # type: ignore[attr-defined]
from kiothi_board.rules import Position, Variant
from kiothi_board.rules.fast import SplitMix64

BOARD, SOWN, SIDE = Position.initial(Variant()).packed
WEIGHTS = (100, 10, 5, 50, 10, 5, 6, 3)


class Boom(Exception):
    """Raised by the hostile objects below."""


class Hostile:
    """An object that is no int and whose every conversion raises."""

    def __index__(self) -> int:
        raise Boom("__index__")

    def __float__(self) -> float:
        raise Boom("__float__")


class ItemsOf(dict[Any, Any]):
    """A mapping whose items() returns `items` (a dict subclass, so PyMapping_Items calls it)."""

    def __init__(self, items: Any) -> None:
        super().__init__({1: 1})
        self._items = items

    def __repr__(self) -> str:
        return f"<items() -> {self._items!r}>"

    def items(self) -> Any:  # type: ignore[override]
        if isinstance(self._items, Exception):
            raise self._items
        return self._items


class NoState:
    """A random source without a usable `state`."""

    state = "seed"


BAD_INTS: list[Any] = [None, "1", 1.5, -1, 1 << 200, -(1 << 200), Hostile(), [], (1,)]
KEY = _core.CoreRules().key(BOARD, SOWN, SIDE)


def tree() -> Any:
    return _core.CoreTree(_core.CoreRules(), WEIGHTS, Boom)


def begun() -> Any:
    t = tree()
    t.begin(None, 1, None, None, None, 1 << 40)
    return t


def cases() -> Iterator[tuple[str, Callable[[], object]]]:
    rules = _core.CoreRules()
    position = (BOARD, SOWN, SIDE)
    for name in ("sow", "legal_moves", "children", "endless_moves", "key", "moves_of"):
        method = getattr(rules, name)
        width = 2 if name == "moves_of" else 3
        for i in range(width):
            for bad in BAD_INTS:
                args = list(position[:width])
                args[i] = bad
                if name == "sow":
                    args.append(15)
                yield f"CoreRules.{name} arg {i} = {bad!r}", lambda m=method, a=args: m(*a)
        yield f"CoreRules.{name} with no arguments", lambda m=method: m()
        yield f"CoreRules.{name} with 9 arguments", lambda m=method: m(*[0] * 9)
    for bad in [*BAD_INTS, 0, 20]:
        yield f"CoreRules.sow pit = {bad!r}", lambda b=bad: rules.sow(BOARD, SOWN, SIDE, b)
    rng = SplitMix64(1)
    for bad in [None, 5, [0, 0], (0,), (0, 0, 0), ("a", 0), (-1, 0), (1 << 40, 0), (2**31 - 1, 0)]:
        yield (
            f"CoreRules.playout captured = {bad!r}",
            lambda b=bad: rules.playout(BOARD, SOWN, SIDE, b, rng, None),
        )
    for bad in [None, NoState(), object()]:
        yield (
            f"CoreRules.playout rng = {bad!r}",
            lambda b=bad: rules.playout(BOARD, SOWN, SIDE, (0, 0), b, None),
        )
    for bad in ["x", -5, 1 << 80]:
        yield (
            f"CoreRules.playout max_plies = {bad!r}",
            lambda b=bad: rules.playout(BOARD, SOWN, SIDE, (0, 0), SplitMix64(1), b),
        )
    yield "CoreRules(V3='yes', V9=1)", lambda: _core.CoreRules(V9=1)
    yield "CoreRules.__new__ alone sows as CoreRules()", bare_rules

    # CoreTree(rules, weights, aborted)
    for args in (
        (object(), WEIGHTS, Boom),
        (rules, WEIGHTS[:7], Boom),
        (rules, [*WEIGHTS[:7], "x"], Boom),
        (rules, [*WEIGHTS[:7], 10**9], Boom),
        (rules, 5, Boom),
        (rules, WEIGHTS, 42),
        (rules, WEIGHTS, "SearchAborted"),
    ):
        yield f"CoreTree{args!r}", lambda a=args: _core.CoreTree(*a)

    # A tree made by __new__ alone has no tables: every method refuses.
    empty = _core.CoreTree.__new__(_core.CoreTree)
    for name, args in tree_calls():
        yield f"uninitialised CoreTree.{name}", lambda n=name, a=args: call(empty, n, a)
    for name in ("nodes", "leaves", "repcuts", "hist"):
        yield f"uninitialised CoreTree.{name}", lambda n=name: getattr(empty, n)

    # begin(game_history, rep_limit, stop, clock, deadline, node_cap)
    for history in (
        ItemsOf([1, 2, 3]),
        ItemsOf([(1,)]),
        ItemsOf([(1, 2, 3)]),
        ItemsOf([[KEY, 1]]),
        ItemsOf(Boom("items")),
        ItemsOf(None),
        {"key": 1},
        {KEY: "many"},
        {KEY: -1},
        {KEY: 1 << 40},
        {KEY: Hostile()},
        {1 << 200: 1},
        {Hostile(): 1},
        5,
    ):
        yield (
            f"CoreTree.begin history {history!r}",
            lambda h=history: tree().begin(h, 1, None, None, None, 100),
        )
    for args in (
        (None, "1", None, None, None, 100),
        (None, 1 << 40, None, None, None, 100),
        (None, 1, object(), None, None, 100),
        (None, 1, None, None, 5.0, 100),
        (None, 1, None, 42, 5.0, 100),
        (None, 1, None, lambda: 0.0, "soon", 100),
        (None, 1, None, None, None, -1),
        (None, 1, None, None, None, 1 << 70),
    ):
        yield f"CoreTree.begin{args!r}", lambda a=args: tree().begin(*a)

    t = begun()
    node_args = [BOARD, SOWN, SIDE, 2, -1000, 1000, 1, 10]
    for i in range(8):
        for bad in [*BAD_INTS, 10**10]:
            if bad == -1 and i in (3, 4, 5, 7):
                continue  # a valid depth, window or ply limit
            args = list(node_args)
            args[i] = bad
            yield f"CoreTree.node arg {i} = {bad!r}", lambda a=args: t.node(*a)
    yield "CoreTree.node depth 10**6", lambda: t.node(BOARD, SOWN, SIDE, 10**6, -1, 1, 0, 10**6)
    yield "CoreTree.node ext -1", lambda: t.node(BOARD, SOWN, SIDE, 2, -1, 1, -1, 10)
    yield "CoreTree.node ext 10**6", lambda: t.node(BOARD, SOWN, SIDE, 2, -1, 1, 10**6, 10)
    for name, args in tree_calls():
        if name == "begin" or not args:
            continue  # begin's own cases are above; the others take a position first
        for i in range(3):
            for bad in BAD_INTS:
                hostile = list(args)
                hostile[i] = bad
                yield f"CoreTree.{name} arg {i} = {bad!r}", lambda n=name, a=hostile: call(t, n, a)
    for bad in [*BAD_INTS, 1 << 31]:
        yield f"CoreTree.set_reps count = {bad!r}", lambda b=bad: t.set_reps(BOARD, SOWN, SIDE, b)
    entries = ((1 << 20, 0, 0, 0), (1, 3, 0, 0), (1, 0, 1 << 40, 0), (1, 0, 0, 20), (1, 0, 0, -2))
    for entry in entries:
        yield (
            f"CoreTree.tt_store entry {entry!r}",
            lambda e=entry: t.tt_store(BOARD, SOWN, SIDE, *e),
        )
    yield "CoreTree calls from inside its own running search", busy_calls
    yield "CoreTree calls from another thread while it searches", other_thread_calls


class Same(Exception):
    """A call that must run, not be refused: it ran and gave the expected value."""


def bare_rules() -> object:
    """CoreRules.__new__ without __init__ has the default rules (not unset lap tables)."""
    bare = _core.CoreRules.__new__(_core.CoreRules)
    got, want = bare.sow(BOARD, SOWN, 0, 7), _core.CoreRules().sow(BOARD, SOWN, 0, 7)
    if got != want:
        return got
    raise Same("the default rules")


def tree_calls() -> list[tuple[str, list[Any]]]:
    """Each method of CoreTree with valid arguments."""
    return [
        ("begin", [None, 1, None, None, None, 100]),
        ("node", [BOARD, SOWN, SIDE, 2, -1000, 1000, 1, 10]),
        ("reps", [BOARD, SOWN, SIDE]),
        ("set_reps", [BOARD, SOWN, SIDE, 1]),
        ("repcut", []),
        ("tt_get", [BOARD, SOWN, SIDE]),
        ("tt_store", [BOARD, SOWN, SIDE, 1, 0, 0, 0]),
        ("tt_len", []),
        ("tt_clear", []),
        ("new_game", []),
        ("evaluate", [BOARD, SOWN, SIDE]),
    ]


def call(target: Any, name: str, args: list[Any]) -> object:
    return getattr(target, name)(*args)


def busy_calls() -> object:
    """The search's check (every 1,024 nodes) calls `stop.is_set()` with the GIL held: from
    there every method of the searching tree must refuse, the tree's own re-initialisation
    (which would free the tables under the search) first of all."""
    t = tree()
    outcomes: list[str] = []
    rules = _core.CoreRules()

    class Meddler:
        def is_set(self) -> bool:
            if not outcomes:
                for name, args in [("__init__", [rules, WEIGHTS, Boom]), *tree_calls()]:
                    try:
                        call(t, name, args)
                        outcomes.append(f"{name}: ran")
                    except RuntimeError as exc:
                        outcomes.append(f"{name}: {exc}")
                for name in ("nodes", "hist"):
                    try:
                        getattr(t, name)
                        outcomes.append(f"{name}: ran")
                    except RuntimeError as exc:
                        outcomes.append(f"{name}: {exc}")
            return True  # and stop the search

    t.begin(None, 1, Meddler(), None, None, 1 << 40)
    with contextlib.suppress(Boom):
        t.node(BOARD, SOWN, SIDE, 8, -1000000, 1000000, 2, 1 << 20)
    ran = [o for o in outcomes if o.endswith(": ran")]
    if not outcomes or ran:
        return f"ran while the search ran: {ran or 'the check was never called'}"
    raise RuntimeError(f"every call refused: {outcomes[0]}")


def other_thread_calls() -> object:
    """While one thread's search runs with the GIL released (held at its check, which waits
    on an event), another thread calls every method: each must refuse."""
    t = tree()
    rules = _core.CoreRules()
    searching, finished = threading.Event(), threading.Event()

    class Holder:
        def is_set(self) -> bool:
            searching.set()
            finished.wait(30)  # releases the GIL: the main thread calls meanwhile
            return True

    t.begin(None, 1, Holder(), None, None, 1 << 40)
    search = threading.Thread(target=_search_quietly, args=(t,), daemon=True)
    search.start()
    if not searching.wait(30):
        return "the search never reached its check"
    ran = []
    for name, args in [("__init__", [rules, WEIGHTS, Boom]), *tree_calls()]:
        try:
            call(t, name, args)
            ran.append(name)
        except RuntimeError:
            pass
    finished.set()
    search.join(30)
    if ran:
        return f"ran while another thread searched: {ran}"
    raise RuntimeError("every call refused")


def _search_quietly(t: Any) -> None:
    with contextlib.suppress(Boom):
        t.node(BOARD, SOWN, SIDE, 8, -1000000, 1000000, 2, 1 << 20)


def main(argv: list[str]) -> int:
    """`native_fuzz.py [START]`: the cases from number START on (after a crash, the parent
    goes on from the next one)."""
    start = int(argv[0]) if argv else 0
    total = refused = 0
    bad: list[str] = []
    for index, (name, case) in enumerate(cases()):
        if index < start:
            continue
        total += 1
        print(f"case {index} {name}", flush=True)
        try:
            result = case()
        except SystemError as exc:
            bad.append(f"{name}: SystemError {exc}")
        except (Exception, Same):
            refused += 1
            continue
        else:
            bad.append(f"{name}: returned {result!r}")
        print(f"NOT REFUSED {bad[-1]}", flush=True)  # now: a later case may crash the process
    print(f"{total} cases, {refused} refused", flush=True)
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
