"""Reading a damaged store file page by page, as SQLite's own `.recover` does.

SQLite reads a table by walking its B-tree from the root page the schema names: one flipped
byte in an interior page, or in the schema, and the rows below it are out of reach although
they are still on their leaf pages. This reads *every* page of the file (with the WAL's
committed frames over it), parses each B-tree page's cells as the file format specifies
(https://www.sqlite.org/fileformat2.html), and recognises the rows of our tables by their
shape, so no schema, root page or interior page is needed. A page whose header or cell
pointers are damaged is searched for cells at every offset, so a flip in it costs only the
row it hit. The rows found are candidates: `sqlite_salvage` checks their values.

Why not SQLite's tools: Bookworm's libsqlite3 (what Python's `sqlite3` loads) is built
without the `sqlite_dbpage` virtual table, and the `sqlite3` shell from Debian is linked
against that same library, so its `.recover` fails on every database ("SQL logic error",
3.40.1-2+deb12u2). The file format is documented and stable since 2004.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Found", "GameCells", "read_pages"]

Value = None | int | float | bytes
STATUSES = (b"current", b"finished", b"abandoned")
_SIZES = (0, 1, 2, 3, 4, 6, 8, 8, 0, 0)
_WAL_MAGIC = (0x377F0682, 0x377F0683)
SEARCH_PAGES = 64
"""Damaged pages searched offset by offset at most (about 10 ms each on the x86 machine this
was measured on, slower on a Pi): a flip damages a page, junk must not stall the start."""


@dataclass(frozen=True, slots=True)
class GameCells:
    """One `games` row as found on a page (text values are raw bytes)."""

    status: str
    meta: bytes
    started: float
    finished: float | None
    record: bytes | None


@dataclass
class Found:
    """Every row of ours found on the pages, by table (rows of a page found clean first)."""

    games: dict[int, list[GameCells]] = field(default_factory=dict)
    events: dict[int, dict[int, bytes]] = field(default_factory=dict)  # game -> seq -> event
    counts: dict[tuple[bytes, bytes], int] = field(default_factory=dict)
    settings: list[bytes] = field(default_factory=list)
    sequence: int | None = None
    searched: int = 0  # pages searched offset by offset (their structure was damaged)


def _varint(b: bytes, i: int) -> tuple[int, int]:
    value = 0
    for n in range(8):
        byte = b[i + n]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, i + n + 1
    return (value << 8) | b[i + 8], i + 9


def _record(payload: bytes) -> list[Value] | None:
    """A record's values, or None when `payload` is not exactly one well-formed record."""
    try:
        size, i = _varint(payload, 0)
        if size < 1 or size > len(payload):
            return None
        types = []
        while i < size:
            t, i = _varint(payload, i)
            types.append(t)
        if i != size:
            return None
        out: list[Value] = []
        at = size
        for t in types:
            if t in (10, 11):
                return None
            n = _SIZES[t] if t < 12 else (t - 12) // 2
            raw = payload[at : at + n]
            if len(raw) != n:
                return None
            at += n
            if t == 0:
                out.append(None)
            elif t in (8, 9):
                out.append(t - 8)
            elif t == 7:
                out.append(struct.unpack(">d", raw)[0])
            elif t < 7:
                out.append(int.from_bytes(raw, "big", signed=True))
            else:
                out.append(raw if t % 2 else None)  # a blob is no value of ours
        return out if at == len(payload) else None
    except IndexError:
        return None


