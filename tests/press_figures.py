"""What one press costs the board loop's thread, counted by a profiler (the press walk's
method, tests/test_press_walk.py): part-to-part hops, re-entries, call-backs, lock takes.

- a *hop*: a call whose callee runs in another part than its caller (the walk's map);
- a *re-entry*: a call into a part that already has a frame further down the stack, under a
  frame of another part (the walk comes back into a part it is still inside);
- a *call-back*: a call from a module on a lower floor into one on a higher floor (the
  floors of tests/test_import_graph.py: a listener, a hook, an input handler);
- a *lock take*: an `acquire` (or `with`) of a `threading` lock, re-entrant lock or condition.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

PACKAGE = Path(__file__).resolve().parents[1] / "kiothi_board"

_LOCKS = (type(threading.Lock()), type(threading.RLock()))


class CountedLock:
    """A lock of the package's, wrapped so that the profiler sees each take (a `with` on a
    C lock makes no profiler event)."""

    def __init__(self, lock: Any) -> None:
        self._lock = lock

    def acquire(self, *args: Any, **kwargs: Any) -> bool:
        return bool(self._lock.acquire(*args, **kwargs))

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> bool:
        return bool(self._lock.acquire())

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lock, name)


_TAKES = {CountedLock.acquire.__code__, CountedLock.__enter__.__code__}


def count_locks() -> int:
    """Wrap every lock held by an object of the package (found by the garbage collector) in
    a CountedLock; how many were wrapped."""
    import gc

    n = 0
    for obj in gc.get_objects():
        module = getattr(type(obj), "__module__", None)
        if not isinstance(module, str) or not module.startswith("kiothi_board"):
            continue
        if not isinstance(getattr(obj, "__dict__", None), dict):
            continue
        for name, value in list(vars(obj).items()):
            if isinstance(value, _LOCKS):
                setattr(obj, name, CountedLock(value))
                n += 1
    return n


def _floors() -> dict[str, int]:
    from tests.test_import_graph import FLOORS

    return FLOORS


def floor_of(rel: str) -> int | None:
    """The floor of a file of the package (relative to kiothi_board/), by its module."""
    parts = ("kiothi_board", *Path(rel).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    floors = _floors()
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if name in floors:
            return floors[name]
    return None


@dataclass
class Figures:
    """Counts over what one thread runs while the profiler is on."""

    label: Callable[[FrameType], str | None]  # the part a frame runs in (None: not ours)
    thread: int = field(default_factory=threading.get_ident)
    hops: int = 0
    reentries: int = 0
    callbacks: int = 0
    locks: int = 0
    files: set[str] = field(default_factory=set)
    seen: list[str] = field(default_factory=list)  # what the re-entries and call-backs were
    until: str | None = None  # stop counting when a function of this qualified name returns
    done: bool = False
    _stack: list[tuple[str | None, int | None]] = field(default_factory=list)

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if threading.get_ident() != self.thread or self.done:
            return
        if event == "return" and frame.f_code.co_qualname == self.until:
            self.done = True
        if event == "c_call":
            owner = getattr(arg, "__self__", None)
            name = getattr(arg, "__name__", "")
            if isinstance(owner, _LOCKS) and name in ("acquire", "__enter__"):
                self.locks += 1
            return
        if event == "call" and frame.f_code in _TAKES:
            self.locks += 1
        if event == "call":
            top, top_floor = self._stack[-1] if self._stack else (None, None)
            rel = _rel(frame)
            own = self.label(frame)
            label = own if own is not None else top
            floor = floor_of(rel) if rel is not None else None
            if rel is not None:
                self.files.add(rel)
            if label is not None and top is not None and label != top:
                self.hops += 1
                if any(lbl == label for lbl, _ in self._stack):
                    self.reentries += 1
                    self.seen.append(f"re-entry {top}->{label} {frame.f_code.co_qualname}")
            if floor is not None and top_floor is not None and floor > top_floor:
                self.callbacks += 1
                self.seen.append(f"call-back {top}->{label} {rel} {frame.f_code.co_qualname}")
            self._stack.append((label, floor if floor is not None else top_floor))
        elif event == "return" and self._stack:
            self._stack.pop()

    def line(self) -> str:
        """The figures, one line."""
        return (
            f"{self.hops} hops, {self.reentries} re-entries, {self.callbacks} call-backs, "
            f"{self.locks} lock takes, {len(self.files)} files"
        )


def _rel(frame: FrameType) -> str | None:
    try:
        return Path(frame.f_code.co_filename).resolve().relative_to(PACKAGE).as_posix()
    except ValueError:
        return None
