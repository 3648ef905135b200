"""Hint explanations: the search's figures for a player who wants them, and one plain
sentence for a beginner ("S7 relays twice and lands in your empty S2 after crossing: you
capture 5")."""

from __future__ import annotations

from kiothi_board.ai.search import SearchResult
from kiothi_board.i18n import Msg, joined, tr, trn, trp
from kiothi_board.rules import OpeningAction, Position, Side, owner, pit_name, trace_move

SIDE_NAMES = {Side.S: trp("side", "South"), Side.N: trp("side", "North")}


def _relays(n: int) -> Msg:
    if n == 0:
        return tr("lands")
    if n == 1:
        return tr("relays once and lands")
    if n == 2:
        return tr("relays twice and lands")
    return tr("relays {n} times and lands", n=n)


def _best_capture(position: Position, side: Side) -> int:
    """The biggest capture `side` could make if it were to move in `position`."""
    board, sown, _ = position.packed
    kids = position.engine.children(board, sown, int(side))
    return max((k[3] for k in kids), default=0)


def beginner_reason(position: Position, move: int) -> Msg:
    """Why `move` is a good move, in one sentence a beginner understands."""
    me = position.to_move
    them = SIDE_NAMES[me.other]
    trace = trace_move(position.board, position.sown, me, move, position.variant)
    land = pit_name(trace.landing)
    head = {"pit": pit_name(move), "lands": _relays(trace.relays), "land": land, "them": them}
    if owner(trace.landing) == me and trace.crossed:
        n = trace.captured
        chain = sum(c.seeds for c in trace.captures if c.rule == "R9 chain")
        if chain:
            return tr(
                "{pit} {lands} in your empty {land} after crossing: you capture {n} "
                "({chain} of them from the chain along {them}'s row).",
                n=n,
                chain=chain,
                **head,
            )
        return tr(
            "{pit} {lands} in your empty {land} after crossing: you capture {n}.", n=n, **head
        )
    if owner(trace.landing) == me:
        where = tr("{pit} {lands} in your empty {land} without crossing {them}'s row", **head)
    else:
        where = tr("{pit} {lands} in {them}'s empty {land}", **head)
    return tr("{where}: {why}.", where=where, why=_why(position, move, them))


def beginner_opening(position: Position, action: OpeningAction) -> Msg:
    """Why an opening action (R3) is good, in one sentence a beginner understands."""
    me = position.to_move
    if action.is_pass:
        return tr("Pass: hold a pit. Every pit stays unsown, so none can be captured yet.")
    lift = action.lifts[0]
    n = len(lift.place)
    where = {"pit": pit_name(lift.pit), "to": pit_name(lift.place[0])}
    if n > 1 and len(set(lift.place)) == 1:
        return tr("Lift {pit} and put all {n} seeds in {to}: a big pile sows far later.",
                  n=n, **where)  # fmt: skip
    if all(owner(p) == me for p in lift.place):
        return trn(
            "Lift {pit} and place its seed in {to}: it stays in your own unsown pits, safe "
            "from capture.",
            "Lift {pit} and place its {n} seeds one by one from {to}: they stay in your own "
            "unsown pits, safe from capture.",
            n,
            **where,
        )
    return trn(
        "Lift {pit} and place its seed in {to}: {them} has fewer empty pits to land in.",
        "Lift {pit} and place its {n} seeds one by one from {to}: {them} has fewer empty "
        "pits to land in.",
        n,
        them=SIDE_NAMES[me.other],
        **where,
    )


def _why(position: Position, move: int, them: Msg) -> Msg:
    me = position.to_move
    threat_now = _best_capture(position, me.other)
    after = position.play(move)
    threat_after = 0 if after.over else _best_capture(after, me.other)
    if threat_now > threat_after:
        return tr("no capture, but it spoils {them}'s capture of {n}", them=them, n=threat_now)
    if threat_after == 0:
        return tr("no capture, and {them} has none next move", them=them)
    least = min((_best_capture(p, me.other) for p in _replies(position)), default=threat_after)
    if least < threat_after:
        return tr(
            "no capture; {them} can then capture {n}, but it builds for later",
            them=them,
            n=threat_after,
        )
    return tr(
        "no capture, and it leaves {them} the smallest capture it can ({n})",
        them=them,
        n=threat_after,
    )


def _replies(position: Position) -> list[Position]:
    """The positions after each legal move that do not end the game."""
    out = []
    for p in position.legal_moves():
        nxt = position.play(p)
        if not nxt.over:
            out.append(nxt)
    return out


def proven(margin: int) -> Msg:
    """The verdict of a search that reached the end of every line (`exact`): a proof."""
    if margin > 0:
        return trn(
            "proven to the end: this wins by {n} seed against every answer",
            "proven to the end: this wins by {n} seeds against every answer",
            margin,
        )
    if margin == 0:
        return tr("proven to the end: a draw with the best play of both sides")
    return trn(
        "proven to the end: every move loses, this one by the fewest, {n} seed",
        "proven to the end: every move loses, this one by the fewest, {n} seeds",
        -margin,
    )


def explain_move(position: Position, move: int, res: SearchResult) -> Msg:
    """One or two sentences on why `move` is recommended, from the search's figures."""
    me = position.to_move
    board, sown, side = position.packed
    r = position.engine.sow(board, sown, side, move)
    gain = r[2] if r is not None else 0
    parts: list[object] = [tr("{side} sows {pit}", side=me.letter, pit=pit_name(move))]
    if gain:
        parts.append(trn("capturing {n} seed at once", "capturing {n} seeds at once", gain))
    base = position.captured[me] - position.captured[me.other]
    margin = base + res.score / 100
    if res.exact:
        parts.append(proven(round(margin)))
    else:
        parts.append(
            tr(
                "search depth {depth} expects a margin of {margin} seeds",
                depth=res.depth,
                margin=f"{margin:+.1f}",
            )
        )
    if len(res.pv) > 1:
        parts.append(tr("main line {pits}", pits=" ".join(pit_name(p) for p in res.pv[:8])))
    if len(res.root_scores) > 1:
        runner = res.root_scores[1]
        best = f"{(base * 100 + runner[1]) / 100:+.1f}"
        parts.append(tr("next best {pit} (at most {score})", pit=pit_name(runner[0]), score=best))
    return tr("{parts}.", parts=joined(parts, "; "))
