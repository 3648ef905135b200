"""Which core runs: the native one (the C extension `_core`, built by `pip install .`) or the
Python path, chosen once per process.

The Python path (`rules/fast.py`, `ai/search.py`) always stays: it is chosen when the
extension is missing or fails to load (one warning in the log says why), or when the
environment says `KIOTHI_CORE=python`. Both give exactly the same results (the differential
tests in tests/rules and tests/ai); the native one is about 15× faster. Imports only the
standard library, so the rules and the AI may use it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Literal

log = logging.getLogger(__name__)

Core = Literal["native", "python"]
ENV = "KIOTHI_CORE"  # "python" forces the Python path; "native" makes a failed load an error
ABI = 1  # the _core.ABI this package was written for

_loaded: tuple[ModuleType | None, str] | None = None
_forced: Core | None = None  # `forced(core)`: the tests and benchmarks run both cores


class NativeCoreError(ImportError):
    """`KIOTHI_CORE=native` (or `core="native"`) was asked for and the extension is missing."""


def _load() -> tuple[ModuleType | None, str]:
    """The extension (or None) and a sentence on why it runs or not; logged once."""
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted == "python":
        return None, f"the Python path: {ENV}=python"
    if wanted not in ("", "native", "auto"):
        log.warning("%s=%r is neither 'native' nor 'python': choosing automatically", ENV, wanted)
    try:
        from kiothi_board.native import _core  # type: ignore[attr-defined]
    except ImportError as exc:
        why = f"the Python path: the native core is not built or does not load ({exc})"
        return None, why
    if getattr(_core, "ABI", None) != ABI:
        found = getattr(_core, "ABI", "?")
        why = f"the Python path: the native core is stale (ABI {found}, want {ABI}); rebuild it"
        return None, why
    return _core, f"the native core ({_core.__file__})"


def _state() -> tuple[ModuleType | None, str]:
    global _loaded
    if _loaded is None:
        _loaded = _load()
        module, why = _loaded
        if module is None:
            if os.environ.get(ENV, "").strip().lower() == "native":
                raise NativeCoreError(f"{ENV}=native, but {why.split(': ', 1)[1]}")
            level = (
                logging.INFO
                if os.environ.get(ENV, "").strip().lower() == "python"
                else logging.WARNING
            )
            log.log(level, "kiothi-board runs %s", why)
        else:
            log.info("kiothi-board runs %s", why)
    return _loaded


def extension() -> ModuleType | None:
    """The loaded extension, or None on the Python path."""
    return _state()[0]


def default_core() -> Core:
    """The core this process runs by default."""
    if _forced is not None:
        return _forced
    return "native" if extension() is not None else "python"


@contextmanager
def forced(core: Core) -> Iterator[None]:
    """Make `core` the default within the block (the tests replay goldens on both cores)."""
    global _forced
    previous = _forced
    _forced = resolve(core)
    try:
        yield
    finally:
        _forced = previous


def describe() -> str:
    """One line for `health`, `doctor` and the benchmarks: which core runs, and why."""
    module, why = _state()
    if _forced == "python" and module is not None:
        return "the Python path: chosen for this process (native.forced)"
    return why


def native_available() -> bool:
    """Whether the native core can be used in this process (tests run both when it can)."""
    return extension() is not None


def resolve(core: Core | None) -> Core:
    """`core` as given, or the process default; "native" without the extension is an error."""
    if core is None:
        return default_core()
    if core == "python":
        return "python"
    if core == "native":
        if extension() is None:
            raise NativeCoreError(f"the native core was asked for, but it runs {describe()}")
        return "native"
    raise ValueError(f"bad core {core!r}: expected 'native' or 'python'")