class _Pages:
    """The file's pages (WAL applied) and the geometry to read their cells."""

    def __init__(self, main: bytes, wal: bytes | None, default_size: int) -> None:
        size = int.from_bytes(main[16:18], "big") if len(main) >= 100 else 0
        size = 65536 if size == 1 else size
        if size < 512 or size & (size - 1):
            size = default_size  # a damaged header: the size this build writes
        self.size = size
        self.usable = size - (main[20] if len(main) >= 100 and main[20] < 64 else 0)
        self.pages = {n + 1: main[n * size : (n + 1) * size] for n in range(len(main) // size)}
        if wal is not None:
            self._apply_wal(wal)

    def _apply_wal(self, wal: bytes) -> None:
        """Each page's newest frame of a committed WAL transaction (salts as the header's)."""
        if len(wal) < 32 or int.from_bytes(wal[0:4], "big") not in _WAL_MAGIC:
            return
        if int.from_bytes(wal[8:12], "big") != self.size:
            return
        salts, frame = wal[16:24], 24 + self.size
        pending: dict[int, bytes] = {}
        for at in range(32, len(wal) - frame + 1, frame):
            if wal[at + 8 : at + 16] != salts:
                break
            pending[int.from_bytes(wal[at : at + 4], "big")] = wal[at + 24 : at + frame]
            if int.from_bytes(wal[at + 4 : at + 8], "big"):  # a commit frame
                self.pages.update(pending)
                pending = {}

    def local(self, kind: int, total: int) -> int:
        """How much of a payload of `total` bytes is on the cell's own page."""
        u = self.usable
        most = u - 35 if kind == 0x0D else (u - 12) * 64 // 255 - 23
        least = (u - 12) * 32 // 255 - 23
        if total <= most:
            return total
        k = least + (total - least) % (u - 4)
        return k if k <= most else least

    def payload(self, page: bytes, at: int, kind: int, total: int) -> tuple[bytes, int, int]:
        """A cell's payload from `at` (its overflow chain followed), the cell's end, and the
        first overflow page (0: none)."""
        local = self.local(kind, total)
        if at + local > self.usable:
            raise IndexError("cell runs off its page")
        data = page[at : at + local]
        if local == total:
            return data, at + local, 0
        first = nxt = int.from_bytes(page[at + local : at + local + 4], "big")
        parts, need, hops = [data], total - local, 0
        while need > 0:
            over = self.pages.get(nxt)
            hops += 1
            if over is None or hops > len(self.pages):
                raise IndexError("overflow chain broken")
            parts.append(over[4 : 4 + min(need, self.usable - 4)])
            need -= self.usable - 4
            nxt = int.from_bytes(over[0:4], "big")
        return b"".join(parts), at + local + 4, first


def _cell(pages: _Pages, page: bytes, at: int, kind: int) -> tuple[int | None, list[Value], int]:
    """(rowid, values, end) of the cell of a page of `kind` at `at`; IndexError if none."""
    if kind in (0x02, 0x05):
        at += 4  # the left child
    if kind == 0x05:  # an interior table cell: the child and a rowid, no payload
        key, at = _varint(page, at)
        return key, [], at
    total, at = _varint(page, at)
    rowid: int | None = None
    if kind == 0x0D:
        rowid, at = _varint(page, at)
    if total > 1 << 24:
        raise IndexError("payload too big")
    payload, end, _ = pages.payload(page, at, kind, total)
    values = _record(payload)
    if values is None:
        raise IndexError("not a record")
    return rowid, values, end


def _keep(found: Found, kind: int, rowid: int | None, v: list[Value]) -> bool:
    """File a row of ours under its table; False when its shape is none of ours."""
    if kind == 0x0D and rowid is not None:
        if len(v) == 6 and v[0] is None and v[1] in STATUSES and isinstance(v[2], bytes):
            started, finished, record = v[3], v[4], v[5]
            if not isinstance(started, int | float) or isinstance(record, int | float):
                return False
            if finished is not None and not isinstance(finished, int | float):
                return False
            status = bytes(v[1]).decode()
            end = None if finished is None else float(finished)
            cells = GameCells(status, v[2], float(started), end, record)
            found.games.setdefault(rowid, []).append(cells)
            return True
        if len(v) == 2 and v[0] is None and rowid == 1 and isinstance(v[1], bytes):
            found.settings.append(v[1])
            return True
        if len(v) == 2 and v[0] == b"games" and isinstance(v[1], int):
            found.sequence = max(found.sequence or 0, v[1])
            return True
        if len(v) == 1 and isinstance(v[0], int):
            return True  # schema_version: the file is damaged, its tables are known
        return len(v) == 5 and v[0] in (b"table", b"index")  # sqlite_schema: not needed
    if kind in (0x0A, 0x02) and len(v) == 3:
        a, b, c = v
        if isinstance(a, int) and isinstance(b, int) and isinstance(c, bytes):
            found.events.setdefault(a, {}).setdefault(b, c)
            return True
        if isinstance(a, bytes) and isinstance(b, bytes) and isinstance(c, int) and len(a) == 10:
            found.counts[(a, b)] = max(c, found.counts.get((a, b), c))
            return True
    return kind in (0x0A, 0x02) and len(v) == 2  # the games_status index


def _clean(pages: _Pages, page: bytes, head: int, found: Found) -> set[int] | None:
    """Read a B-tree page by its header; None when the header or a cell is damaged (then
    nothing of it is kept). Returns the overflow pages its cells start."""
    kind = page[head]
    if kind not in (0x02, 0x05, 0x0A, 0x0D):
        return None
    interior = kind in (0x02, 0x05)
    count = int.from_bytes(page[head + 3 : head + 5], "big")
    content = int.from_bytes(page[head + 5 : head + 7], "big") or 65536
    pointers = head + (12 if interior else 8)
    if not pointers + 2 * count <= content <= pages.usable:
        return None
    used, rows, overflow = page[head + 7], [], set()
    try:
        for n in range(count):
            at = int.from_bytes(page[pointers + 2 * n : pointers + 2 * n + 2], "big")
            if not content <= at < pages.usable:
                return None
            rowid, values, end = _cell(pages, page, at, kind)
            used += end - at
            if kind != 0x05:
                rows.append((rowid, values))
                total = _varint(page, at + (4 if interior else 0))[0]
                if pages.local(kind, total) < total:
                    overflow.add(end - 4)
        free = int.from_bytes(page[head + 1 : head + 3], "big")
        for _ in range(pages.usable):  # the freeblock list, bounded
            if not free:
                break
            used += int.from_bytes(page[free + 2 : free + 4], "big")
            free = int.from_bytes(page[free : free + 2], "big")
    except IndexError:
        return None
    if used != pages.usable - content or not all(_keep(found, kind, *r) for r in rows):
        return None
    return {int.from_bytes(page[at : at + 4], "big") for at in overflow}


def _search(pages: _Pages, page: bytes, found: Found) -> None:
    """A damaged page: every offset tried as a table-leaf and as an index cell."""
    found.searched += 1
    for at in range(8, pages.usable - 3):
        for kind in (0x0D, 0x0A):
            try:
                rowid, values, _ = _cell(pages, page, at, kind)
            except IndexError:
                continue
            _keep(found, kind, rowid, values)


def read_pages(path: Path, default_size: int) -> Found:
    """Every row of ours on the pages of the store file `path` and its `-wal`."""
    wal_path = path.with_name(path.name + "-wal")
    wal = wal_path.read_bytes() if wal_path.exists() else None
    pages = _Pages(path.read_bytes(), wal, default_size)
    found, damaged, overflow = Found(), [], set()
    for number, page in sorted(pages.pages.items()):
        starts = _clean(pages, page, 100 if number == 1 else 0, found)
        if starts is None:
            damaged.append(number)
        else:
            overflow |= starts
    chained = set(overflow)
    for start in overflow:  # the rest of each chain is overflow too, never a B-tree page
        nxt, hops = start, 0
        while nxt in pages.pages and hops < len(pages.pages):
            chained.add(nxt)
            nxt, hops = int.from_bytes(pages.pages[nxt][0:4], "big"), hops + 1
    for number in damaged:
        if found.searched >= SEARCH_PAGES:
            break
        if number not in chained and any(pages.pages[number]):  # zeros: a freed page
            _search(pages, pages.pages[number], found)
    return found
