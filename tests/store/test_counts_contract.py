"""The per-day counters of the store contract (CountStore), over every backend."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from kiothi_board.errors import StoreUsageError
from kiothi_board.store.base import CountStore
from kiothi_board.store.memory import MemoryStore
from kiothi_board.store.redis_store import RedisStore
from kiothi_board.store.sqlite import SqliteStore


@pytest.fixture(params=["sqlite", "fakeredis", "redis", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    made: Any
    if request.param == "sqlite":
        made = SqliteStore(tmp_path / "games.sqlite3")
    elif request.param == "fakeredis":
        made = RedisStore(fakeredis.FakeRedis(server=fakeredis.FakeServer()))
    elif request.param == "memory":
        made = MemoryStore()
    else:
        import redis

        server = request.getfixturevalue("redis_server")
        prefix = f"test:{uuid.uuid4().hex}:"
        made = RedisStore(redis.Redis.from_url(server.url), prefix=prefix, owns_client=True)
    try:
        yield made
    finally:
        made.close()


def test_counts_add_up_by_day(store: Any) -> None:
    assert isinstance(store, CountStore)
    assert store.get_counts("2026-01-01", "2026-12-31") == {}
    store.add_counts("2026-05-01", {"press.S1": 1, "wrong": 2})
    store.add_counts("2026-05-01", {"press.S1": 3})
    store.add_counts("2026-05-02", {"hints": 1, "zero": 0})
    store.add_counts("2026-06-01", {"hints": 5})
    assert store.get_counts("2026-05-01", "2026-05-31") == {
        "2026-05-01": {"press.S1": 4, "wrong": 2},
        "2026-05-02": {"hints": 1},
    }
    assert list(store.get_counts("2026-05-02", "2026-06-01")) == ["2026-05-02", "2026-06-01"]


@pytest.mark.parametrize(
    ("day", "counts", "word"),
    [
        ("2026-5-1", {"a": 1}, "ISO date"),
        ("yesterday", {"a": 1}, "ISO date"),
        ("2026-05-01", {"": 1}, "key"),
        ("2026-05-01", {"a": -1}, ">= 0"),
        ("2026-05-01", {"a": 1.5}, "int"),
        ("2026-05-01", {"a": True}, "int"),
    ],
)
def test_bad_counts_are_refused_and_change_nothing(
    store: Any, day: str, counts: dict[str, Any], word: str
) -> None:
    store.add_counts("2026-05-01", {"a": 1})
    with pytest.raises(StoreUsageError, match=word):
        store.add_counts(day, counts)
    assert store.get_counts("0000-01-01", "9999-12-31") == {"2026-05-01": {"a": 1}}


def test_concurrent_increments_are_not_lost(store: Any) -> None:
    def work() -> None:
        for _ in range(50):
            store.add_counts("2026-05-01", {"press.N3": 1})

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get_counts("2026-05-01", "2026-05-01") == {"2026-05-01": {"press.N3": 200}}


def test_sqlite_store_of_the_old_schema_gains_the_counts_table(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with SqliteStore(path) as store:
        gid = store.begin_game({"mode": "ai"})
    with sqlite3.connect(path) as conn:  # a file written before the counts table existed
        conn.execute("DROP TABLE counts")
    with SqliteStore(path) as store:
        assert store.report is None, "not moved aside"
        assert store.current_game() is not None and store.current_game()[0] == gid
        store.add_counts("2026-05-01", {"hints": 1})
    with SqliteStore(path) as store:
        assert store.get_counts("2026-05-01", "2026-05-01") == {"2026-05-01": {"hints": 1}}
