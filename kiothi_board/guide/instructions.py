"""One line of text for every moment of the game: what to do next, and why a press was wrong.

These are pure functions of the guide's view (the same value the rings are drawn from) and
a few facts the view does not hold (is the side to move an AI, is it thinking, the pace, a
live hint). The terminal simulator, the web twin, the API's `guide` and `wrong` events and
the table in docs/led-guide.md all print these strings, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from kiothi_board.rules import Side, pit_name

__all__ = ["Situation", "instruction", "side_name", "wrong_text"]

_SIDE = {Side.S: "South", Side.N: "North"}
_SPLIT = "each player took the seeds left in their own row"
_ENDS = {
    "repetition": f"Game over: the same position came a third time, so {_SPLIT} (R11)",
    "ply-limit": f"Game over: the move limit was reached, so {_SPLIT} (R11)",
    "agreement": f"Game over by agreement: {_SPLIT} (R13)",
}
_AGAIN = "Hold any pit for a new game."


@dataclass(frozen=True, slots=True)
class Situation:
    """What the instruction is computed from: the guide's view and a few facts beside it."""

    view: View
    ai: bool = False  # the side to move (or whose move is being guided) is the AI
    thinking: bool = False  # the AI is choosing its move
    pace: str = "step"  # step, flow or instant
    hint: int | None = None  # the pit a live hint points at


def side_name(side: Side, ai: bool = False) -> str:
    """`South`, `North (AI)`."""
    return _SIDE[side] + (" (AI)" if ai else "")


def _seeds(n: int) -> str:
    return f"{n} seed" if n == 1 else f"{n} seeds"


def _all(n: int) -> str:
    return "the 1 seed" if n == 1 else f"all {n} seeds"


def _pits(pits: tuple[int, ...] | list[int]) -> str:
    return " ".join(pit_name(p) for p in pits)


def instruction(s: Situation) -> str:
    """The one line that says what to do now."""
    view = s.view
    if isinstance(view, BlankView):
        return "No game: hold any pit for a second to start a new game."
    if isinstance(view, OverView):
        return _over(view)
    if isinstance(view, CheckView):
        marked = f" Marked: {_pits(sorted(view.wrong))}." if view.wrong else ""
        return (
            "Board check: every ring shows the count its pit should hold; press a pit that "
            f"differs to mark it, then leave the check.{marked}"
        )
    if isinstance(view, RestoreView):
        return restore_instruction(view)
    if isinstance(view, OpeningView):
        hint = "" if s.hint is None or view.lifted is not None else _hint(s.hint)
        return _opening(view) + hint
    if isinstance(view, StepsView):
        return _steps(view, s)
    return _idle(view, s)


def _over(view: OverView) -> str:
    """Who won (the winner's score first), and how the game ended, in words (R10-R13)."""
    res = view.result
    if res.end == "abandoned":
        return f"Game over: the game was abandoned, with no winner and no draw (R13). {_AGAIN}"
    s, n = res.captured
    if res.winner is None:
        score = f"A draw, {s}–{n}."
    else:
        won, lost = (s, n) if res.winner is Side.S else (n, s)
        score = f"{_SIDE[res.winner]} wins {won}–{lost}."
    if res.end == "resign" and res.by is not None:
        how = f"Game over: {_SIDE[res.by]} resigned (R13)"
    elif res.end == "no-moves":
        stuck = view.stuck
        who = f"{_SIDE[stuck]} had" if stuck is not None else "the player to move had"
        taker = f"{_SIDE[stuck.other]} took" if stuck is not None else "the other took"
        how = f"Game over: {who} no move left, so {taker} the seeds left on the board (R10)"
    else:
        how = _ENDS.get(str(res.end), f"Game over ({res.end})")
    return f"{how}. {score} {_AGAIN}"


def _idle(view: IdleView, s: Situation) -> str:
    side = view.position.to_move
    if s.ai:
        name = side_name(side, True)
        return f"{name} is thinking…" if s.thinking else f"{name} to move."
    if not view.legal:
        return f"{_SIDE[side]} has no move left."
    hint = "" if s.hint is None else _hint(s.hint)
    return (
        f"{_SIDE[side]} to move: press one of your breathing pits ({_pits(view.legal)}) "
        f"to sow it.{hint}"
    )


def _hint(pit: int) -> str:
    return f" Hint: {pit_name(pit)} (yellow ring)."


