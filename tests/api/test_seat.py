"""A seat on the web (issue 34): the seat link, the seat's session, a game against the board."""

from __future__ import annotations

import json
import random

import pytest

from kiothi_board.api import Dispatcher
from kiothi_board.api.access import AccessPolicy
from kiothi_board.board import Board
from kiothi_board.clock import FakeClock
from kiothi_board.controller import Controller
from kiothi_board.controller.table import TABLE
from kiothi_board.rules import parse_record, pit_name
from tests.api.conftest import make_board
from tests.api.test_dispatcher import Peer


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def disp(board: Board, clock: FakeClock) -> Dispatcher:
    access = AccessPolicy(token="s3cret", clock=clock, addresses=())
    d = Dispatcher(board, sim=True, access=access, clock=clock, rate=1e6, burst=1e6)
    d.web_url = lambda: "http://board.local:8420/"
    return d


def seated(disp: Dispatcher, side: str = "N", **kw: object) -> Peer:
    """A web page that opened a fresh seat link for `side` (its session ticket: `.ticket`)."""
    link = Peer(disp).req("seat_link", side=side, **kw)["result"]
    assert link["url"] == "http://board.local:8420/" + link["link"]
    seat = Peer(disp, trusted=False)
    hello = seat.req("hello", ticket=link["link"].removeprefix("#seat="))["result"]
    assert hello["role"] == "seat" and hello["seat"] == side and hello["ticket"]
    seat.ticket = hello["ticket"]  # type: ignore[attr-defined]
    return seat


def test_a_seat_link_is_good_once_and_expires(disp: Dispatcher, clock: FakeClock) -> None:
    link = Peer(disp).req("seat_link", side="N", expires=60)["result"]
    ticket = link["link"].removeprefix("#seat=")
    assert link["side"] == "N" and link["expires"] == pytest.approx(clock.wall() + 60, abs=1)
    first = Peer(disp, trusted=False)
    session = first.req("hello", ticket=ticket)["result"]["ticket"]
    again = Peer(disp, trusted=False).req("hello", ticket=ticket)
    assert again["error"]["code"] == "unauthorized"  # spent on first use
    # The seat's own session ticket brings it back as the same seat (a reconnection).
    back = Peer(disp, trusted=False).req("hello", ticket=session)["result"]
    assert (back["role"], back["seat"]) == ("seat", "N")
    late = Peer(disp).req("seat_link", side="S", expires=60)["result"]["link"]
    clock.advance(61)
    expired = Peer(disp, trusted=False).req("hello", ticket=late.removeprefix("#seat="))
    assert expired["error"]["code"] == "unauthorized"
    spectator = Peer(disp, trusted=False)
    assert spectator.req("seat_link", side="N")["error"]["code"] == "unauthorized"
    seat = seated(disp)
    refused = seat.req("seat_link", side="N")["error"]
    assert refused["code"] == "unauthorized" and refused["message"].startswith("This seat plays N")


def test_a_seat_plays_north_against_the_board(disp: Dispatcher, board: Board) -> None:
    """A whole game, instant pace: South at the board (its pits pressed), North from the
    seat (`move`); every staff command and every press on South's pits refused."""
    local = Peer(disp)
    assert local.req("new_game", mode="two", web="N", pace="instant", variant={"V2": True})["ok"]
    state = board.state()
    assert state["settings"]["humans"] == ["S"] and state["settings"]["web"] == ["N"]
    seat = seated(disp)
    for spec in TABLE.doors():
        if spec.role in ("control", "staff"):
            got = seat.req(spec.name)["error"]
            assert got["code"] == "unauthorized", spec.name
    rng = random.Random(3)
    for _ in range(5000):
        state = board.state()
        if state["stage"] != "turn":
            break
        pos = state["position"]
        pick = rng.choice(pos["legal"])
        if pos["to_move"] == "S":
            assert seat.req("move", pit=pick)["error"]["code"] == "unauthorized"
            assert "Waiting" not in state["instruction"]
            assert local.req("press", pit=pick)["ok"]  # the hand at the board lifts it
        else:
            assert state["instruction"].startswith("Waiting for the web player's move")
            assert seat.req("press", pit="S1")["error"]["code"] == "unauthorized"
            got = seat.req("move", pit=pick)
            assert got["ok"], got
    assert board.state()["stage"] == "over"
    gid = board.state()["game_id"]
    record = parse_record(json.dumps(local.req("games.get", id=gid)["result"]["game"]))
    *_, (_, _, last) = record.replay()  # the stored record replays to its stored result
    assert last.result == record.result and record.result is not None


