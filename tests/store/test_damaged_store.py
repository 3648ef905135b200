"""Issue 21 item 5: a damaged byte costs one game, not the board.

Row damage (a bad UTF-8 byte in a stored text value, JSON that no longer parses) is
quarantined; file damage (a flipped page) is salvaged into a fresh store. The last tests
start the real daemon on the damaged files: on the old code it exited 1 with
`reading game store …: Could not decode to UTF-8 column 'record'`.
"""

from __future__ import annotations

import json
import logging
import socket
import sqlite3
from pathlib import Path

import pytest

from kiothi_board.store.sqlite import SqliteStore
from tests.api.daemon_proc import DaemonProc
from tests.api.helpers import socket_client
from tests.browser import chromium, wait_js

GAMES = 15


def _fill(path: Path, games: int = GAMES) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with SqliteStore(path) as store:
        store.save_settings({"operator": {"level": 5}})
        for i in range(games):
            gid = store.begin_game({"mode": "two", "humans": "SN", "pad": "m" * 300})
            for k in range(3):
                store.append_event(gid, {"k": k, "pad": "e" * 200})
            store.finish_game(gid, {"format": "kiothi-game/1", "i": i, "result": {"winner": "S"}})
        current = store.begin_game({"mode": "two", "humans": "SN"})  # game 16, unfinished
        for k in range(3):
            store.append_event(current, {"k": k})
        store.add_counts("2026-05-01", {"games": games, "presses": 100})
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _damage_rows(path: Path) -> None:
    """Game 3's record gets a byte that is not UTF-8; game 7's meta stops being JSON; the
    unfinished game 16's second event a bad byte; the settings row a bad byte. (A finished
    game is read as its record: a bad byte in its events costs nothing.)"""
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE games SET record = CAST(CAST(record AS BLOB) || x'c3' AS TEXT) WHERE id = 3"
    )
    conn.execute("UPDATE games SET meta = substr(meta, 1, 20) WHERE id = 7")
    conn.execute(
        "UPDATE events SET event = CAST(x'7b22ff22' AS TEXT) WHERE game_id = 16 AND seq = 2"
    )
    conn.execute("UPDATE settings SET json = CAST(x'7bff7d' AS TEXT)")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _flip_page(path: Path) -> int:
    """Trash one page holding game rows in the middle of the file; returns its number."""
    conn = sqlite3.connect(path)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    # dbstat is not in every build: find a page holding game 8's meta by its bytes.
    conn.close()
    data = bytearray(path.read_bytes())
    marker = b'"i":8,'  # game 9's record
    at = data.find(marker)
    assert at > 0
    page = at // size
    data[page * size : (page + 1) * size] = bytes([0xA5]) * size
    path.write_bytes(bytes(data))
    return page


