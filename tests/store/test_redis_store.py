"""RedisStore specifics: key layout, a real server going down and coming back, schema guard."""

from __future__ import annotations

from typing import Any

import fakeredis
import pytest

from kiothi_board.errors import StoreError
from kiothi_board.store.redis_store import RedisStore


def test_keys_are_under_the_prefix() -> None:
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    store = RedisStore(client, prefix="kb:")
    store.save_settings({"a": 1})
    game = store.begin_game({"m": 1})
    store.append_event(game, {"e": 1})
    keys = {k.decode() if isinstance(k, bytes) else k for k in client.keys("*")}
    assert keys == {"kb:schema", "kb:settings", "kb:next_id", "kb:current", "kb:games"} | {
        "kb:game:1",
        "kb:game:1:events",
    }
    store.close()
    client.ping()  # an injected client stays open


def test_other_schema_is_refused() -> None:
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    client.set("kiothi:v1:schema", "7")
    with pytest.raises(StoreError, match="'7'"):
        RedisStore(client).load_settings()


def test_decoded_clients_work_too() -> None:
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    store = RedisStore(client)
    game = store.begin_game({"m": 1})
    store.append_event(game, {"e": 1})
    assert store.current_game() == (game, {"m": 1}, [{"e": 1}])
    assert store.list_games()[0]["status"] == "current"


def test_bad_url_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="'http://nope'"):
        RedisStore.from_url("http://nope")


def test_server_down_then_back(make_redis_server: Any, tmp_path: Any) -> None:
    server = make_redis_server(directory=tmp_path).start()
    store = RedisStore.from_url(server.url, timeout=0.5)
    with store:
        game = store.begin_game({"mode": "ai"})
        assert store.append_event(game, {"e": 1}) == 1
        server.kill()
        with pytest.raises(StoreError, match=f"{server.url}.*appending to game {game}") as info:
            store.append_event(game, {"e": 2})
        assert isinstance(info.value, OSError)
        with pytest.raises(StoreError, match="reading the current game"):
            store.current_game()
        # same port, same append-only file: the store reconnects and nothing acknowledged is lost
        make_redis_server(port=server.port, directory=tmp_path).start()
        assert store.append_event(game, {"e": 2}) == 2
        assert store.current_game() == (game, {"mode": "ai"}, [{"e": 1}, {"e": 2}])
    assert store.closed
