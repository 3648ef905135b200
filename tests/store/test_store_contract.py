"""The GameStore contract, run over every backend: memory, SQLite, Redis (fakeredis), real Redis."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from kiothi_board.errors import StoreError, StoreUsageError, UnknownGameError
from kiothi_board.store.base import GameStore
from kiothi_board.store.memory import MemoryStore
from kiothi_board.store.redis_store import RedisStore
from kiothi_board.store.sqlite import SqliteStore

RECORD = {
    "format": "kiothi-game/1",
    "variant": {},
    "opening": ["pass", "pass"],
    "moves": ["S6"],
    "result": {"winner": "S", "captured": [31, 29], "end": "no-moves"},
}


class Clock:
    """A clock whose wall time ticks one second per reading, so timestamps are distinct."""

    def __init__(self) -> None:
        self.t = 1_790_000_000.0

    def now(self) -> float:
        return self.t

    def wall(self) -> float:
        self.t += 1.0
        return self.t


@pytest.fixture(params=["memory", "sqlite", "fakeredis", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GameStore]:
    """A fresh store of each kind."""
    made: GameStore
    if request.param == "memory":
        made = MemoryStore(clock=Clock())
    elif request.param == "sqlite":
        made = SqliteStore(tmp_path / "games.sqlite3", clock=Clock())
    elif request.param == "fakeredis":
        fake = fakeredis.FakeRedis(server=fakeredis.FakeServer())
        made = RedisStore(fake, clock=Clock())
    else:
        server = request.getfixturevalue("redis_server")
        import redis

        client = redis.Redis.from_url(server.url)
        prefix = f"test:{uuid.uuid4().hex}:"
        made = RedisStore(client, prefix=prefix, clock=Clock(), owns_client=True)
        request.addfinalizer(lambda: _drop(server, prefix))
    try:
        yield made
    finally:
        made.close()


def _drop(server: Any, prefix: str) -> None:
    import redis

    with redis.Redis.from_url(server.url) as client:
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)


def test_is_a_game_store(store: GameStore) -> None:
    assert isinstance(store, GameStore)


def test_settings_round_trip(store: GameStore) -> None:
    assert store.load_settings() == {}
    settings = {"brightness": 0.3, "level": 4, "names": ["Ann", "Kĩmathi"], "nested": {"a": None}}
    store.save_settings(settings)
    settings["level"] = 5  # the store keeps its own copy
    assert store.load_settings()["level"] == 4
    store.save_settings({"level": 1})
    assert store.load_settings() == {"level": 1}


def test_game_lifecycle(store: GameStore) -> None:
    assert store.current_game() is None
    meta = {"mode": "ai", "south": "human", "north": "ai", "level": 3, "variant": "default"}
    game = store.begin_game(meta)
    assert store.append_event(game, {"type": "opening", "action": "pass"}) == 1
    event = {"type": "move", "pit": "S6"}
    assert store.append_event(game, event) == 2
    event["pit"] = "S7"
    assert store.current_game() == (
        game,
        meta,
        [{"type": "opening", "action": "pass"}, {"type": "move", "pit": "S6"}],
    )
    current = store.get_game(game)
    assert current is not None
    assert current["status"] == "current"
    assert current["events"][1] == {"type": "move", "pit": "S6"}
    assert current["finished"] is None

    store.finish_game(game, RECORD)
    assert store.current_game() is None
    assert store.get_game(game) == RECORD
    [summary] = store.list_games()
    assert summary["id"] == game
    assert summary["status"] == "finished"
    assert summary["result"] == RECORD["result"]
    assert summary["meta"] == meta
    assert summary["finished"] > summary["started"] > 0


def test_begin_abandons_an_unfinished_game(store: GameStore) -> None:
    first = store.begin_game({"n": 1})
    store.append_event(first, {"e": 1})
    second = store.begin_game({"n": 2})
    assert second != first
    current = store.current_game()
    assert current is not None
    assert current[0] == second
    assert current[2] == []
    old = store.get_game(first)
    assert old is not None
    assert old["status"] == "abandoned"
    assert old["events"] == [{"e": 1}]
    with pytest.raises(StoreUsageError, match="abandoned"):
        store.append_event(first, {"e": 2})
    assert store.append_event(second, {"e": 1}) == 1


def test_list_games_newest_first_with_paging(store: GameStore) -> None:
    ids = []
    for n in range(5):
        game = store.begin_game({"n": n})
        store.finish_game(game, {**RECORD, "moves": [str(n)]})
        ids.append(game)
    assert [g["id"] for g in store.list_games()] == ids[::-1]
    assert [g["id"] for g in store.list_games(limit=2)] == ids[:2:-1][:2]
    assert [g["id"] for g in store.list_games(limit=2, offset=3)] == [ids[1], ids[0]]
    assert store.list_games(limit=0) == []
    assert store.list_games(offset=10) == []
    with pytest.raises(StoreUsageError, match="-1"):
        store.list_games(limit=-1)


def test_misuse_is_reported(store: GameStore) -> None:
    assert store.get_game(999) is None
    with pytest.raises(UnknownGameError, match=r"^no game with id 999$"):
        store.append_event(999, {"e": 1})
    with pytest.raises(KeyError):
        store.finish_game(999, RECORD)
    game = store.begin_game({})
    store.finish_game(game, RECORD)
    with pytest.raises(StoreUsageError, match="finished"):
        store.append_event(game, {"e": 1})
    with pytest.raises(StoreUsageError, match="finished"):
        store.finish_game(game, RECORD)
    with pytest.raises(StoreUsageError, match="not JSON-able"):
        store.save_settings({"bad": object()})
    with pytest.raises(StoreUsageError, match="not JSON-able"):
        store.append_event(store.begin_game({}), {"nan": float("nan")})


def test_concurrent_appends_get_distinct_sequence_numbers(store: GameStore) -> None:
    game = store.begin_game({})
    seqs: list[int] = []
    lock = threading.Lock()

    def worker(w: int) -> None:
        for i in range(10):
            seq = store.append_event(game, {"w": w, "i": i})
            with lock:
                seqs.append(seq)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert sorted(seqs) == list(range(1, 41))
    current = store.current_game()
    assert current is not None
    events = current[2]
    for w in range(4):
        assert [e["i"] for e in events if e["w"] == w] == list(range(10))


def test_close_is_idempotent_and_final(store: GameStore) -> None:
    store.close()
    store.close()
    call: Callable[[], Any]
    for call in (store.load_settings, store.current_game, lambda: store.begin_game({})):
        with pytest.raises(StoreError, match="closed"):
            call()


def test_a_steps_writes_commit_together(store: GameStore) -> None:
    """`commit`: the events, the finish, the settings and the counters of one step land as one
    transaction; a step that cannot land (a write to a finished game) changes nothing."""
    from kiothi_board.store.base import Writes

    gid = store.begin_game({"mode": "two"})
    step = Writes(events=[(gid, {"e": 1}), (gid, {"e": 2})], settings={"palette": "night"})
    step.add_counts("2026-05-01", {"press.S1": 1, "wrong": 0})
    step.add_counts("2026-05-01", {"press.S1": 2})
    assert step and not Writes()
    store.commit(step)
    assert store.current_game() == (gid, {"mode": "two"}, [{"e": 1}, {"e": 2}])
    assert store.load_settings() == {"palette": "night"}
    assert store.get_counts("2026-05-01", "2026-05-01") == {"2026-05-01": {"press.S1": 3}}  # type: ignore[attr-defined]
    store.commit(Writes(events=[(gid, {"e": 3})], finished=[(gid, RECORD)]))
    assert store.current_game() is None and store.get_game(gid) == RECORD
    late = Writes(events=[(gid, {"e": 4})], settings={"palette": "default"})
    late.add_counts("2026-05-01", {"press.S1": 1})
    with pytest.raises(StoreUsageError, match="finished"):
        store.commit(late)
    assert store.load_settings() == {"palette": "night"}
    assert store.get_counts("2026-05-01", "2026-05-01") == {"2026-05-01": {"press.S1": 3}}  # type: ignore[attr-defined]
    store.commit(Writes())  # nothing to write: nothing happens


def test_a_game_begun_in_a_step_lands_with_it(store: GameStore) -> None:
    """Issue 33: the journal hands out the id (`next_game_id`) and the game's row is one of
    the step's writes: the old game's last event and finish, then the new game, its events;
    an id that exists already is refused and nothing of the step lands."""
    from kiothi_board.store.base import Writes
    from kiothi_board.store.journal import Journal

    old = store.begin_game({"mode": "two"})
    journal = Journal(store)
    assert store.next_game_id() == old + 1
    journal.append_event(old, {"e": "last"})
    journal.finish_game(old, RECORD)
    gid = journal.begin_game({"mode": "ai"})
    journal.append_event(gid, {"e": 1})
    assert gid == old + 1 and store.current_game() == (old, {"mode": "two"}, [])  # not yet
    journal.commit()
    assert store.current_game() == (gid, {"mode": "ai"}, [{"e": 1}])
    assert store.get_game(old) == RECORD
    assert store.next_game_id() == gid + 1
    again = journal.begin_game({"mode": "two"})  # the current one is left unfinished
    journal.commit()
    assert [g["status"] for g in store.list_games()] == ["current", "abandoned", "finished"]
    assert store.begin_game({"mode": "two"}) == again + 1  # the store's own ids follow on
    with pytest.raises(StoreUsageError, match="exists already"):
        store.commit(Writes(begun=[(again, {"mode": "two"})], settings={"palette": "night"}))
    assert store.load_settings() == {}
