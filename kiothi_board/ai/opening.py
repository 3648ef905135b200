"""The AI's opening redistribution (R3): a candidate set judged by search, never a dice roll.

A lift of n seeds could be placed in 20^n ways; almost all of them are pointless. The
candidates are the placements a player would consider:

- pass (every pit stays unsown and protected by R7);
- pile: all seeds on one own pit, building a pile that reaches round the board;
- spread: one seed each into consecutive own pits, filling empty pits so that later
  sowings relay (R5) instead of landing, and keeping the seeds in the protected row;
- feed: one seed each into consecutive opponent pits, so that the opponent's laps relay
  on where they would have landed (blocking their captures).

Every candidate is played, the other side is assumed to pass (South) or play starts (North),
and a shallow search ranks them all; the best few get a deeper search.

The effort levels bound the whole decision by nodes (`max_nodes`), not by the clock, so it
is as deterministic as their moves and the same on either core; the clock-based level (9)
spends half its budget. A `stop` ends it at once with the best choice so far.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from kiothi_board.ai.search import Searcher
from kiothi_board.clock import Clock
from kiothi_board.rules import PASS, ROW, Lift, OpeningAction, Position, Side, pit_name

GROWTH = 10  # how much more a search two plies deeper costs, for planning the rounds
# The clock's level ranks candidates for at most this share of its budget (its rounds
# stop starting at half of it): ranking all 146–200 of them on the Python path took
# 3.5–5.95 s of a 0.8 s budget under load.
RANKING_SHARE = 0.35


@dataclass(frozen=True, slots=True)
class Candidate:
    """One opening action with the plan it stands for (for the explanation)."""

    action: OpeningAction
    plan: str


def candidates(position: Position) -> list[Candidate]:
    """The sensible opening actions for the side to move, duplicates removed."""
    side = position.to_move
    own = list(side.pits)
    opp = list(side.other.pits)
    out = [Candidate(PASS, "pass: keep every pit unsown, so R7 protects all of them")]
    seen = {position.board}
    for p in own:
        n = position.board[p]
        if not n:
            continue
        plans: list[tuple[tuple[int, ...], str]] = []
        for t in own:
            if t != p:
                plans.append(
                    ((t,) * n, f"pile all {n} on {pit_name(t)} (a pile that reaches round)")
                )
        for i in range(ROW):
            spots = tuple(own[(i + k) % ROW] for k in range(n))
            plans.append(
                (
                    spots,
                    f"spread one each from {pit_name(spots[0])} "
                    "(relays, kept in the protected row)",
                )
            )
        for i in range(ROW):
            spots = tuple(opp[(i + k) % ROW] for k in range(n))
            plans.append(
                (spots, f"feed one each from {pit_name(spots[0])} (blocks the opponent's landings)")
            )
        for spots, plan in plans:
            board = list(position.board)
            board[p] = 0
            for s in spots:
                board[s] += 1
            key = tuple(board)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                Candidate(OpeningAction((Lift(p, spots),)), f"lift {pit_name(p)} and {plan}")
            )
    return out


def _interleaved(cands: list[Candidate]) -> list[Candidate]:
    """Pass first, then one plan of each lifted pit in turn: a ranking cut by the clock
    still weighs every pit and every kind of plan, not only the first pit's piles."""
    queues: dict[tuple[int, str], list[Candidate]] = {}
    for cand in cands[1:]:
        kind = cand.plan.split(" and ", 1)[-1].split(" ", 1)[0]  # pile, spread or feed
        queues.setdefault((cand.action.lifts[0].pit, kind), []).append(cand)
    out = cands[:1]
    for i in range(max((len(q) for q in queues.values()), default=0)):
        out.extend(q[i] for q in queues.values() if i < len(q))
    return out


def _play_position(position: Position, action: OpeningAction) -> Position:
    """The first play position after `action`, assuming North passes after South."""
    nxt = position.open(action)
    if nxt.phase == "opening":
        nxt = nxt.open(PASS)
    return nxt


