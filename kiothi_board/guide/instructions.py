"""One line of text for every moment of the game: what to do next, and why a press was wrong.

These are pure functions of the guide's view (the same value the rings are drawn from) and
a few facts the view does not hold (is the side to move an AI, is it thinking, the pace, a
live hint). The terminal simulator, the web twin, the API's `guide` and `wrong` events and
the table in docs/led-guide.md all print these strings, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from kiothi_board.guide.address import to_player
from kiothi_board.guide.restore import RestoreView, restore_instruction
from kiothi_board.guide.views import (
    BlankView,
    CheckView,
    IdleView,
    OpeningView,
    OverView,
    StepsView,
    View,
)
from kiothi_board.i18n import Msg, joined, tr, trn, trp
from kiothi_board.rules import Side, pit_name

__all__ = ["Situation", "instruction", "over_line", "side_name", "wrong_text"]

_SIDE = {Side.S: trp("side", "South"), Side.N: trp("side", "North")}
_ENDS = {
    "repetition": tr(
        "Game over: the same position came a third time, so each player took the seeds left "
        "in their own row (R11)"
    ),
    "ply-limit": tr(
        "Game over: the move limit was reached, so each player took the seeds left in their "
        "own row (R11)"
    ),
    "agreement": tr(
        "Game over by agreement: each player took the seeds left in their own row (R13)"
    ),
}


@dataclass(frozen=True, slots=True)
class Situation:
    """What the instruction is computed from: the guide's view and a few facts beside it."""

    view: View
    ai: bool = False  # the side to move (or whose move is being guided) is the AI
    thinking: bool = False  # the AI is choosing its move
    pace: str = "step"  # step, flow or instant
    hint: int | None = None  # the pit a live hint points at
    web: bool = (
        False  # that side is played from a seat on the web (kiothi_board/controller/seat.py)
    )
    remote: tuple[str, str] | None = None  # the side is another board's: its name, presence


def side_name(side: Side, ai: bool = False, web: bool = False) -> Msg:
    """`South`, `North (AI)`, `North (web player)`."""
    if web:
        return tr("{side} (web player)", side=_SIDE[side])
    return tr("{side} (AI)", side=_SIDE[side]) if ai else _SIDE[side]


_PRESENCE = {"online": trp("presence", "online"), "offline": trp("presence", "offline")}


def _who(side: Side, s: Situation) -> Msg | str:
    """The side's name: another board's own name, else `North (AI)` or `North`."""
    return s.remote[0] if s.remote is not None else side_name(side, s.ai, s.web)


def _seeds(n: int) -> Msg:
    return trn("{n} seed", "{n} seeds", n)


def _all(n: int) -> Msg:
    return trn("the {n} seed", "all {n} seeds", n)


def _pits(pits: tuple[int, ...] | list[int]) -> str:
    return " ".join(pit_name(p) for p in pits)


def _with(line: Msg, extra: Msg | None) -> Msg:
    """`line` followed by `extra` (a hint, a list of marked pits), if any."""
    return line if extra is None else tr("{line} {extra}", line=line, extra=extra)


def instruction(s: Situation) -> Msg:
    """The one line that says what to do now."""
    view = s.view
    if isinstance(view, BlankView):
        return to_player(tr("No game: hold any pit for a second to start a new game."))
    if isinstance(view, OverView):
        return _over(view)
    if isinstance(view, CheckView):
        marked = tr("Marked: {pits}.", pits=_pits(sorted(view.wrong))) if view.wrong else None
        return _with(
            to_player(
                tr(
                    "Board check: every ring shows the count its pit should hold; press a pit "
                    "that differs to mark it, then press S1+S10 together to leave the check."
                )
            ),
            marked,
        )
    if isinstance(view, RestoreView):
        return restore_instruction(view)
    if isinstance(view, OpeningView):
        hint = None if s.hint is None or view.lifted is not None else _hint(s.hint)
        return _with(_opening(view), hint)
    if isinstance(view, StepsView):
        return _steps(view, s)
    return _idle(view, s)


def _over(view: OverView) -> Msg:
    """Who won (the winner's score first), and how the game ended, in words (R10-R13)."""
    if view.result.end == "abandoned":
        return to_player(
            tr(
                "Game over: the game was abandoned, with no winner and no draw (R13). Hold any pit "
                "for a new game."
            )
        )
    how, score = _result(view)
    return to_player(tr("{how}. {score} Hold any pit for a new game.", how=how, score=score))


