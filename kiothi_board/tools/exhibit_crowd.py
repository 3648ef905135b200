"""A seeded crowd of visitors for a simulated exhibition day (see `exhibit_day`).

`Crowd` decides, from one seed, who arrives when and how they play. `Day` plays them
through a `BoardProcess` and records what a recount needs; an invariant that breaks
(a board stuck in a phase, a record lost across a power cut) raises at once.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from kiothi_board.tools.exhibit_day import (
    CLOSE_H,
    COUNTDOWN_S,
    HINT_S,
    HOLD_S,
    IDLE_S,
    OPEN_H,
    OVER_S,
    PITS,
    TWO_S,
    BoardProcess,
)

__all__ = ["Crowd", "Day", "Stuck", "Visitor"]


@dataclass
class Visitor:
    """One arrival: when, and how they play."""

    at: float  # seconds after the day's start
    kind: str  # full, leave, pause, two, two-leave
    leave_after: int = 0  # presses before walking away
    wrong_rate: float = 0.05
    hint: bool = False
    switch: bool = False  # holds S9+S10 early in the game: the board's next language


@dataclass
class Crowd:
    """A seeded day of visitors: arrivals while open, a mix of behaviours."""

    seed: int
    hours: float = 12.0
    start_h: int = 7
    visitors: list[Visitor] = field(default_factory=list)

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        t = (OPEN_H - self.start_h) * 3600 + rng.uniform(60, 600)
        close = (CLOSE_H - self.start_h) * 3600
        kinds = ["full"] * 8 + ["leave"] * 6 + ["pause"] * 2 + ["two"] * 3 + ["two-leave"] * 1
        while t < close - 900:
            kind = rng.choice(kinds)
            self.visitors.append(
                Visitor(t, kind, leave_after=rng.randint(3, 60),
                        wrong_rate=rng.choice([0.0, 0.03, 0.08]), hint=rng.random() < 0.4)
            )  # fmt: skip
            t += rng.expovariate(1 / 1800)  # one visitor every half hour on average
        # Who switches the language draws from its own stream: the day's crowd stays the same.
        langs = random.Random(self.seed + 1)
        for v in self.visitors:
            v.switch = langs.random() < 0.3


class Stuck(AssertionError):
    """The board stayed in a phase that should have left by time."""


class Day:
    """Plays a crowd through a board process and keeps what the invariants need."""

    def __init__(self, board: BoardProcess, crowd: Crowd, kills: list[float],
                 unplug_at: float) -> None:  # fmt: skip
        self.board = board
        self.crowd = crowd
        self.rng = random.Random(crowd.seed + 1)
        self.kills = sorted(kills)
        self.unplug_at = unplug_at
        self.t = 0.0
        self.ask = board.start()
        self.state: dict[str, Any] = self.ask("sim.advance", seconds=0.0)
        self.sent = dict.fromkeys(PITS, 0)
        self.switches = 0
        self.langs: dict[str, set[str]] = {"start": set(), "switched": set()}
        self.hints_asked = 0
        self.game_ids: set[int] = set()
        self.kinds: dict[str, int] = {}
        self.rss: list[tuple[int, float, int]] = []  # (process, fake s, RSS kB)
        self.killed_at: list[float] = []
        self.records_before_kill: list[dict[int, Any]] = []
        self.link_seen: list[str] = []
        self.phases: set[str] = set()
        self.countdowns: list[float] = []
        self._next_hour = 3600.0

    # ------------------------------------------------------------------ time
    def advance(
        self, seconds: float, step: float = 1.0, press: str | None = None
    ) -> dict[str, Any]:
        args: dict[str, Any] = {"seconds": seconds, "step": step}
        if press is not None:
            args["press"] = press
            self.sent[press] += 1
        self.state = self.ask("sim.advance", **args)
        self.t += seconds
        self.board.wall = self.state["wall"]
        ex = self.state["exhibit"]
        self.phases.add(ex["phase"])
        if ex["countdown"] is not None:
            self.countdowns.append(ex["countdown"])
        if self.t >= self._next_hour:
            self._next_hour += 3600.0
            self.rss.append((self.board.starts, self.t, self.board.rss_kb()))
        if self.kills and self.t >= self.kills[0]:
            self.kills.pop(0)
            self.power_cut()
        if self.unplug_at and self.t >= self.unplug_at:
            self.unplug_at = 0.0
            self.unplug_and_replug()
        return self.state

    def phase(self) -> str:
        return str(self.state["exhibit"]["phase"])

    def idle_until(self, t: float) -> None:
        """Nobody at the board until `t`: the board must rest (never stuck in a game)."""
        limit = IDLE_S + COUNTDOWN_S + OVER_S + 30
        since_game = None
        while self.t < t:
            self.advance(min(600.0, t - self.t), step=15.0)
            if self.phase() in ("playing", "countdown", "waking"):
                since_game = self.t if since_game is None else since_game
                if self.t - since_game > limit:
                    raise Stuck(f"{self.phase()} for {self.t - since_game:.0f} s with nobody there")
            else:
                since_game = None

    # ------------------------------------------------------------------ faults
    def power_cut(self) -> None:
        self.records_before_kill.append(self.finished_records())
        self.killed_at.append(self.t)
        self.board.kill()
        self.ask = self.board.start()
        self.state = self.ask("sim.advance", seconds=0.0)
        after = self.finished_records()
        lost = {k: v for k, v in self.records_before_kill[-1].items() if after.get(k) != v}
        assert not lost, f"records lost or changed across the kill: {sorted(lost)}"

    def unplug_and_replug(self) -> None:
        device = self.board.device
        hellos = device.hellos
        device.go_silent()  # the cable is pulled: not a byte more
        self.link_seen.append(self._wait_link("down"))
        device.resume()
        self.link_seen.append(self._wait_link("up"))
        assert device.hellos > hellos, "the daemon greeted the device again"
        self.advance(2.0, step=0.5)

    def _wait_link(self, want: str) -> str:
        deadline = time.monotonic() + 60.0
        pause = threading.Event()
        while time.monotonic() < deadline:  # the link's heartbeat runs on real time
            link = self.ask("health")["exhibit"]["link"]
            if link and link["state"] == want:
                return want
            pause.wait(0.05)
        raise AssertionError(f"link never went {want}")

    def finished_records(self) -> dict[int, Any]:
        out: dict[int, Any] = {}
        offset = 0
        while True:
            page = self.ask("games.list", limit=100, offset=offset)["games"]
            for g in page:
                if g["status"] != "current":
                    out[g["id"]] = (g["status"], g["result"], g["finished"])
            if len(page) < 100:
                return out
            offset += 100

    # ------------------------------------------------------------------ visitors
    def confirm_reset(self) -> None:
        if self.phase() == "reset":
            pit = self.rng.choice(PITS)
            self.sent[pit] += 1
            self.ask("sim.hold", pit=pit, seconds=HOLD_S + 0.2)
            self.advance(1.0)
            assert self.phase() in ("attract", "closed"), self.state

    def serve(self, v: Visitor) -> None:
        self.idle_until(v.at)
        if self.phase() == "closed":
            return
        self.confirm_reset()
        self.kinds[v.kind] = self.kinds.get(v.kind, 0) + 1
        south, north = self.rng.choice(PITS[:10]), self.rng.choice(PITS[10:])
        if v.kind.startswith("two"):
            self.advance(1.0, press=south)
            self.advance(TWO_S + 1.0, press=north)
            assert self.state["mode"] == "two", self.state
        else:
            self.advance(TWO_S + 1.0, press=self.rng.choice([south, north]))
            assert self.state["mode"] == "ai", self.state
        assert self.phase() == "playing" and self.state["game_id"], self.state
        self.game_ids.add(int(self.state["game_id"]))
        self.langs["start"].add(str(self.state.get("lang")))
        self.play(v)

    def play(self, v: Visitor) -> None:
        presses = 0
        guard = 0
        while self.phase() in ("playing", "countdown"):
            guard += 1
            assert guard < 5000, f"a game that never ends: {self.state}"
            st = self.state
            if st["stage"] in ("over", "none", None):
                self.advance(1.0)  # the result shows, then the board asks for a reset
                continue
            leaving = v.kind.endswith("leave") and presses >= v.leave_after
            if leaving:
                self.walk_away()
                return
            if v.kind == "pause" and presses == v.leave_after:
                self.advance(HINT_S + 5.0, step=1.0)  # a long think: a hint is offered
                presses += 1
                continue
            if v.switch and presses >= 2 and st["stage"] == "turn" and not st["ai_to_move"]:
                v.switch = False
                self.switch_language()
                continue
            if v.hint and presses >= 6 and st["stage"] == "turn" and not st["ai_to_move"]:
                v.hint = False
                self.ask("hint")  # from the page (or the hint button), then a look at it
                self.hints_asked += 1
                self.advance(1.0, step=0.5)
                presses += 1
                continue
            pit = self.choose(st, v)
            if pit is None:
                self.advance(0.5, step=0.5)
                continue
            if pit == "hold":
                self.sent[st["legal"][0]] += 1
                self.ask("sim.hold", pit=st["legal"][0], seconds=HOLD_S + 0.1)
                self.advance(0.5, step=0.5)
            else:
                self.advance(0.8, step=0.8, press=pit)
            presses += 1
            self.game_ids.add(int(self.state["game_id"] or 0))

    def switch_language(self) -> None:
        """S9+S10 held together: the board speaks the venue's next language."""
        self.sent["S9"] += 1
        self.sent["S10"] += 1
        self.ask("sim.chord", pit="S9", seconds=HOLD_S + 0.2, **{"with": "S10"})
        self.advance(0.5, step=0.5)
        self.switches += 1
        self.langs["switched"].add(str(self.state.get("lang")))

    def choose(self, st: dict[str, Any], v: Visitor) -> str | None:
        if self.rng.random() < v.wrong_rate:
            return self.rng.choice(PITS)  # a wrong press (or, by luck, the right one)
        if st["expect"]:
            return str(st["expect"])
        if st["ai_to_move"] or not st["legal"]:
            return None
        if st["stage"] == "open":
            return "hold"  # a hold on an own pit passes the opening (R3)
        if st["stage"] == "set":
            return "hold"  # a long move: the words say "set the pits, then hold any pit"
        return str(self.rng.choice(st["legal"]))

    def walk_away(self) -> None:
        """Nobody presses: the countdown shows, runs out, the game is abandoned."""
        start = self.t
        while self.phase() != "reset":
            self.advance(2.0, step=1.0)
            if self.t - start > IDLE_S + COUNTDOWN_S + 20:
                raise Stuck(
                    f"an abandoned game still {self.phase()} after {self.t - start} s: {self.state}"
                )

    def run(self) -> None:
        self.advance(300.0, step=5.0)  # 07:05: staff switch the board on and confirm the reset
        self.confirm_reset()
        for v in self.crowd.visitors:
            self.serve(v)
        self.idle_until(self.crowd.hours * 3600)
