"""The immutable `Position` (RULES.md "Records and positions") and the game flow R3, R10–R12."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from kiothi_board.errors import IllegalMoveError, NotationError
from kiothi_board.rules.actions import OpeningAction, parse_opening
from kiothi_board.rules.board import PITS, ROW, SEEDS, Side, owner, parse_pit, pit_name
from kiothi_board.rules.fast import Engine, engine_for, pack, pack_flags
from kiothi_board.rules.outcome import End, Outcome
from kiothi_board.rules.sowing import SowTrace, apply_flags, trace_move
from kiothi_board.rules.variant import STANDARD, Variant

Phase = Literal["opening", "play", "over"]
Result = Outcome  # the name the rest of the package used before R13's endings

INITIAL_BOARD = (0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6)  # R2


@dataclass(frozen=True, slots=True)
class Position:
    """A complete game state: board, sown flags, captures, side to move, phase and ply.

    Immutable; `play`, `play_traced` and `open` return new positions. `history` holds the
    repetition keys (R11) since the last capture or flag change; no earlier position can
    recur, since seeds on the board and sown flags only ever decrease and increase.
    """

    board: tuple[int, ...] = INITIAL_BOARD
    sown: tuple[bool, ...] = (False,) * PITS
    captured: tuple[int, int] = (0, 0)
    to_move: Side = Side.S
    phase: Phase = "opening"
    ply: int = 0
    variant: Variant = STANDARD
    history: tuple[int, ...] = field(default=(), compare=True)
    result: Result | None = None
    _legal: tuple[int, ...] | None = field(default=None, init=False, compare=False, repr=False)

    # ----------------------------------------------------------------- construction
    @classmethod
    def initial(cls, variant: Variant = STANDARD) -> Position:
        """The position before the first action (R2; V2 skips the opening, V5 sets flags)."""
        pos = cls(variant=variant)
        if variant.V2:
            return pos._start_play()
        return pos

    def __post_init__(self) -> None:
        if len(self.board) != PITS or set(map(type, self.board)) != {int} or min(self.board) < 0:
            raise NotationError(f"board must be 20 non-negative counts, got {self.board!r}")
        if len(self.sown) != PITS or set(map(type, self.sown)) != {bool}:
            raise NotationError(f"sown must be 20 booleans, got {self.sown!r}")
        if sum(self.board) + sum(self.captured) != SEEDS:
            raise NotationError(
                f"seeds on the board ({sum(self.board)}) and captured ({sum(self.captured)}) "
                f"must add up to {SEEDS}"
            )
        if self.phase not in ("opening", "play", "over"):
            raise NotationError(f"bad phase {self.phase!r}")

    def _evolve(self, **changes: Any) -> Position:
        """A copy with `changes`, made by the rules themselves: their moves keep every
        invariant `__post_init__` checks, so the copy skips the checks (and the legal-move
        cache starts empty)."""
        new = object.__new__(Position)
        for name in _FIELDS:
            object.__setattr__(new, name, changes.get(name, getattr(self, name)))
        object.__setattr__(new, "_legal", None)
        return new

    # ----------------------------------------------------------------- views
    @property
    def engine(self) -> Engine:
        """The fast-path engine of this position's variant."""
        return engine_for(self.variant)

    @property
    def packed(self) -> tuple[int, int, int]:
        """`(board, sown, side)` in the fast path's packed form."""
        return pack(self.board), pack_flags(self.sown), int(self.to_move)

    @property
    def key(self) -> int:
        """The repetition key of R11: board, sown flags and side to move in one int."""
        board, sown, side = self.packed
        return board | sown << (8 * PITS) | side << (8 * PITS + PITS)

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase == "over"

    def legal_moves(self) -> list[int]:
        """The pits that may be lifted now, in index order.

        In the opening: the mover's non-empty pits (R3). In play: non-empty pits whose
        sowing ends within 1,000 laps (R4, R6). Game over: none.
        """
        cached = self._legal
        if cached is None:
            if self.phase == "over":
                cached = ()
            elif self.phase == "opening":
                cached = tuple(p for p in self.to_move.pits if self.board[p])
            else:
                board, sown, side = self.packed
                cached = tuple(self.engine.legal_moves(board, sown, side))
            # Worked out once per position (the guide, the rules and the API all ask).
            object.__setattr__(self, "_legal", cached)
        return list(cached)

    def endless_moves(self) -> list[int]:
        """The mover's non-empty pits whose sowing never ends (R6), in play."""
        if self.phase != "play":
            return []
        board, sown, side = self.packed
        return self.engine.endless_moves(board, sown, side)

    # ----------------------------------------------------------------- playing
    def play(self, pit: int | str) -> Position:
        """The position after the sowing move `pit` (an index or a name such as `S6`)."""
        return self.play_traced(pit)[0]

    def play_traced(self, pit: int | str) -> tuple[Position, SowTrace]:
        """Play a sowing move and return the new position with its `SowTrace`."""
        index = parse_pit(pit) if isinstance(pit, str) else pit
        if self.phase != "play":
            state = "over" if self.over else "in the opening"
            raise IllegalMoveError(f"cannot sow {_name(index)}: the game is {state}")
        trace = trace_move(self.board, self.sown, self.to_move, index, self.variant)
        cap = list(self.captured)
        cap[self.to_move] += trace.captured
        nxt = self._evolve(
            board=trace.board_after,
            sown=apply_flags(self.sown, trace),
            captured=(cap[0], cap[1]),
            to_move=self.to_move.other,
            ply=self.ply + 1,
        )
        irreversible = bool(trace.captures or trace.flags_set)
        return nxt._after_move(irreversible), trace

    def open(self, action: OpeningAction | str) -> Position:
        """The position after an opening action (R3; V1 allows two lifts)."""
        if isinstance(action, str):
            action = parse_opening(action)
        if self.phase != "opening":
            raise IllegalMoveError(f"opening action {str(action)!r} outside the opening phase")
        limit = 2 if self.variant.V1 else 1
        if len(action.lifts) > limit:
            raise IllegalMoveError(
                f"opening action {str(action)!r} lifts {len(action.lifts)} pits; "
                f"at most {limit} {'is' if limit == 1 else 'are'} allowed"
                + ("" if self.variant.V1 else " (V1 allows two)")
            )
        board = list(self.board)
        side = self.to_move
        for lift in action.lifts:
            name = pit_name(lift.pit)
            if owner(lift.pit) != side:
                raise IllegalMoveError(
                    f"opening action {str(action)!r}: {name} is not {side.letter}'s pit (R3)"
                )
            seeds = board[lift.pit]
            if not seeds:
                raise IllegalMoveError(f"opening action {str(action)!r}: {name} is empty (R3)")
            if len(lift.place) != seeds:
                raise IllegalMoveError(
                    f"opening action {str(action)!r}: {name} holds {seeds} seeds but "
                    f"{len(lift.place)} placements are given"
                )
            board[lift.pit] = 0
            for p in lift.place:
                board[p] += 1
        nxt = self._evolve(board=tuple(board), to_move=side.other, ply=self.ply + 1)
        if side == Side.N:
            return nxt._start_play()
        return nxt._check_ply_limit()

    def apply(self, text: str) -> Position:
        """Apply an action in text notation: a move (`S6`) or, in the opening, `S7>…`/`pass`."""
        if self.phase == "opening":
            return self.open(text)
        return self.play(text)

    # ----------------------------------------------------------------- game flow
    def _start_play(self) -> Position:
        sown = self.sown
        if self.variant.V5:  # V5: pits empty when sowing starts count as sown
            sown = tuple(f or not c for f, c in zip(sown, self.board, strict=True))
        pos = self._evolve(phase="play", sown=sown, to_move=Side.S)
        return pos._evolve(history=(pos.key,))._check_end()

    def _after_move(self, irreversible: bool) -> Position:
        key = self.key
        history = (key,) if irreversible else (*self.history, key)
        return self._evolve(history=history)._check_end()

    def _check_end(self) -> Position:
        if not self.legal_moves():  # R10: the opponent captures every seed left
            cap = list(self.captured)
            cap[self.to_move.other] += sum(self.board)
            return self._finish((cap[0], cap[1]), "no-moves")
        if self.history.count(self.key) >= 3:  # R11
            return self._split("repetition")
        return self._check_ply_limit()

    def _check_ply_limit(self) -> Position:
        limit = self.variant.ply_limit
        if limit is not None and self.ply >= limit:
            return self._split("ply-limit")
        return self

    def _split(self, end: End) -> Position:
        """End the game with each player capturing the seeds in their own row (R11)."""
        s = self.captured[0] + sum(self.board[:ROW])
        n = self.captured[1] + sum(self.board[ROW:])
        return self._finish((s, n), end)

    def _finish(self, captured: tuple[int, int], end: End) -> Position:
        return self._evolve(
            board=(0,) * PITS,
            captured=captured,
            phase="over",
            result=Result.of(captured, end),
        )

    def end_by_agreement(self) -> Position:
        """R13: both agree to end; each player takes their own row (as R11), R12 decides."""
        self._need_not_over()
        return self._split("agreement")

    def resign(self, by: Side) -> Position:
        """R13: `by` resigns; the opponent wins whatever the counts, no seeds move."""
        self._need_not_over()
        return self._evolve(phase="over", result=Outcome.resignation(by, self.captured))

    def abandon(self) -> Position:
        """R13: the game is left unfinished; no seeds move, no winner."""
        self._need_not_over()
        return self._evolve(phase="over", result=Outcome.abandonment(self.captured))

    def end(self, outcome: Outcome) -> Position:
        """Apply an ending the players chose (R13), as named by `outcome` (its counts aside)."""
        if outcome.end == "resign":
            assert outcome.by is not None
            return self.resign(outcome.by)
        if outcome.end == "agreement":
            return self.end_by_agreement()
        if outcome.end == "abandoned":
            return self.abandon()
        raise IllegalMoveError(f"{outcome.end!r} is not an ending the players choose (R13)")

    def _need_not_over(self) -> None:
        if self.over:
            raise IllegalMoveError("the game is already over")

    # ----------------------------------------------------------------- formats
    def to_json(self, *, full: bool = False) -> dict[str, Any]:
        """The canonical JSON of RULES.md; `full` adds `variant` and `history` (lossless)."""
        out: dict[str, Any] = {
            "board": list(self.board),
            "captured": list(self.captured),
            "sown": list(self.sown),
            "to_move": self.to_move.letter,
            "phase": self.phase,
            "legal": [pit_name(p) for p in self.legal_moves()],
            "ply": self.ply,
            "over": self.over,
            "result": None if self.result is None else self.result.to_json(),
        }
        if full:
            out["variant"] = self.variant.to_json()
            out["history"] = [format(k, "x") for k in self.history]
        return out

    def dumps(self, *, full: bool = False) -> str:
        """`to_json` as one line of text."""
        return json.dumps(self.to_json(full=full))

    @classmethod
    def from_json(cls, data: Any) -> Position:
        """Read a position object (as written by `to_json`); `legal` and `over` are derived."""
        if not isinstance(data, dict):
            raise NotationError(f"bad position {data!r}: expected an object")
        try:
            board = tuple(data["board"])
            sown = tuple(data["sown"])
            cap = data["captured"]
            variant = Variant.from_json(data.get("variant", {}))
            history = tuple(int(k, 16) for k in data.get("history", ()))
            result = None if data.get("result") is None else Result.from_json(data["result"])
            pos = cls(
                board=board,
                sown=sown,
                captured=(int(cap[0]), int(cap[1])),
                to_move=Side.parse(data["to_move"]),
                phase=data["phase"],
                ply=int(data["ply"]),
                variant=variant,
                history=history,
                result=result,
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            if isinstance(exc, NotationError):
                raise
            raise NotationError(f"bad position {json.dumps(data)[:200]}: {exc!r}") from None
        if pos.phase == "play" and not pos.history:
            pos = pos._evolve(history=(pos.key,))
        return pos

    def diagram(self) -> str:
        """A text picture from South's seat: North's row on top (N10…N1 above S1…S10).

        Unsown pits (protected, R7) are shown in parentheses, sown pits in brackets.
        """

        def cell(p: int) -> str:
            count = f"{self.board[p]:2d}"
            return f"[{count}]" if self.sown[p] else f"({count})"

        north = list(range(PITS - 1, ROW - 1, -1))
        south = list(range(ROW))
        lines = [
            "     " + " ".join(f"{pit_name(p):>4}" for p in north),
            f"N {self.captured[1]:2d} " + " ".join(cell(p) for p in north),
            f"S {self.captured[0]:2d} " + " ".join(cell(p) for p in south),
            "     " + " ".join(f"{pit_name(p):>4}" for p in south),
        ]
        if self.over:
            lines.append(f"ply {self.ply}, game over: {self.result}")
        else:
            legal = " ".join(pit_name(p) for p in self.legal_moves())
            lines.append(f"ply {self.ply}, {self.phase}, {self.to_move.letter} to move: {legal}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.diagram()


_FIELDS = tuple(f.name for f in fields(Position) if f.init)


def _name(pit: int) -> str:
    try:
        return pit_name(pit)
    except NotationError:
        return repr(pit)
