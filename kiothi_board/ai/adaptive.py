"""The adaptive visitor level: it keeps the game close, whoever sits down to play.

Before each of its moves it judges the game (`Adjuster`) and plays that move at one rung
of a ladder of players, from "steer" to level 8 (`RUNGS`; the levels it was calibrated with:
it does not need levels 4, 6 and 7 to keep a game close):

- the **lead** is its captured seeds minus the opponent's, plus half the difference of the
  seeds in the two rows (R11 gives each player their own row at the end);
- ahead by more than `AHEAD` seeds it steps one rung down (two when far ahead), behind by
  more than `BEHIND` it steps one up (two when far behind): it plays just well enough to
  stay level;
- it watches the opponent's moves: an opponent who takes the biggest capture on offer and
  rarely leaves captures behind is no novice, and the adaptive level then never drops below
  `level:2`, so a strong visitor still has to earn the win;
- the lowest rung, "steer", plays the move whose result (after the opponent's biggest
  capture in reply) brings the lead nearest to +1: against a player who cannot capture
  well it gives seeds back, as a kind adult does with a child;
- in the endgame (at most `ENDGAME_SEEDS` seeds on the board) it plays at least level 5
  unless it leads by more than `AHEAD`: late swings (R10) decide close games;
- it never plays below what it must to stay level: when it is behind it climbs as far as
  level 8, and it only wins when its opponent lets it.

Everything is deterministic for a seed (the rungs are seeded players).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kiothi_board.ai.player import AIPlayer, Level
from kiothi_board.ai.thinking import ANY, Hint, MoveBudget, PlayerBase
from kiothi_board.native import Core
from kiothi_board.rules import ROW, Position, Side, pit_name

RungFactory = Callable[[str, int], PlayerBase]
"""Builds a rung's player from its spec and seed (the registry's `make_player`)."""

RUNGS: tuple[str, ...] = (
    "steer",
    "novice:greedy-0.5",
    "level:1",
    "level:2",
    "level:3",
    "level:5",
    "level:8",
)
START = 2  # level 1
STRONG_FLOOR = 3  # level 2: the lowest rung against an opponent who is no novice
AHEAD = 3.0  # seeds of lead above which it eases off
FAR_AHEAD = 8.0  # … two rungs at a time
BEHIND = -2.0  # seeds of lead below which it tightens up
FAR_BEHIND = -8.0
ENDGAME_SEEDS = 16  # seeds left on the board at or below which the endgame rule holds
ENDGAME_RUNG = 5  # level 5: the lowest rung in the endgame unless it leads by more than AHEAD
ADAPTIVE_LEVEL = Level(0, "Adaptive", 10.0, 8)  # the cap of its highest rung


def lead(position: Position, me: Side) -> float:
    """Captured difference plus half the row difference, for `me`, in seeds."""
    b = position.board
    rows = sum(b[:ROW]) - sum(b[ROW:])
    if me == Side.N:
        rows = -rows
    return position.captured[me] - position.captured[me.other] + rows / 2


@dataclass
class Adjuster:
    """Chooses the rung for each move from the lead and the opponent's play."""

    rung: int = START
    good: int = 0
    seen: int = 0
    history: list[int] = field(default_factory=list)

    @property
    def floor(self) -> int:
        """The lowest rung allowed: higher once the opponent has shown it is no novice."""
        if self.seen >= 6 and self.good >= 0.8 * self.seen:
            return STRONG_FLOOR
        return 0

    def observe(self, best_capture: int, taken: int, left_to_us: int) -> None:
        """Record one opponent move: the biggest capture it had, what it took, and the
        biggest capture its move left us (a move with nothing on either side says nothing)."""
        if best_capture == 0 and left_to_us == 0:
            return
        self.seen += 1
        if taken >= best_capture and left_to_us <= max(taken, 1):
            self.good += 1

    def step(self, current_lead: float, seeds_left: int | None = None) -> int:
        """The rung for the next move, given the lead now and the seeds left on the board.

        In the endgame (at most `ENDGAME_SEEDS` seeds on the board) it plays at least
        level 5 unless it leads by more than `AHEAD`: there one slip (R10: the side that runs
        out of moves loses every seed left) decides the game, and a low rung cannot see it.
        The endgame rung is for this move only; the lead-driven rung goes on as before."""
        if current_lead > FAR_AHEAD:
            self.rung -= 2
        elif current_lead > AHEAD:
            self.rung -= 1
        elif current_lead < FAR_BEHIND:
            self.rung += 2
        elif current_lead < BEHIND:
            self.rung += 1
        self.rung = min(max(self.rung, self.floor), len(RUNGS) - 1)
        rung = self.rung
        endgame = seeds_left is not None and seeds_left <= ENDGAME_SEEDS
        if endgame and current_lead <= AHEAD:
            rung = max(rung, ENDGAME_RUNG)
        self.history.append(rung)
        return rung