def over_line(view: OverView, after: Msg) -> Msg:
    """The game-over line with `after` (what follows the result: an exhibition's reset)
    instead of the invitation to hold a pit for a new game."""
    if view.result.end == "abandoned":
        abandoned = tr("Game over: the game was abandoned, with no winner and no draw (R13).")
        return tr("{line} {extra}", line=abandoned, extra=after)
    how, score = _result(view)
    return tr("{how}. {score} {after}", how=how, score=score, after=after)


def _result(view: OverView) -> tuple[Msg, Msg]:
    """How the game ended and the score, in words (R10-R13)."""
    res = view.result
    s, n = res.captured
    if res.winner is None:
        score = tr("A draw, {south}–{north}.", south=s, north=n)
    else:
        won, lost = (s, n) if res.winner is Side.S else (n, s)
        score = tr("{side} wins {won}–{lost}.", side=_SIDE[res.winner], won=won, lost=lost)
    how: Msg
    if res.end == "resign" and res.by is not None:
        how = tr("Game over: {side} resigned (R13)", side=_SIDE[res.by])
    elif res.end == "no-moves":
        stuck = view.stuck
        if stuck is not None:
            how = tr(
                "Game over: {side} had no move left, so {other} took the seeds left on the "
                "board (R10)",
                side=_SIDE[stuck],
                other=_SIDE[stuck.other],
            )
        else:
            how = tr(
                "Game over: the player to move had no move left, so the other took the seeds "
                "left on the board (R10)"
            )
    else:
        how = _ENDS.get(str(res.end)) or tr("Game over ({end})", end=str(res.end))
    return how, score


def _idle(view: IdleView, s: Situation) -> Msg:
    side = view.position.to_move
    if s.remote is not None:
        name, presence = s.remote
        return tr(
            "Waiting for {board}'s move ({presence}).",
            board=name,
            presence=_PRESENCE.get(presence, presence),
        )
    if s.web:
        return tr("Waiting for the web player's move ({side}).", side=_SIDE[side])
    if s.ai:
        name = side_name(side, True)
        return (
            tr("{side} is thinking…", side=name) if s.thinking else tr("{side} to move.", side=name)
        )
    if not view.legal:
        return tr("{side} has no move left.", side=_SIDE[side])
    hint = None if s.hint is None else _hint(s.hint)
    return _with(
        to_player(
            tr(
                "{side} to move: press one of your breathing pits ({pits}) to sow it.",
                side=_SIDE[side],
                pits=_pits(view.legal),
            )
        ),
        hint,
    )


def _hint(pit: int) -> Msg:
    return tr("Hint: {pit} (yellow ring).", pit=pit_name(pit))


def _opening(view: OpeningView) -> Msg:
    side = _SIDE[view.mover]
    if view.lifted is None:
        return to_player(
            tr(
                "{side}'s opening: press one of your pits to lift its seeds and place them "
                "anywhere, or hold a pit to pass.",
                side=side,
            )
        )
    if view.hand == 0:
        return to_player(
            tr("{side}'s opening: lift another of your pits, or hold a pit to finish.", side=side)
        )
    return to_player(
        trn(
            "{side}'s opening: place the seeds from {pit} one at a time — press a pit for each "
            "seed, {n} left.",
            "{side}'s opening: place the seeds from {pit} one at a time — press a pit for each "
            "seed, {n} left.",
            view.hand,
            side=side,
            pit=pit_name(view.lifted),
        )
    )


