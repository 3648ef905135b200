"""Issue 24 #1, #2, #6, #7 in the terminal simulator: what the screen says in exhibition
mode (the reset, the attract loop, the countdown), after every ending, and the keys that
ask first. The daemon runs in-process on a fake clock; keys go through the same
`_sim_keys` and the screen is drawn by the same `screen` as on a terminal."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.controller import TABLE, Controller
from kiothi_board.daemon import Daemon
from kiothi_board.daemon_cli import _sim_keys, screen
from kiothi_board.exhibit.words import ATTRACT
from kiothi_board.rules import INITIAL_BOARD, parse_pit, pit_name
from kiothi_board.sim import NO_GAME, SimKeys

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
EXHIBIT = {"idle_s": 60, "countdown_s": 10, "level": 1}


class Term:
    """A daemon in-process, its terminal keys and screen."""

    def __init__(self, tmp: Path, exhibit: bool = True, **game: object) -> None:
        cfg = validate({
            "api": {"tcp_port": -1, "web_port": -1},
            "exhibit": {"enabled": exhibit, **EXHIBIT},
            "game": {"mode": "ai", "level": 1, "pace": "step", **game},
        })  # fmt: skip
        self.clock = FakeClock()
        self.daemon = Daemon(cfg, sim=True, state_dir=str(tmp), clock=self.clock, seed=5)
        self.keys = SimKeys()
        self.board = self.daemon.board

    def key(self, k: str) -> str:
        _sim_keys(self.daemon, self.keys, k)
        self.tick()
        return self.text()

    def tick(self, n: int = 1, seconds: float = 0.05) -> None:
        for _ in range(n):
            self.clock.advance(seconds)
            self.daemon.tick()

    def text(self) -> str:
        return ANSI.sub("", self.board.loop.ask(lambda: screen(self.daemon, self.keys, None)))

    def lines(self) -> list[str]:
        return self.text().splitlines()

    def labels(self) -> dict[str, str]:
        """`S6` -> `6*` as the screen's pit labels read."""
        return {m[1]: m[2] for m in re.finditer(r"[ ▶]([SN]\d+):(\d+\*?)", self.text())}

    def wait(self, phase: str, limit: int = 4000) -> None:
        director = self.daemon.exhibition.director
        for _ in range(limit):
            if director.status()["phase"] == phase:
                return
            self.tick(4)
        raise AssertionError(f"never {phase}: {director.status()}")

    def play_until_turn(self, moves: int) -> None:
        """Follow the light, pass the opening, play `moves` of South's moves."""
        played = 0
        for _ in range(4000):
            st = self.board.state()
            human = st["position"]["to_move"] == "S" if st.get("position") else False
            pit = self.board.ask(Controller.expected_pit)
            if pit is not None and (human or st["stage"] in ("sow", "guided_open")):
                self.key(_key(pit))
            elif st["stage"] == "open" and not st["ai_to_move"]:
                self.key("^")  # Shift+6 holds S6: pass
            elif st["stage"] == "turn" and not st["ai_to_move"]:
                if played == moves:
                    return
                played += 1
                self.key(_key(parse_pit(st["position"]["legal"][0])))
            else:
                self.tick(4)
        raise AssertionError(self.board.state())

    def close(self) -> None:
        self.daemon.close()


def _key(pit: int) -> str:
    return "1234567890"[pit] if pit < 10 else "qwertyuiop"[19 - pit]


@pytest.fixture
def term(tmp_path: Path) -> Iterator[Term]:
    t = Term(tmp_path)
    yield t
    t.close()


def test_the_exhibition_cycle_in_the_terminal(term: Term) -> None:
    lines = term.lines()
    assert any(line.startswith("Reset to the start:") for line in lines), lines
    assert not any("No game: hold any pit" in line for line in lines)
    assert term.labels()["S6"] == "6*", "the pits read the ring's targets, not 0"
    term.key("^")  # a hold confirms the reset
    assert (
        "Press any pit to play against the board, or a pit on each side for two players."
        in term.lines()
    )
    assert term.labels()["S6"] == "6" and term.labels()["S1"] == "0", "the start, as set"
    term.key("3")
    term.tick(80)  # the two-player window passes: a game against the AI
    assert term.daemon.exhibition.director.status()["phase"] == "playing"
    term.play_until_turn(1)
    term.tick(61 * 20)  # the visitor walks away
    countdown = [line for line in term.lines() if line.startswith("Still playing?")]
    assert countdown and re.search(r"ends in \d+\u00a0s\.", countdown[0]), term.lines()
    term.wait("reset")
    assert term.board.call("games.get", id=1)["result"]["end"] == "abandoned"  # type: ignore[index]
    assert any(line.startswith("Reset to the start: set") for line in term.lines())


