"""Static evaluation of a packed position, from the side to move's point of view.

Scores are integers in centi-seeds (100 = one seed). The search adds captured seeds as it
goes, so the static part only judges what is still on the board:

- seeds in each row: R11 (repetition, ply limit) gives each player their own row, and R10
  gives the opponent everything when a row runs dry, so a full row is worth something;
- seeds kept safe by R7 (unsown pits cannot be captured) are worth more than exposed ones;
- mobility, and a penalty when a row is down to one pit (R10 is then a move away);
- exposure to the R9 chain: seeds the opponent would sweep with a leftmost capture;
- large piles that reach round the board and can come back to capture (R8.3 needs a crossing).

The weights are tuned by self-play (docs/ai.md); `BASELINE` switches every feature off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

from kiothi_board.rules import PITS, ROW

Evaluator = Callable[[int, int, int], int]


@dataclass(frozen=True, slots=True)
class Weights:
    """Feature weights in centi-seeds per unit of each feature (South minus North)."""

    row: int = 0
    safe: int = 0
    mobility: int = 0
    last_pit: int = 0
    chain: int = 0
    pile: int = 0
    pile_size: int = 11
    tempo: int = 0

    def to_json(self) -> dict[str, int]:
        """The weights as a plain dict (for docs and the bench)."""
        return asdict(self)


# Chosen by the self-play run recorded in docs/ai.md ("Tuning").
TUNED = Weights(row=30, safe=0, mobility=8, last_pit=150, chain=0, pile=30, pile_size=11, tempo=10)
# level:baseline: captured difference only.
BASELINE = Weights()


def _expand_table() -> tuple[int, ...]:
    """For each 10-bit sown mask, a board mask with 0xFF in the bytes of the set bits."""
    out = []
    for m in range(1 << ROW):
        v = 0
        for i in range(ROW):
            if m >> i & 1:
                v |= 0xFF << (8 * i)
        out.append(v)
    return tuple(out)


EXPAND = _expand_table()


def sown_board_mask(sown: int) -> int:
    """A board-shaped mask selecting the sown pits (to sum exposed seeds in C)."""
    return EXPAND[sown & 1023] | EXPAND[sown >> ROW] << (8 * ROW)


def make_evaluator(w: Weights) -> Evaluator:
    """Build `evaluate(board, sown, side) -> centi-seeds` for the side to move.

    Built as a closure so the weights are fast cell lookups in the search's hot loop.
    """
    expand = EXPAND
    w_row, w_safe, w_mob, w_last = w.row, w.safe, w.mobility, w.last_pit
    w_chain, w_pile, pile_size, w_tempo = w.chain, w.pile, w.pile_size, w.tempo
    if w == BASELINE:

        def material_only(board: int, sown: int, side: int) -> int:
            """Nothing but the captures already counted by the search."""
            return 0

        return material_only
    big = bytes(1 if i >= pile_size else 0 for i in range(256))

    def chain_exposed(bs: bytes, sown: int, last: int, first: int) -> int:
        """Sown seeds the opponent's leftmost capture would sweep (R9) off one row."""
        if not bs[last]:
            return 0
        total = 0
        for i in range(last - 1, first - 1, -1):
            c = bs[i]
            if not c:
                break
            if sown >> i & 1:
                total += c
        return total

    def evaluate(board: int, sown: int, side: int) -> int:
        """Centi-seeds for the side to move, positive when it stands better."""
        bs = board.to_bytes(PITS, "little")
        sb = (board & (expand[sown & 1023] | expand[sown >> 10] << 80)).to_bytes(PITS, "little")
        s_bs = bs[:10]
        n_bs = bs[10:]
        s_row = sum(s_bs)
        n_row = sum(n_bs)
        s_uns = s_row - sum(sb[:10])
        n_uns = n_row - sum(sb[10:])
        s_pits = 10 - s_bs.count(0)
        n_pits = 10 - n_bs.count(0)
        score = w_row * (s_row - n_row) + w_safe * (s_uns - n_uns) + w_mob * (s_pits - n_pits)
        if s_pits <= 1:
            score -= w_last
        if n_pits <= 1:
            score += w_last
        if w_chain:
            # South's exposure: North lands in N1 facing S10 (index 9), run S9…S1.
            score -= w_chain * chain_exposed(bs, sown, 9, 0)
            score += w_chain * chain_exposed(bs, sown, 19, 10)
        if w_pile:
            tb = bs.translate(big)
            score += w_pile * (sum(tb[:10]) - sum(tb[10:]))
        return (score if side == 0 else -score) + w_tempo

    return evaluate