def _opening(view: OpeningView) -> str:
    side = _SIDE[view.mover]
    if view.lifted is None:
        return (
            f"{side}'s opening: press one of your pits to lift its seeds and place them "
            "anywhere, or hold a pit to pass."
        )
    if view.hand == 0:
        return f"{side}'s opening: lift another of your pits, or hold a pit to finish."
    return (
        f"{side}'s opening: place the seeds from {pit_name(view.lifted)} one at a time — "
        f"press a pit for each seed, {view.hand} left."
    )


def _steps(view: StepsView, s: Situation) -> str:
    step = view.step
    who = side_name(view.mover, s.ai)
    count = step.board[step.pit] if step.pit >= 0 else 0
    if step.kind == "done":
        return "Done: every ring shows its new count."
    if step.kind == "set":
        target = view.steps[min(view.index + 1, len(view.steps) - 1)].board[step.pit]
        return f"Set {pit_name(step.pit)} to {_seeds(target)}, then press it."
    if view.trace is None:  # an opening action decided by the AI or the API (R3)
        if step.kind == "lift":
            return f"{who} opens: lift {_all(count)} from {pit_name(step.pit)}."
        return f"{who} opens: place one seed in {pit_name(step.pit)} ({step.hand} in hand)."
    flow = s.pace == "flow" or (s.ai and s.pace != "step")
    if view.paused:
        return "Paused: press any pit to go on."
    if step.kind == "lift":
        return f"{who} plays {pit_name(step.pit)}: lift {_all(count)} from it."
    if step.kind == "relay":
        return (
            f"Relay: the last seed fell in a full pit — lift {_all(count)} "
            f"from {pit_name(step.pit)} and sow on."
        )
    if step.kind == "capture":
        pits = [x.pit for x in view.steps[view.index :] if x.kind == "capture"]
        taken = ", ".join(f"{pit_name(p)} ({_seeds(step.board[p])})" for p in pits)
        return f"Capture: take the seeds out of {taken}, pressing each pit when done.{_safe(view)}"
    text = f"Drop one seed in {pit_name(step.pit)} ({step.hand} in hand)."
    return f"Follow the light: {text[0].lower()}{text[1:]} Press a pit to pause." if flow else text


def _safe(view: StepsView) -> str:
    """The pits a capture spares because they were never sown (R7), in words."""
    saved = () if view.trace is None else view.trace.saved
    if not saved:
        return ""
    names = ", ".join(pit_name(x.pit) for x in saved)
    verb = "is" if len(saved) == 1 else "are"
    return f" {names} {verb} safe: never sown yet (R7)."


def wrong_text(view: View, pit: int, *, ai: bool = False, endless: bool = False) -> str:
    """Why a press on `pit` did nothing, in words (the pit flashes red meanwhile)."""
    name = pit_name(pit)
    if isinstance(view, BlankView):
        return "No game yet: hold any pit for a second to start one."
    if isinstance(view, OverView):
        return "The game is over: hold any pit for a new game."
    if isinstance(view, StepsView):
        return _wrong_step(view, pit)
    if isinstance(view, CheckView | RestoreView):
        return f"{name} needs no press now."
    mover = view.position.to_move if isinstance(view, IdleView) else view.mover
    if ai:
        return f"Wait: it is {side_name(mover, True)}'s turn."
    if endless:
        return f"{name}'s move would never end (R6): choose another pit."
    if pit not in mover.pits:
        return f"{name} is {_SIDE[mover.other]}'s pit: press one of yours ({_SIDE[mover]})."
    board = view.position.board if isinstance(view, IdleView) else view.board
    if isinstance(view, OpeningView) and view.lifted is not None:
        return f"{name} cannot take a seed now."
    if board[pit] == 0:
        return f"{name} is empty: choose a pit with seeds."
    return f"{name} cannot be played now."


def _wrong_step(view: StepsView, pit: int) -> str:
    step = view.step
    if step.kind == "done" or step.pit < 0:
        return f"{pit_name(pit)} needs no press now."
    want = pit_name(step.pit)
    does = {
        "lift": f"lift {want}",
        "drop": f"{'drop' if view.trace is not None else 'place'} one seed in {want}",
        "relay": f"lift {want} again (relay)",
        "capture": f"take the seeds out of {want}",
        "set": f"set {want}",
    }[step.kind]
    return f"{pit_name(pit)} is not the lit pit: the guide asks for {want} — {does}."
