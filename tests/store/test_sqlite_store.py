"""SqliteStore specifics: durability settings, kill safety, unusable files moved aside."""

from __future__ import annotations

import logging
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.errors import StoreError
from kiothi_board.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
WHEN = 1_796_000_000.0  # 2026-11-30T00:53:20Z
STAMP = "20261130T005320Z"


def test_wal_and_full_sync(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "s.db") as store:
        conn = store._connection()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store.report is None


def test_reopen_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "state" / "games.db"  # the state directory is created
    with SqliteStore(path) as store:
        store.save_settings({"level": 2})
        game = store.begin_game({"mode": "guide"})
        store.append_event(game, {"e": 1})
    with SqliteStore(path) as store:
        assert store.load_settings() == {"level": 2}
        assert store.current_game() == (game, {"mode": "guide"}, [{"e": 1}])
        assert store.report is None


CHILD = """
import sys
from kiothi_board.store.sqlite import SqliteStore

store = SqliteStore(sys.argv[1])
game = store.begin_game({"mode": "kill-test"})
print("game", game, flush=True)
i = 0
while True:
    i += 1
    seq = store.append_event(game, {"i": i, "pad": "x" * 200})
    print(seq, flush=True)
"""


def test_kill_loses_nothing_that_returned(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().split()[0] == "game"
        acknowledged = 0
        while acknowledged < 150:
            acknowledged = int(child.stdout.readline())
        child.send_signal(signal.SIGKILL)  # mid-write: the child never stops appending
        # whatever the child printed before dying was also acknowledged
        for line in child.stdout:
            acknowledged = int(line)
    finally:
        child.kill()
        child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL
    with SqliteStore(path) as store:
        assert store.report is None
        current = store.current_game()
        assert current is not None
        events = current[2]
        assert len(events) >= acknowledged
        assert [e["i"] for e in events] == list(range(1, len(events) + 1))


def _assert_moved(tmp_path: Path, store: SqliteStore, original: bytes, reason: str) -> None:
    assert store.report is not None
    assert reason in store.report.reason
    moved = tmp_path / f"games.db.corrupt-{STAMP}"
    assert store.report.moved_to == str(moved)
    assert moved.read_bytes() == original
    # and the fresh store works
    assert store.load_settings() == {}
    assert store.append_event(store.begin_game({}), {"e": 1}) == 1


def test_not_sqlite_is_moved_aside(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "games.db"
    junk = b"this is not a database\n" * 100
    path.write_bytes(junk)
    with (
        caplog.at_level(logging.WARNING),
        SqliteStore(path, clock=FakeClock(wall_start=WHEN)) as store,
    ):
        _assert_moved(tmp_path, store, junk, "not a readable SQLite database")
    assert "moved aside" in caplog.text
    assert str(path) in caplog.text


def test_damaged_sqlite_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    with SqliteStore(path) as store:
        game = store.begin_game({})
        for i in range(200):
            store.append_event(game, {"i": i, "pad": "y" * 500})
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    data[4096 * 3 : 4096 * 6] = b"\xff" * (4096 * 3)  # trash pages in the middle
    path.write_bytes(bytes(data))
    with SqliteStore(path, clock=FakeClock(wall_start=WHEN)) as store:
        assert store.report is not None
        assert (tmp_path / f"games.db.corrupt-{STAMP}").read_bytes() == bytes(data)
        assert store.current_game() is None


def test_foreign_sqlite_file_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE photos (id INTEGER, jpeg BLOB)")
    conn.commit()
    conn.close()
    original = path.read_bytes()
    with SqliteStore(path, clock=FakeClock(wall_start=WHEN)) as store:
        _assert_moved(tmp_path, store, original, "not a kiothi-board store")
        assert "photos" in str(store.report)


def _with_version(path: Path, version: object) -> bytes:
    with SqliteStore(path) as store:
        store.save_settings({"operator": {"level": 4}})
        for i in range(3):
            store.finish_game(store.begin_game({"mode": "two"}), {"i": i})
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = ?", (version,))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path.read_bytes()


def test_a_newer_schema_version_is_refused_in_one_line(tmp_path: Path) -> None:
    """Issue 30 item 3: the old code moved a newer store aside and began an empty one."""
    path = tmp_path / "games.db"
    original = _with_version(path, 7)
    with pytest.raises(StoreError) as info:
        SqliteStore(path, clock=FakeClock(wall_start=WHEN))
    said = str(info.value)
    assert "schema version 7" in said and "newer than this build" in said and "\n" not in said
    assert "install the kiothi-board release that wrote it" in said
    assert path.read_bytes() == original and list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("version", [0, -1, "1x", 1.5, b"\x01"])
def test_an_older_or_garbled_schema_version_is_salvaged_by_column_names(
    tmp_path: Path, version: object
) -> None:
    """Issue 30 item 3: the old code moved such a store aside and salvaged nothing."""
    path = tmp_path / "games.db"
    original = _with_version(path, version)
    with SqliteStore(path, clock=FakeClock(wall_start=WHEN)) as store:
        assert store.report is not None and "unknown schema version" in store.report.reason
        assert (tmp_path / f"games.db.corrupt-{STAMP}").read_bytes() == original
        assert store.report.salvage is not None and store.report.salvage.recovered == [1, 2, 3]
        assert [store.get_game(i) for i in (1, 2, 3)] == [{"i": 0}, {"i": 1}, {"i": 2}]
        assert store.load_settings() == {"operator": {"level": 4}}
        assert store.health()["status"] == "degraded"


def test_earlier_salvage_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    earlier = tmp_path / f"games.db.corrupt-{STAMP}"
    earlier.write_bytes(b"first salvage")
    path.write_bytes(b"junk" * 100)
    with SqliteStore(path, clock=FakeClock(wall_start=WHEN)) as store:
        assert store.report is not None
        assert store.report.moved_to == str(tmp_path / f"games.db.corrupt-{STAMP}-1")
    assert earlier.read_bytes() == b"first salvage"


def test_empty_file_is_a_fresh_store(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    path.write_bytes(b"")
    with SqliteStore(path) as store:
        assert store.report is None
        assert store.begin_game({}) == 1


def test_unopenable_path_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot open game store"):
        SqliteStore(blocker / "games.db")


def test_a_directory_is_not_moved_aside(tmp_path: Path) -> None:
    (tmp_path / "games.db").mkdir()
    with pytest.raises(StoreError, match="is a directory"):
        SqliteStore(tmp_path / "games.db")
    assert (tmp_path / "games.db").is_dir()


def test_a_store_with_4k_pages_is_rewritten_in_small_pages_and_keeps_its_games(
    tmp_path: Path,
) -> None:
    import sqlite3

    from kiothi_board.store.sqlite import PAGE_SIZE

    path = tmp_path / "games.sqlite3"
    with SqliteStore(path) as store:
        gid = store.begin_game({"mode": "two"})
        store.append_event(gid, {"e": 1})
    with sqlite3.connect(path) as raw:  # as a build before small pages left it
        raw.execute("PRAGMA journal_mode = DELETE")
        raw.execute("PRAGMA page_size = 4096")
        raw.execute("VACUUM")
        assert raw.execute("PRAGMA page_size").fetchone()[0] == 4096
    with SqliteStore(path) as store:
        assert store.report is None
        assert store.current_game() == (gid, {"mode": "two"}, [{"e": 1}])
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
