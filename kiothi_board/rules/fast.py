"""The fast path: sowing on a packed board for search and playouts, with no trace.

A board is one int holding pit `i`'s count in bits `8*i … 8*i+7` (60 seeds fit in a byte,
so adding a lap never carries into the next pit). Sown flags are a 20-bit mask. A lap of
`n` seeds lifted from pit `q` is one addition of a precomputed mask, so a move costs a few
big-int operations per lap however many seeds it sows.

Two cores implement the `Engine` protocol on these packed values: `PyEngine` here, and
`NativeEngine`, the C extension (`kiothi_board.native`), about 15× faster. `engine_for`
picks the process's core (or the one asked for). Both must give exactly the results of the
traced path in `sowing.py`; the property and differential tests hold the three together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Protocol

from kiothi_board import native
from kiothi_board.native import Core
from kiothi_board.rules.board import PITS, ROW, SEEDS
from kiothi_board.rules.playout import NONZERO, SplitMix64, random_playout
from kiothi_board.rules.variant import Variant

MAX_LAPS = 1000  # R6: the first lap and 999 relays
_KEY_STRIDE = 64  # table index of a lap: (lift pit << 6) | seeds, seeds ≤ 60
SOWN_SHIFT = 8 * PITS
SIDE_SHIFT = 8 * PITS + PITS

SowFn = Callable[[int, int, int, int], "tuple[int, int, int] | None"]
Playout = tuple[int, int, int, str]

__all__ = [
    "MAX_LAPS",
    "NONZERO",
    "Engine",
    "NativeEngine",
    "PyEngine",
    "SplitMix64",
    "engine_for",
    "pack",
    "pack_flags",
    "random_playout",
    "repetition_key",
    "unpack",
    "unpack_flags",
]


def pack(board: Sequence[int]) -> int:
    """Pack 20 pit counts (each below 256) into a board int."""
    return int.from_bytes(bytes(board), "little")


def unpack(packed: int) -> tuple[int, ...]:
    """Unpack a board int into 20 pit counts."""
    return tuple(packed.to_bytes(PITS, "little"))


def pack_flags(flags: Sequence[bool]) -> int:
    """Pack 20 sown flags into a bit mask (bit i = pit i)."""
    mask = 0
    for i, flag in enumerate(flags):
        if flag:
            mask |= 1 << i
    return mask


def unpack_flags(mask: int) -> tuple[bool, ...]:
    """Unpack a sown-flag mask into 20 booleans."""
    return tuple(bool(mask >> i & 1) for i in range(PITS))


def lap_targets(lifted: int, seeds: int, skip_origin: bool) -> list[int]:
    """The pits a lap of `seeds` lifted from `lifted` drops into, in order (R4, V3)."""
    out: list[int] = []
    pit = lifted
    while len(out) < seeds:
        pit = (pit + 1) % PITS
        if skip_origin and pit == lifted:
            continue
        out.append(pit)
    return out


def repetition_key(board: int, sown: int, side: int) -> int:
    """The R11 key: board, sown flags and side to move in one int (`Position.key`)."""
    return board | sown << SOWN_SHIFT | side << SIDE_SHIFT


class Engine(Protocol):
    """What either core offers for one `Variant`, on packed boards (see the module doc)."""

    variant: Variant
    core: Core

    def sow(self, board: int, sown: int, side: int, pit: int) -> tuple[int, int, int] | None:
        """Play the non-empty `pit` for `side`: `(board, sown, seeds captured)`, or None
        if the move is endless (R6)."""
        ...

    def moves_of(self, board: int, side: int) -> tuple[int, ...]:
        """The non-empty pits of `side`, in index order (candidates before R6)."""
        ...

    def legal_moves(self, board: int, sown: int, side: int) -> list[int]:
        """The legal moves of `side`: non-empty pits whose sowing ends (R4, R6)."""
        ...

    def children(self, board: int, sown: int, side: int) -> list[tuple[int, int, int, int]]:
        """Every legal move with its result: `(pit, board, sown, seeds captured)`."""
        ...

    def endless_moves(self, board: int, sown: int, side: int) -> list[int]:
        """The non-empty pits of `side` whose sowing never ends (R6)."""
        ...

    def key(self, board: int, sown: int, side: int) -> int:
        """The R11 repetition key."""
        ...

    def random_playout(
        self,
        board: int,
        sown: int,
        side: int,
        captured: tuple[int, int],
        rng: SplitMix64,
        max_plies: int | None = None,
    ) -> Playout:
        """`random_playout` below, drawing from `rng`."""
        ...


class PyEngine:
    """The Python core: precomputed lap tables and the sowing function for one `Variant`.

    Get one with `engine_for(variant)`; it is immutable and shared.
    """

    __slots__ = ("nonempty", "sow", "variant")
    core: Core = "python"

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.sow: SowFn = _make_sow(variant)
        # Row bytes mapped to 0/1 by `bytes.translate`, then to the tuple of non-empty pits.
        self.nonempty: tuple[dict[bytes, tuple[int, ...]], dict[bytes, tuple[int, ...]]] = (
            _nonempty_table(0),
            _nonempty_table(ROW),
        )

    def moves_of(self, board: int, side: int) -> tuple[int, ...]:
        """The non-empty pits of `side`, in index order (candidates before R6)."""
        row = board.to_bytes(PITS, "little")[side * ROW : side * ROW + ROW]
        return self.nonempty[side][row.translate(NONZERO)]

    def legal_moves(self, board: int, sown: int, side: int) -> list[int]:
        """The legal moves of `side`: non-empty pits whose sowing ends (R4, R6)."""
        sow = self.sow
        return [p for p in self.moves_of(board, side) if sow(board, sown, side, p) is not None]

    def children(self, board: int, sown: int, side: int) -> list[tuple[int, int, int, int]]:
        """Every legal move with its result: `(pit, board, sown, seeds captured)`."""
        sow = self.sow
        out = []
        for p in self.moves_of(board, side):
            r = sow(board, sown, side, p)
            if r is not None:
                out.append((p, r[0], r[1], r[2]))
        return out

    def endless_moves(self, board: int, sown: int, side: int) -> list[int]:
        """The non-empty pits of `side` whose sowing never ends (R6)."""
        sow = self.sow
        return [p for p in self.moves_of(board, side) if sow(board, sown, side, p) is None]

    def key(self, board: int, sown: int, side: int) -> int:
        """The R11 repetition key."""
        return repetition_key(board, sown, side)

    def random_playout(
        self,
        board: int,
        sown: int,
        side: int,
        captured: tuple[int, int],
        rng: SplitMix64,
        max_plies: int | None = None,
    ) -> Playout:
        """`random_playout` below, drawing from `rng`."""
        return random_playout(self, board, sown, side, captured, rng.random, max_plies)


class NativeEngine:
    """The native core for one `Variant`: the C extension's methods, called directly."""

    __slots__ = (
        "children",
        "endless_moves",
        "key",
        "legal_moves",
        "moves_of",
        "rules",
        "sow",
        "variant",
    )
    core: Core = "native"

    def __init__(self, variant: Variant) -> None:
        ext = native.extension()
        if ext is None:
            raise native.NativeCoreError(f"no native core: kiothi-board runs {native.describe()}")
        self.variant = variant
        self.rules = ext.CoreRules(
            V3=variant.V3, V4=variant.V4, V6=variant.V6, V7=variant.V7, V8=variant.V8
        )
        self.sow: SowFn = self.rules.sow
        self.moves_of: Callable[[int, int], tuple[int, ...]] = self.rules.moves_of
        self.legal_moves: Callable[[int, int, int], list[int]] = self.rules.legal_moves
        self.children: Callable[[int, int, int], list[tuple[int, int, int, int]]] = (
            self.rules.children
        )
        self.endless_moves: Callable[[int, int, int], list[int]] = self.rules.endless_moves
        self.key: Callable[[int, int, int], int] = self.rules.key

    def random_playout(
        self,
        board: int,
        sown: int,
        side: int,
        captured: tuple[int, int],
        rng: SplitMix64,
        max_plies: int | None = None,
    ) -> Playout:
        """`random_playout` below, in C, drawing from (and advancing) `rng`."""
        result: Playout = self.rules.playout(board, sown, side, captured, rng, max_plies)
        return result