TARGET = 1.0  # the lead "steer" aims for


class SteerPlayer(AIPlayer):
    """The lowest rung: the move that brings the lead nearest to `TARGET` (see above)."""

    def __init__(self, seed: int = 0, *, core: Core | None = None) -> None:
        super().__init__(Level(0, "Steer", 1.0, 2), seed, core=core, name="steer")

    def choose(self, position: Position, budget: MoveBudget = ANY) -> Hint:
        """The move that keeps the game closest (the opening: a shallow search's)."""
        if position.over or position.phase != "play":
            return super().choose(position, budget)
        me = position.to_move
        with self._lock:
            best: tuple[float, float] | None = None
            move = -1
            for pit in position.legal_moves():
                off = abs(_lead_after(position.play(pit), me) - TARGET)
                key = (-off, self.rng.random())
                if best is None or key > best:
                    best, move = key, pit
        why = f"{pit_name(move)}: keeps the game close."
        return Hint(move, None, lead(position, me), (pit_name(move),), 2, 0, False, why)


def _lead_after(position: Position, me: Side) -> float:
    """`me`'s lead after the opponent's biggest capture in reply (the end counts in full)."""
    if position.over:
        assert position.result is not None
        c = position.result.captured
        return float(c[me] - c[me.other])
    board, sown, side = position.packed
    kids = position.engine.children(board, sown, side)
    reply = max(kids, key=lambda k: k[3])[0]
    return lead(position.play(reply), me)


def _best_capture(position: Position) -> int:
    board, sown, side = position.packed
    return max((k[3] for k in position.engine.children(board, sown, side)), default=0)


def opponent_move(before: Position, now: Position) -> tuple[int, int, int] | None:
    """How the opponent's move from `before` to `now` looked, for `Adjuster.observe`."""
    if before.over or before.phase != "play":
        return None
    for pit in before.legal_moves():
        after = before.play(pit)
        if after.board == now.board and after.sown == now.sown and after.ply == now.ply:
            mover = before.to_move
            taken = after.captured[mover] - before.captured[mover]
            left = 0 if after.over else _best_capture(after)
            return _best_capture(before), taken, left
    return None


class AdaptivePlayer(PlayerBase):
    """`level:adaptive` (see the module docstring). Its rungs are built by `make` (the
    registry's `make_player`, with this player's clock and core: the registry builds this
    class, so it hands it the factory rather than being imported from here)."""

    name = "level:adaptive"
    movetime = ADAPTIVE_LEVEL.movetime

    def __init__(self, seed: int = 0, *, make: RungFactory) -> None:
        super().__init__(seed)
        self._make = make
        self.adjuster = Adjuster()
        self._rungs: dict[int, PlayerBase] = {}
        self._expect: Position | None = None  # the position after our last move
        self.last_rung: str | None = None  # the player its last move was played as

    def new_game(self) -> None:
        """Start again at level 1 with no opinion of the opponent."""
        super().new_game()
        for p in self._rungs.values():
            p.new_game()
        self.adjuster = Adjuster()
        self._expect = None

    def rung_player(self, rung: int) -> PlayerBase:
        """The seeded player of one rung (made on first use)."""
        p = self._rungs.get(rung)
        if p is None:
            p = self._make(RUNGS[rung], self.seed * 10 + rung)
            self._rungs[rung] = p
        return p

    def choose(self, position: Position, budget: MoveBudget = ANY) -> Hint:
        """This move at the rung the game calls for; a hint is level 1's sound advice."""
        budget = replace(budget, max_depth=None)  # each rung plays by its own effort
        if budget.advice:  # a hint: good advice in plain words
            return self.rung_player(START).choose(position, budget)
        with self._lock:
            me = position.to_move
            if self._expect is not None:
                seen = opponent_move(self._expect, position)
                if seen is not None:
                    self.adjuster.observe(*seen)
            if position.phase == "play":
                rung = self.adjuster.step(lead(position, me), sum(position.board))
            else:
                rung = START
            hint = self.rung_player(rung).choose(position, budget)
            self._expect = _after(position, hint)
        # The rung is for the staff (`last_rung`), never in words a player reads: the
        # explanation stays the rung's own.
        self.last_rung = RUNGS[rung]
        return hint


def _after(position: Position, hint: Hint) -> Position | None:
    if hint.opening is not None:
        nxt = position.open(hint.opening)
    else:
        assert hint.move is not None
        nxt = position.play(hint.move)
    return None if nxt.over else nxt