def _steps(view: StepsView, s: Situation) -> Msg:
    step = view.step
    who = _who(view.mover, s)
    count = step.board[step.pit] if step.pit >= 0 else 0
    pit = pit_name(step.pit) if step.pit >= 0 else ""
    if step.kind == "done":
        return tr("Done: every ring shows its new count.")
    if step.kind == "set":
        target = view.steps[min(view.index + 1, len(view.steps) - 1)].board[step.pit]
        return to_player(tr("Set {pit} to {seeds}, then press it.", pit=pit, seeds=_seeds(target)))
    if view.trace is None:  # an opening action decided by the AI or the API (R3)
        if step.kind == "lift":
            return tr(
                "{side} opens: lift {seeds} from {pit}.", side=who, seeds=_all(count), pit=pit
            )
        return tr(
            "{side} opens: place one seed in {pit} ({n} in hand).", side=who, pit=pit, n=step.hand
        )
    flow = s.pace == "flow" or (s.ai and s.pace != "step")
    if view.paused:
        return to_player(tr("Paused: press any pit to go on."))
    if step.kind == "lift" and s.web:
        return tr("The web player plays {pit}: lift {seeds} from it.", pit=pit, seeds=_all(count))
    if step.kind == "lift":
        return tr("{side} plays {pit}: lift {seeds} from it.", side=who, pit=pit, seeds=_all(count))
    if step.kind == "relay":
        return tr(
            "Relay: the last seed fell in a pit that had seeds — lift {seeds} from {pit} and "
            "sow on.",
            seeds=_all(count),
            pit=pit,
        )
    if step.kind == "capture":
        pits = [x.pit for x in view.steps[view.index :] if x.kind == "capture"]
        taken = joined(
            [tr("{pit} ({seeds})", pit=pit_name(p), seeds=_seeds(step.board[p])) for p in pits]
        )
        line = tr("Capture: take the seeds out of {pits}, pressing each pit when done.", pits=taken)
        return _with(line, _safe(view))
    if flow:
        return to_player(
            tr(
                "Follow the light: drop one seed in {pit} ({n} in hand). Press a pit to pause.",
                pit=pit,
                n=step.hand,
            )
        )
    return tr("Drop one seed in {pit} ({n} in hand).", pit=pit, n=step.hand)


def _safe(view: StepsView) -> Msg | None:
    """The pits a capture spares because they were never sown (R7), in words."""
    saved = () if view.trace is None else view.trace.saved
    if not saved:
        return None
    names = ", ".join(pit_name(x.pit) for x in saved)
    return trn(
        "{pits} is safe: never sown yet (R7).",
        "{pits} are safe: never sown yet (R7).",
        len(saved),
        pits=names,
    )


def wrong_text(
    view: View, pit: int, *, ai: bool = False, endless: bool = False, web: bool = False
) -> Msg:
    """Why a press on `pit` did nothing, in words (the pit flashes red meanwhile)."""
    name = pit_name(pit)
    if isinstance(view, BlankView):
        return to_player(tr("No game yet: hold any pit for a second to start one."))
    if isinstance(view, OverView):
        return to_player(tr("The game is over: hold any pit for a new game."))
    if isinstance(view, StepsView):
        return _wrong_step(view, pit)
    if isinstance(view, CheckView | RestoreView):
        return to_player(tr("{pit} needs no press now.", pit=name))
    mover = view.position.to_move if isinstance(view, IdleView) else view.mover
    if ai:
        return tr("Wait: it is {side}'s turn.", side=side_name(mover, True, web))
    if endless:
        return tr("{pit}'s move would never end (R6): choose another pit.", pit=name)
    if pit not in mover.pits:
        return to_player(
            tr(
                "{pit} is {other}'s pit: press one of yours ({side}).",
                pit=name,
                other=_SIDE[mover.other],
                side=_SIDE[mover],
            )
        )
    board = view.position.board if isinstance(view, IdleView) else view.board
    if isinstance(view, OpeningView) and view.lifted is not None:
        return tr("{pit} cannot take a seed now.", pit=name)
    if board[pit] == 0:
        return tr("{pit} is empty: choose a pit with seeds.", pit=name)
    return tr("{pit} cannot be played now.", pit=name)


def _wrong_step(view: StepsView, pit: int) -> Msg:
    step = view.step
    if step.kind == "done" or step.pit < 0:
        return to_player(tr("{pit} needs no press now.", pit=pit_name(pit)))
    want = pit_name(step.pit)
    does = {
        "lift": tr("lift {pit}", pit=want),
        "drop": tr("drop one seed in {pit}", pit=want)
        if view.trace is not None
        else tr("place one seed in {pit}", pit=want),
        "relay": tr("lift {pit} again (relay)", pit=want),
        "capture": tr("take the seeds out of {pit}", pit=want),
        "set": tr("set {pit}", pit=want),
    }[step.kind]
    return tr(
        "{pit} is not the lit pit: the guide asks for {want} — {does}.",
        pit=pit_name(pit),
        want=want,
        does=does,
    )