def _nonempty_table(base: int) -> dict[bytes, tuple[int, ...]]:
    table = {}
    for mask in range(1 << ROW):
        key = bytes((mask >> i) & 1 for i in range(ROW))
        table[key] = tuple(base + i for i in range(ROW) if mask >> i & 1)
    return table


def engine_for(variant: Variant, core: Core | None = None) -> Engine:
    """The shared `Engine` of a variant on `core` (default: the process's core)."""
    return _engine_of(variant, native.default_core() if core is None else core)


@cache
def _engine_of(variant: Variant, core: Core) -> Engine:
    return _engine(_sowing_variant(variant), native.resolve(core))


def _sowing_variant(variant: Variant) -> Variant:
    """The variant with only what sowing reads (V3, V4, V6–V8), so engines are shared."""
    return Variant(V3=variant.V3, V4=variant.V4, V6=variant.V6, V7=variant.V7, V8=variant.V8)


@cache
def _engine(variant: Variant, core: Core) -> Engine:
    return NativeEngine(variant) if core == "native" else PyEngine(variant)


def _make_sow(variant: Variant) -> SowFn:
    """Build the sowing function for a variant, its tables bound as closure constants."""
    size = PITS * _KEY_STRIDE
    add = [0] * size
    last_of = [0] * size
    crosses = ([0] * size, [0] * size)  # by mover: did this lap drop into the opponent's row
    for q in range(PITS):
        for n in range(1, SEEDS + 1):
            targets = lap_targets(q, n, variant.V3)
            k = (q << 6) | n
            mask = 0
            for t in targets:
                mask += 1 << (8 * t)
            add[k] = mask
            last_of[k] = targets[-1]
            crosses[0][k] = int(any(t >= ROW for t in targets))
            crosses[1][k] = int(any(t < ROW for t in targets))
    # Bits a relay out of pit p sets in the mover's flags (R7; V4: any pit).
    relay_flag = tuple(
        tuple((1 << p) if (variant.V4 or p // ROW == side) else 0 for p in range(PITS))
        for side in (0, 1)
    )
    runs = (tuple(range(18, 9, -1)), tuple(range(8, -1, -1)))  # R9: N9…N1 and S9…S1
    final_lap_only = variant.V6
    landing_needs_sown = variant.V7
    unsown_ends_run = variant.V8
    endless: set[tuple[int, int]] = set()

    def sow(board: int, sown: int, side: int, pit: int) -> tuple[int, int, int] | None:
        """Play `pit` for `side`: `(board, sown, seeds captured)`, or None if endless (R6)."""
        start = board
        sh = pit << 3
        n = (board >> sh) & 255
        board ^= n << sh
        sown |= 1 << pit
        k = (pit << 6) | n
        board += add[k]
        cross = crosses[side]
        crossed = cross[k]
        last = last_of[k]
        flag = relay_flag[side]
        laps = 1
        while True:
            sh = last << 3
            c = (board >> sh) & 255
            if c == 1:  # R5: the last seed fell into an empty pit
                break
            if laps == 64 and (start, pit) in endless:
                return None
            if laps == MAX_LAPS:
                if len(endless) > 100_000:  # bound the memory of a long-running daemon
                    endless.clear()
                endless.add((start, pit))
                return None
            laps += 1
            board ^= c << sh
            sown |= flag[last]
            k = (last << 6) | c
            board += add[k]
            if final_lap_only:
                crossed = cross[k]
            else:
                crossed |= cross[k]
            last = last_of[k]
        if not crossed or last // ROW != side:  # R8.1, R8.2
            return board, sown, 0
        gain = 0
        if not landing_needs_sown or sown >> last & 1:
            gain = 1
            board -= 1 << sh
        opp = 19 - last
        osh = opp << 3
        oc = (board >> osh) & 255
        if oc and sown >> opp & 1:
            gain += oc
            board ^= oc << osh
        if oc and last == side * ROW:  # R9: a capture in the leftmost pit
            for r in runs[side]:
                rs = r << 3
                rc = (board >> rs) & 255
                if not rc:
                    break
                if sown >> r & 1:
                    gain += rc
                    board ^= rc << rs
                elif unsown_ends_run:
                    break
        return board, sown, gain

    return sow
