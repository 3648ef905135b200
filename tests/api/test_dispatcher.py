"""The dispatcher on its own: commands, errors, roles, limits, events, schemas."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kiothi_board.api import COMMANDS, Dispatcher, LineFramer
from kiothi_board.api.dispatcher import ClientSession, RateLimiter
from kiothi_board.api.protocol import TooLong
from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from tests.api.helpers import validator


class Peer:
    """A session whose outbox is read back as messages."""

    def __init__(self, dispatcher: Dispatcher, *, trusted: bool = True) -> None:
        self.d = dispatcher
        self.session: ClientSession = dispatcher.open_session(
            "direct", "test", trusted=trusted, wake=lambda: None
        )
        self.n = 0

    def line(self, raw: bytes | str) -> dict[str, Any] | None:
        return self.d.handle_line(self.session, raw)

    def req(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.n += 1
        msg: dict[str, Any] = {"id": self.n, "cmd": cmd}
        if args:
            msg["args"] = args
        reply = self.line(json.dumps(msg))
        assert reply is not None
        return reply

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.session.outbox.take()]


@pytest.fixture
def disp(board: Board) -> Dispatcher:
    return Dispatcher(board, token="s3cret", sim=True)


def test_framer_splits_lines_and_caps_length() -> None:
    f = LineFramer(10)
    assert f.feed(b"ab\ncd\r\nef") == [b"ab", b"cd"]
    assert f.feed(b"g\n") == [b"efg"]
    out = f.feed(b"x" * 25 + b"\nok\n")
    assert isinstance(out[0], TooLong) and out[0].size == 25 and out[1] == b"ok"
    assert f.feed(b"y" * 30) == [] and f.pending == 0  # nothing buffered past the cap
    out = f.feed(b"\n")
    assert isinstance(out[0], TooLong)


def test_hello_reports_protocol_board_and_role(disp: Dispatcher) -> None:
    p = Peer(disp)
    r = p.req("hello", client="pytest")
    validator("reply.hello").validate(r)
    res = r["result"]
    assert res["protocol"] == "kiothi-api/1" and res["role"] == "control" and res["sim"] is True
    assert res["board"]["south"][0] == "S1" and res["board"]["north"][9] == "N10"
    assert set(COMMANDS) == set(res["commands"])


def test_spectator_reads_but_needs_token_to_control(disp: Dispatcher) -> None:
    p = Peer(disp, trusted=False)
    assert p.req("state")["ok"]
    r = p.req("new_game")
    assert r["error"]["code"] == "unauthorized"
    assert p.req("hello", token="wrong")["error"]["code"] == "unauthorized"
    assert p.session.role == "spectator"
    result = p.req("auth", token="s3cret")["result"]
    assert result["role"] == "control" and len(result["ticket"]) >= 32
    assert p.req("new_game")["ok"]
    # The ticket is a session with the token's rights, for another connection.
    other = Peer(disp, trusted=False)
    assert other.req("hello", ticket=result["ticket"])["result"]["role"] == "control"
    assert Peer(disp, trusted=False).req("auth", ticket="forged-" * 5)["error"]["code"] == (
        "unauthorized"
    )


def test_token_is_never_in_replies_or_logs(
    disp: Dispatcher, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    p = Peer(disp, trusted=False)
    replies = [p.req("hello", token="s3cret"), p.req("auth", token="bad")]
    assert "s3cret" not in json.dumps(replies) and "s3cret" not in caplog.text
    assert "s3cret" not in repr(disp.__dict__.get("config", ""))


def test_a_game_through_the_dispatcher_with_schemas(disp: Dispatcher) -> None:
    p = Peer(disp)
    p.req("subscribe")
    assert p.req("new_game", mode="two", pace="instant", variant={"V2": True, "ply_limit": 6})["ok"]
    for _ in range(6):
        legal = p.req("state")["result"]["state"]["position"]["legal"]
        if not legal:
            break
        assert p.req("move", pit=legal[0])["ok"]
    st = p.req("state")["result"]["state"]
    assert st["stage"] == "over"
    msgs = p.messages()
    ev, rep = validator("event"), validator("reply")
    events = [m for m in msgs if "event" in m]
    for m in msgs:
        (ev if "event" in m else rep).validate(m)
    for m in msgs:
        if "event" not in m and m["ok"]:
            cmd = {"subscribe", "new_game", "state", "move"}
            assert any(validator(f"reply.{c}").is_valid(m) for c in cmd)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "new_game" and "move" in kinds and kinds[-2:] == ["guide", "game_over"]
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"\xff\xfe", "parse_error"),
        ("{", "parse_error"),
        ("[1,2]", "invalid_request"),
        ('{"cmd":"state"}', "invalid_request"),
        ('{"id":true,"cmd":"state"}', "invalid_request"),
        ('{"id":1,"cmd":"state","x":1}', "invalid_request"),
        ('{"id":1,"cmd":"state","v":2}', "unsupported_version"),
        ('{"id":1,"cmd":"rm -rf"}', "unknown_command"),
        ('{"id":1,"cmd":"press","args":{"pit":"S11"}}', "bad_args"),
        ('{"id":1,"cmd":"press","args":{"pit":true}}', "bad_args"),
        ('{"id":1,"cmd":"press","args":[]}', "bad_args"),
        ('{"id":1,"cmd":"state","args":{"extra":1}}', "bad_args"),
        ('{"id":1,"cmd":"new_game","args":{"level":10}}', "bad_args"),
        ('{"id":1,"cmd":"new_game","args":{"level":"hard"}}', "bad_args"),
        ('{"id":1,"cmd":"new_game","args":{"variant":{"V9":true}}}', "bad_args"),
        ('{"id":1,"cmd":"settings.set","args":{"brightness":2}}', "bad_args"),
        ('{"id":1,"cmd":"opening","args":{"action":"Q9>X"}}', "bad_args"),
        ('{"id":1,"cmd":"games.get","args":{"id":999}}', "not_found"),
        ('{"id":1,"cmd":"undo"}', "conflict"),
        ("x" * 20000, "line_too_long"),
    ],
)
def test_malformed_lines_get_errors_and_change_nothing(
    disp: Dispatcher, board: Board, line: bytes | str, code: str
) -> None:
    p = Peer(disp)
    before = (board.state(), board.session.store.current_game())
    r = p.line(line)
    assert r is not None and r["ok"] is False and r["error"]["code"] == code, r
    validator("error").validate(r)
    assert (board.state(), board.session.store.current_game()) == before


def test_illegal_move_is_refused(disp: Dispatcher) -> None:
    p = Peer(disp)
    p.req("new_game", mode="two", variant={"V2": True})
    r = p.req("move", pit="N6")
    assert r["error"]["code"] == "illegal"


def test_echoed_replies_and_blank_lines_are_ignored(disp: Dispatcher) -> None:
    p = Peer(disp)
    assert p.line("") is None and p.line("   \r") is None
    assert p.line('{"id":1,"ok":true,"result":{}}') is None
    assert p.line('{"event":"position","seq":3}') is None
    assert p.messages() == []


def test_rate_limit() -> None:
    clock = FakeClock()
    lim = RateLimiter(2.0, 3.0, clock=clock)
    assert [lim.allow() for _ in range(4)] == [True, True, True, False]
    clock.advance(0.5)
    assert lim.allow() and not lim.allow()


def test_rate_limited_client_gets_errors(board: Board) -> None:
    d = Dispatcher(board, rate=1.0, burst=5.0)
    p = Peer(d)
    codes = [p.req("ping")["ok"] for _ in range(10)]
    assert codes.count(True) == 5
    assert p.req("ping")["error"]["code"] == "rate_limited"


def test_outbox_overflow_replaces_backlog_with_one_notice(board: Board) -> None:
    d = Dispatcher(board, outbox_limit=5)
    p = Peer(d)
    p.req("subscribe")
    p.session.outbox.take()
    for i in range(12):
        board.loop.listeners.emit({"type": "hint", "pit": "S1", "n": i})
    msgs = p.messages()
    assert p.session.outbox.overflowed
    assert msgs[0]["event"] == "overflow"
    validator("event.overflow").validate(msgs[0])


def test_settings_roundtrip_and_event(disp: Dispatcher) -> None:
    p = Peer(disp)
    p.req("subscribe", topics=["settings"])
    r = p.req("settings.set", palette="night", brightness=0.2, level=5)
    validator("reply.settings.set").validate(r)
    assert p.req("settings.get")["result"]["settings"]["palette"] == "night"
    ev = [m for m in p.messages() if m.get("event") == "settings"]
    assert ev and ev[0]["settings"]["level"] == 5
    validator("event.settings").validate(ev[0])


def test_the_adaptive_level_through_the_api(disp: Dispatcher) -> None:
    p = Peer(disp)
    r = p.req("settings.set", level="adaptive")
    validator("reply.settings.set").validate(r)
    assert p.req("settings.get")["result"]["settings"]["level"] == "adaptive"
    assert "game_id" in p.req("new_game", mode="ai", level="adaptive")["result"]


def test_subscribe_filters_topics(disp: Dispatcher, board: Board) -> None:
    p = Peer(disp)
    p.req("subscribe", topics=["hint"])
    board.loop.listeners.emit({"type": "hint", "pit": "S3"})
    board.loop.listeners.emit({"type": "wrong", "pit": "S3", "reason": "not expected"})
    assert [m["event"] for m in p.messages() if "event" in m] == ["hint"]
    p.req("unsubscribe")
    board.loop.listeners.emit({"type": "hint", "pit": "S3"})
    assert [m for m in p.messages() if "event" in m] == []


def test_frame_and_games_and_health(disp: Dispatcher) -> None:
    p = Peer(disp)
    p.req("new_game", mode="two", variant={"V2": True})
    validator("reply.frame").validate(p.req("frame"))
    p.req("end")
    validator("reply.games.list").validate(p.req("games.list", limit=5))
    validator("reply.games.get").validate(p.req("games.get", id=1))
    health = p.req("health")
    validator("reply.health").validate(health)
    from kiothi_board import native  # issue 23: health says which core the AI runs on

    assert health["result"]["ai_core"] == {"core": native.default_core(), "why": native.describe()}


def test_a_seat_plays_its_own_side_only_on_its_own_turn(disp: Dispatcher, board: Board) -> None:
    """The `seat` role (a remote player's): its own pits on its own turn, its own
    resignation; nothing of the staff's, nothing of the other side's."""
    assert Peer(disp).req("new_game", mode="two", pace="instant", variant={"V2": True})["ok"]
    link = Peer(disp).req("seat_link", side="N")["result"]["link"]
    seat = Peer(disp, trusted=False)
    assert seat.req("hello", ticket=link.removeprefix("#seat="))["result"]["role"] == "seat"
    # North is played at the board here: the seat's link is not a way into that side.
    taken = seat.req("press", pit="N6")["error"]
    assert taken["code"] == "unauthorized" and "web player" in taken["message"]
    assert seat.req("resign")["error"]["code"] == "unauthorized"
    new = Peer(disp).req("new_game", mode="two", pace="instant", variant={"V2": True}, web="N")
    assert new["ok"]
    early = seat.req("press", pit="N6")["error"]  # South is to move
    assert early["code"] == "conflict" and "not N's turn" in early["message"]
    other = seat.req("press", pit="S6")["error"]
    assert other["code"] == "unauthorized" and other["message"].startswith("This seat plays N")
    staff = seat.req("settings.set", brightness=0.2)["error"]
    assert staff["code"] == "unauthorized" and "change the settings" in staff["message"]
    assert seat.req("new_game")["error"]["code"] == "unauthorized"
    assert seat.req("resign", side="S")["error"]["code"] == "unauthorized"
    assert Peer(disp).req("press", pit="S6")["ok"]  # South (at the board) plays
    assert seat.req("press", pit="N6")["ok"]  # now North's turn: the seat's pit
    helped = {c["name"]: c["allowed"] for c in seat.req("help")["result"]["commands"]}
    assert helped["press"] and helped["resign"] and not helped["settings.set"]
    assert seat.req("resign")["ok"]  # by default the seat's own side
    assert board.state()["result"]["by"] == "N"