@pytest.mark.parametrize("ending", ["x", "a"])
def test_the_reset_after_resign_or_agreement_lists_the_real_changes(
    term: Term, ending: str
) -> None:
    term.key("^")
    term.key("3")
    term.tick(80)
    term.play_until_turn(2)
    left = term.board.ask(Controller.glance).board
    assert left is not None
    prompt = term.key(ending)
    assert str(TABLE["resign" if ending == "x" else "end"].ask_ai)[:40] in prompt.replace("\n", " ")
    assert term.board.state()["stage"] == "turn", "nothing ends before the y"
    over = term.key("y")
    assert "Game over" in over and ("resigned" in over or "agreement" in over), over
    # Issue 31 item 1: the result's line said "Hold any pit for a new game." (a hold then
    # started a game nobody played); it says the reset follows, and a hold starts nothing.
    said = " ".join(over.split())
    assert "Hold any pit for a new game" not in said, said
    assert "Reset the board to the start, then hold any pit: it invites the next" in said, said
    term.key("^")
    assert len(term.board.store.list_games()) == 1, "the hold started a game"
    term.wait("reset")
    text = term.text()
    assert "already holds these counts" not in text
    board = (0,) * 20 if ending == "a" else left
    changed = {pit_name(p) for p in range(20) if board[p] != INITIAL_BOARD[p]}
    marked = {name for name, label in term.labels().items() if label.endswith("*")}
    assert marked == changed
    assert all(term.labels()[pit_name(p)].rstrip("*") == str(INITIAL_BOARD[p]) for p in range(20))


def test_keys_outside_the_exhibition(tmp_path: Path) -> None:
    t = Term(tmp_path, exhibit=False)
    try:
        assert t.board.state()["stage"] == "open"  # the board starts a game by itself
        help_text = t.key("?")
        assert "Keys: 1…0 press S1…S10" in help_text
        assert "Keys: 1…0" not in t.key("v"), "any key closes the help"
        walked = " ".join(t.lines())
        assert "stage" not in walked and "Nothing to walk" in walked, walked
        words = t.text().split("\n\n", 1)[1].splitlines()  # under the board
        assert len(words) > 3 and all(len(line) <= 80 for line in words), "wrapped at words"
        t.play_until_turn(0)
        assert "South to move: press" in " ".join(t.lines())
        assert not any("to move S" in line for line in t.lines()), "said once"
        assert str(TABLE["resign"].ask_ai)[:40] in " ".join(t.key("x").split())
        t.key("y")
        t.tick(11 * 20)  # the result shows, then the board is idle
        assert any(line.startswith("No game") for line in t.lines()), t.lines()
        for k in "hzx":
            assert NO_GAME in " ".join(t.key(k).split()), k  # not new_game()
        text = t.key("n")  # no game: starts at once, nothing to abandon
        assert "abandoned" not in text and t.board.state()["stage"] == "open"
        assert t.key("a") and t.keys.prompt is not None and "AI" in t.keys.prompt
        t.key("q")  # any other key keeps the game
        assert t.board.state()["stage"] == "open" and t.keys.prompt is None
    finally:
        t.close()


def test_x_during_the_ais_move_resigns_for_the_player(tmp_path: Path) -> None:
    t = Term(tmp_path, exhibit=False)
    try:
        t.key("n")  # the first game is the tutorial: a game against the AI instead
        t.key("y")
        assert t.board.state()["settings"]["humans"] == ["S"]
        t.play_until_turn(0)
        t.key(_key(parse_pit(t.board.state()["position"]["legal"][0])))
        while t.board.state()["position"]["to_move"] == "S":  # South's move, guided
            t.key(_key(t.board.ask(Controller.expected_pit)))  # type: ignore[arg-type]
        assert t.board.state()["stage"] in ("turn", "sow")  # the AI's turn or its move
        t.key("x")
        text = t.key("y")
        record = t.board.call("games.get", id=2)
        assert record is not None and record["result"]["by"] == "S", record["result"]
        assert "South resigned (R13). North wins" in " ".join(text.split())
    finally:
        t.close()


def test_the_terminal_invitation_speaks_each_of_the_venues_languages(tmp_path: Path) -> None:
    """Issue 31 item 6: the terminal's invitation stayed in the board's language while the
    page's cycled through the venue's languages."""
    cfg = validate({
        "api": {"tcp_port": -1, "web_port": -1},
        "board": {"language": "en", "languages": ["en", "sw"]},
        "exhibit": {"enabled": True, **EXHIBIT},
    })  # fmt: skip
    clock = FakeClock()
    daemon = Daemon(cfg, sim=True, state_dir=str(tmp_path), clock=clock, seed=5)
    keys = SimKeys()
    try:
        _sim_keys(daemon, keys, "^")  # a hold confirms the reset: the attract loop
        clock.advance(0.05)
        daemon.tick()
        english = "Press any pit to play against the board"
        swahili = ATTRACT.render("sw")[:30]
        seen = set()
        for _ in range(3):  # three turns of 5 s: English, Swahili, English (or the other way)
            text = ANSI.sub("", daemon.board.loop.ask(lambda: screen(daemon, keys, None)))
            seen.add("en" if english in text else "sw" if swahili in text else text)
            clock.advance(5.0)
            daemon.tick()
        assert seen == {"en", "sw"}, seen
    finally:
        daemon.close()