@dataclass(frozen=True, slots=True)
class OpeningChoice:
    """The chosen opening action, its score for the mover (centi-seeds) and the runner-up list."""

    action: OpeningAction
    score: int
    depth: int
    plan: str
    pass_score: int
    ranked: list[tuple[Candidate, int]]
    nodes: int


def choose_opening(
    position: Position,
    searcher: Searcher,
    *,
    budget: float,
    clock: Clock,
    stop: threading.Event | None = None,
    max_depth: int = 8,
    max_nodes: int | None = None,
) -> OpeningChoice:
    """Rank the candidates by a 2-ply search, then search the best few deeper.

    With `max_nodes`, the decision searches at most that many nodes: a deeper round starts
    only when its estimated cost (the last round's nodes a candidate, times `GROWTH`) fits
    in what is left, and a round cut short by the cap is not used."""
    mover = position.to_move
    start = clock.now()
    deadline = start + budget
    cap = max_nodes
    used = 0

    def stopped() -> bool:
        return stop is not None and stop.is_set()

    def value(cand: Candidate, depth: int) -> int | None:
        """The candidate's score for the mover, or None if the search was cut short."""
        nonlocal used
        pos = _play_position(position, cand.action)
        if pos.over:
            cap_ = pos.captured
            return 100 * (cap_[mover] - cap_[mover.other])
        board, sown, side = pos.packed
        res = searcher.search(
            board,
            sown,
            side,
            max_depth=depth,
            deadline=None if cap is not None else deadline,
            stop=stop,
            game_history={pos.key: 1},
            plies_left=_plies_left(pos),
            max_nodes=None if cap is None else max(cap - used, 1),
        )
        used += res.nodes
        if res.depth < depth and not res.exact:
            return None  # the stop, the clock or the node cap came first
        return res.score if side == int(mover) else -res.score

    cands = candidates(position) if cap is not None else _interleaved(candidates(position))
    ranked: list[tuple[Candidate, int]] = []
    for cand in cands:
        if stopped() or (cap is not None and used >= cap):
            break
        if cap is None and ranked and clock.now() >= start + budget * RANKING_SHARE:
            break  # the clock's level: rank what fits, so the deeper rounds get their time
        score = value(cand, 2)
        if score is None:
            break
        ranked.append((cand, score))
    ranked.sort(key=lambda cs: -cs[1])
    depth_done = 2
    top = ranked[:6]
    depth = 4
    per_candidate = used / max(len(ranked), 1)
    while top and depth <= max_depth and not stopped():
        if cap is not None and used + per_candidate * len(top) * GROWTH > cap:
            break
        if cap is None and clock.now() >= start + budget * 0.5:
            break
        before = used
        deeper: list[tuple[Candidate, int]] = []
        for cand, _ in top:
            score = value(cand, depth)
            if score is None:
                deeper = []
                break
            deeper.append((cand, score))
        if not deeper:
            break
        deeper.sort(key=lambda cs: -cs[1])
        per_candidate = (used - before) / len(top)
        top = deeper
        depth_done = depth
        depth += 2
    final = top or [(cands[0], 0)]
    chosen, score = final[0]
    pass_score = next((s for c, s in ranked if c.action.is_pass), 0)
    return OpeningChoice(chosen.action, score, depth_done, chosen.plan, pass_score, final, used)


def _plies_left(pos: Position) -> int | None:
    limit = pos.variant.ply_limit
    return None if limit is None else limit - pos.ply


def explain_opening(choice: OpeningChoice, mover: Side) -> str:
    """A sentence for the hint output: what the chosen action does and why it was chosen."""
    margin = choice.score / 100
    if choice.action.is_pass:
        return (
            f"{mover.letter}: pass. No redistribution the search tried beats keeping every pit "
            f"unsown (expected margin {margin:+.1f} seeds at depth {choice.depth})."
        )
    gain = (choice.score - choice.pass_score) / 100
    return (
        f"{mover.letter}: {choice.action} — {choice.plan}. The search (depth {choice.depth}, "
        f"{len(choice.ranked)} finalists) expects {margin:+.1f} seeds, "
        f"{gain:+.1f} against passing."
    )