def test_a_seat_waits_its_turn_and_cannot_play_illegal(disp: Dispatcher, board: Board) -> None:
    assert Peer(disp).req("new_game", mode="two", web="N", pace="step", variant={"V2": True})["ok"]
    seat = seated(disp)
    early = seat.req("move", pit="N6")["error"]
    assert early["code"] == "conflict" and "not N's turn" in early["message"]
    Peer(disp).req("move", pit="S6")  # South chooses; the board guides the hand
    while board.ask(Controller.expected_pit) is not None:
        board.press(board.ask(Controller.expected_pit))
    legal = board.state()["position"]["legal"]
    empty = next(pit_name(p) for p in range(10, 20) if pit_name(p) not in legal)
    assert seat.req("move", pit=empty)["error"]["code"] == "illegal"
    assert seat.req("move", pit=legal[0])["ok"]
    line = board.state()["instruction"]
    assert line.startswith(f"The web player plays {legal[0]}: lift ")


def test_an_agreement_needs_both_players(disp: Dispatcher, board: Board) -> None:
    local = Peer(disp)
    assert local.req("new_game", mode="two", web="N", pace="instant", variant={"V2": True})["ok"]
    seat = seated(disp)
    assert seat.req("end")["ok"]  # an offer, not the end
    state = board.state()
    assert state["stage"] == "turn" and state["offer"] == {"kind": "end", "side": "N"}
    assert state["instruction"].startswith("The web player offers to end the game")
    assert seat.req("end", side="S")["error"]["code"] == "unauthorized"
    assert local.req("press", pit=board.state()["position"]["legal"][0])["ok"]
    assert board.state()["offer"] is None  # a move played withdraws it
    assert local.req("end")["ok"]  # now the board's player offers
    assert board.state()["offer"] == {"kind": "end", "side": "S"}
    assert seat.req("end")["ok"]  # and the seat accepts
    assert board.state()["result"]["end"] == "agreement"


def test_a_takeback_takes_back_the_web_players_move(disp: Dispatcher, board: Board) -> None:
    local = Peer(disp)
    assert local.req("new_game", mode="two", web="N", pace="instant", variant={"V2": True})["ok"]
    seat = seated(disp)
    assert local.req("press", pit=board.state()["position"]["legal"][0])["ok"]
    before = board.state()["position"]
    assert seat.req("move", pit=before["legal"][0])["ok"]
    assert seat.req("undo")["ok"]  # asks
    assert board.state()["offer"] == {"kind": "undo", "side": "N"}
    assert local.req("undo")["ok"]  # the board's player agrees: N's move is taken back
    while board.state()["stage"] == "set":
        board.press(0, hold=True)  # the hand sets the board back: one hold confirms
    assert board.state()["position"] == before


def test_the_board_says_the_web_players_move_in_its_own_language() -> None:
    ctl = make_board()
    try:
        ctl.call("new_game", mode="two", web="N", pace="step", variant={"V2": True})
        ctl.call("move", pit="S6")
        while ctl.ask(Controller.expected_pit) is not None:
            ctl.press(ctl.ask(Controller.expected_pit))  # the hand sows South's move
        pit = ctl.state()["position"]["legal"][0]
        ctl.call("move", pit=pit)  # as the seat's `move`: the web side's choice
        said = {
            "en": "The web player plays",
            "sw": "Mchezaji wa mtandaoni anacheza",
            "fr": "La personne sur le web joue",
            "de": "Der Web-Spieler spielt",
        }
        line = ctl.state()["instruction"]  # a catalog message, said in the reader's language
        for lang, words in said.items():
            assert line.render(lang).startswith(f"{words} {pit}"), lang
    finally:
        ctl.close()


def test_a_new_seat_link_retires_the_last_visitors_seat(disp: Dispatcher) -> None:
    """The phone that played North for the last visitor keeps its connection and its session
    ticket; once the staff make a link for the next visitor, neither plays North any more."""
    earlier = seated(disp, "N")
    ticket = earlier.ticket  # type: ignore[attr-defined]
    new = Peer(disp).req("new_game", mode="two", pace="instant", variant={"V2": True}, web="N")
    assert new["ok"]
    assert Peer(disp).req("press", pit="S6")["ok"]
    later = seated(disp, "N")
    refused = earlier.req("press", pit="N6")["error"]
    assert refused["code"] == "unauthorized" and "someone else" in refused["message"]
    back = Peer(disp, trusted=False).req("hello", ticket=ticket)
    assert "error" in back or back["result"]["role"] != "seat"
    pressed = later.req("press", pit="N6")
    assert pressed["ok"], pressed
    assert seated(disp, "S").req("state")["ok"]  # a link for South leaves North's seat alone
    assert later.req("resign")["ok"]
