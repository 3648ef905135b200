"""Hint explanations: the search's figures for a player who wants them, and one plain
sentence for a beginner ("S7 relays twice and lands in your empty S2 after crossing: you
capture 5")."""

from __future__ import annotations

from kiothi_board.ai.search import SearchResult
from kiothi_board.rules import Position, Side, owner, pit_name, trace_move

SIDE_NAMES = {Side.S: "South", Side.N: "North"}


def _relays(n: int) -> str:
    if n == 0:
        return "lands"
    if n == 1:
        return "relays once and lands"
    if n == 2:
        return "relays twice and lands"
    return f"relays {n} times and lands"


def _best_capture(position: Position, side: Side) -> int:
    """The biggest capture `side` could make if it were to move in `position`."""
    board, sown, _ = position.packed
    kids = position.engine.children(board, sown, int(side))
    return max((k[3] for k in kids), default=0)


def beginner_reason(position: Position, move: int) -> str:
    """Why `move` is a good move, in one sentence a beginner understands."""
    me = position.to_move
    them = SIDE_NAMES[me.other]
    trace = trace_move(position.board, position.sown, me, move, position.variant)
    land = pit_name(trace.landing)
    head = f"{pit_name(move)} {_relays(trace.relays)}"
    if owner(trace.landing) == me and trace.crossed:
        n = trace.captured
        chain = sum(c.seeds for c in trace.captures if c.rule == "R9 chain")
        tail = f" ({chain} of them from the chain along {them}'s row)" if chain else ""
        return f"{head} in your empty {land} after crossing: you capture {n}{tail}."
    if owner(trace.landing) == me:
        where = f"{head} in your empty {land} without crossing {them}'s row"
    else:
        where = f"{head} in {them}'s empty {land}"
    threat_now = _best_capture(position, me.other)
    after = position.play(move)
    threat_after = 0 if after.over else _best_capture(after, me.other)
    if threat_now > threat_after:
        why = f"no capture, but it spoils {them}'s capture of {threat_now}"
    elif threat_after == 0:
        why = f"no capture, and {them} has none next move"
    else:
        why = f"no capture, and it leaves {them} the smallest capture it can ({threat_after})"
        least = min(
            (_best_capture(p, me.other) for p in _replies(position)),
            default=threat_after,
        )
        if least < threat_after:
            why = f"no capture; {them} can then capture {threat_after}, but it builds for later"
    return f"{where}: {why}."


def _replies(position: Position) -> list[Position]:
    """The positions after each legal move that do not end the game."""
    out = []
    for p in position.legal_moves():
        nxt = position.play(p)
        if not nxt.over:
            out.append(nxt)
    return out


def explain_move(position: Position, move: int, res: SearchResult) -> str:
    """One or two sentences on why `move` is recommended, from the search's figures."""
    me = position.to_move
    board, sown, side = position.packed
    r = position.engine.sow(board, sown, side, move)
    gain = r[2] if r is not None else 0
    parts = [f"{me.letter} sows {pit_name(move)}"]
    if gain:
        parts.append(f"capturing {gain} seed{'s' if gain != 1 else ''} at once")
    base = position.captured[me] - position.captured[me.other]
    margin = base + res.score / 100
    if res.exact:
        parts.append(f"solved to the end: final margin {margin:+.0f} seeds")
    else:
        parts.append(f"search depth {res.depth} expects a margin of {margin:+.1f} seeds")
    if len(res.pv) > 1:
        parts.append("main line " + " ".join(pit_name(p) for p in res.pv[:8]))
    if len(res.root_scores) > 1:
        runner = res.root_scores[1]
        parts.append(
            f"next best {pit_name(runner[0])} (at most {(base * 100 + runner[1]) / 100:+.1f})"
        )
    return "; ".join(parts) + "."