def test_unreadable_games_are_quarantined_and_the_rest_served(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "games.sqlite3"
    _fill(path)
    _damage_rows(path)
    with caplog.at_level(logging.WARNING), SqliteStore(path) as store:
        assert sorted(store.quarantined) == [3, 7, 16]
        games = store.list_games(100)
        assert [g["id"] for g in games] == [i for i in range(GAMES, 0, -1) if i not in (3, 7)]
        assert store.current_game() is None  # game 16 is quarantined: a new one begins
        assert store.get_game(3) is None and store.get_game(4) is not None
        assert store.load_settings() == {}  # the config's settings, with one warning
        assert store.load_settings() == {}
        assert store.get_counts("2026-05-01", "2026-05-01") == {
            "2026-05-01": {"games": GAMES, "presses": 100}
        }
        health = store.health()
        assert health["status"] == "degraded" and health["quarantined"] == [3, 7, 16]
        assert any("settings" in p for p in health["problems"])
        gid = store.begin_game({"mode": "two"})  # the board plays on
        assert gid == GAMES + 2 and store.current_game() == (gid, {"mode": "two"}, [])
    warnings = [r.getMessage() for r in caplog.records if "settings" in r.getMessage()]
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert "Traceback" not in caplog.text
    # kept in the file, untouched
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM games WHERE id IN (3, 7, 16)").fetchone()[0] == 3
    conn.close()


def test_a_flipped_page_is_salvaged_into_a_fresh_store(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    _fill(path)
    _flip_page(path)
    damaged = path.read_bytes()
    with SqliteStore(path) as store:
        report = store.report
        assert report is not None and report.salvage is not None
        recovered, lost = report.salvage.recovered, report.salvage.lost
        assert len(recovered) >= GAMES - 3 and 9 in lost  # a page costs the games on it
        assert sorted(recovered + lost) == list(range(1, GAMES + 2))
        assert [g["id"] for g in store.list_games(100)] == sorted(recovered, reverse=True)
        assert store.get_game(recovered[0])["i"] == recovered[0] - 1  # type: ignore[index]
        assert store.load_settings() == {"operator": {"level": 5}}
        assert store.get_counts("2026-05-01", "2026-05-01")["2026-05-01"]["games"] == GAMES
        health = store.health()
        assert health["status"] == "degraded" and health["salvage"]["lost"] == lost
        assert Path(report.moved_to).read_bytes() == damaged  # kept beside it, unchanged
        assert store.begin_game({}) == GAMES + 2  # no id of a lost game is given again


def _health(port: int) -> dict[str, object]:
    tcp = socket_client(socket.create_connection(("127.0.0.1", port)))
    reply = tcp.request("health")
    games = tcp.request("games.list", {"limit": 100})
    assert reply["ok"] and games["ok"], (reply, games)
    return {"health": reply["result"], "games": [g["id"] for g in games["result"]["games"]]}


def test_the_daemon_starts_on_a_store_with_damaged_rows(tmp_path: Path) -> None:
    _fill(tmp_path / "state" / "games.sqlite3")
    _damage_rows(tmp_path / "state" / "games.sqlite3")
    with DaemonProc(tmp_path, {}, wait=False) as d:
        assert d._ready.wait(60)
        assert d.proc.poll() is None, d.log()
        assert d.tcp_port is not None, d.log()
        got = _health(d.tcp_port)
        assert d.web_port is not None
        with chromium() as browser:  # the operator page tells the staff
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{d.web_port}/operator")
            shown = wait_js(
                page,
                "!document.querySelector('#store-panel').hidden && "
                "document.querySelector('#store-problems').innerText",
            )
            assert "game 3 cannot be read" in shown and "game 16" in shown
    health = got["health"]
    assert isinstance(health, dict)
    assert health["status"] == "degraded" and "store" in health["degraded"]
    assert health["store"]["quarantined"] == [3, 7, 16]
    kept = [i for i in range(1, GAMES + 1) if i not in (3, 7)]
    assert set(kept) <= set(got["games"])  # type: ignore[arg-type]
    log = d.log()
    assert "Traceback" not in log and "game 3 quarantined" in log
    assert "saved settings" in log or "settings row" in log


def test_the_daemon_starts_on_a_store_with_a_flipped_page(tmp_path: Path) -> None:
    _fill(tmp_path / "state" / "games.sqlite3")
    _flip_page(tmp_path / "state" / "games.sqlite3")
    with DaemonProc(tmp_path, {}, wait=False) as d:
        assert d._ready.wait(60)
        assert d.proc.poll() is None, d.log()
        assert d.tcp_port is not None, d.log()
        got = _health(d.tcp_port)
    health = got["health"]
    assert isinstance(health, dict) and health["status"] == "degraded"
    salvage = health["store"]["salvage"]
    assert 9 in salvage["lost"] and salvage["recovered"] >= GAMES - 3
    assert len(set(got["games"]) & set(range(1, GAMES + 2))) == salvage["recovered"]  # type: ignore[arg-type]
    assert "recovered" in d.log() and "Traceback" not in d.log()
    assert json.dumps(health["store"]["problems"]).count("moved aside") == 1


def test_doctor_names_the_unreadable_games(tmp_path: Path) -> None:
    from kiothi_board.config import validate
    from kiothi_board.tools import doctor_system

    _fill(tmp_path / "games.sqlite3")
    _damage_rows(tmp_path / "games.sqlite3")
    config = validate({"board": {"input": "sim"}, "leds": {"output": "sim"}})
    check = doctor_system.store(config, tmp_path, str(tmp_path))
    assert check.status == "warn" and check.data["quarantined"] == [3, 7, 16]
    assert "game 3: record is not UTF-8" in check.detail and "settings" in check.detail
