"""Who is present: each board's retained status (its last will says `offline`), and in a
match the other board's heartbeat too, since a cut bridge between two venues' brokers
leaves the far board's last retained `online` standing on this side."""

from __future__ import annotations

from kiothi_board.clock import Clock

__all__ = ["Presence"]


class Presence:
    """Presence of the boards this board hears of (one owner's lock guards it)."""

    def __init__(self, clock: Clock, beat_s: float) -> None:
        """`beat_s`: how often a board in a match says it is there; 1.5 times that
        without a word and it is gone."""
        self._clock = clock
        self.beat_s = beat_s
        self._status: dict[str, bool] = {}
        self._seen: dict[str, float] = {}
        self._offline_at: dict[str, float] = {}  # when its last will (`offline`) came

    def status(self, board: str, text: str) -> None:
        """`board`'s retained status came: `online` or anything else."""
        online = text == "online"
        self._status[board] = online
        if online:
            self._seen[board] = self._clock.now()
            self._offline_at.pop(board, None)
        else:
            self._offline_at.setdefault(board, self._clock.now())

    def seen(self, board: str) -> None:
        """A sign of life from `board` in the match (a heartbeat, an action)."""
        self._seen[board] = self._clock.now()

    def present(self, board: str, *, beating: bool = False) -> bool:
        """Whether `board` is there (`beating`: it is in our match, so it must beat)."""
        if not self._status.get(board, False):
            return False
        if not beating:
            return True
        return self._clock.now() - self._seen.get(board, 0.0) <= 1.5 * self.beat_s

    def word(self, board: str, *, beating: bool = False) -> str:
        """`online` or `offline`."""
        return "online" if self.present(board, beating=beating) else "offline"

    def gone_for(self, board: str) -> float | None:
        """How long `board` (in our match) has been known gone: since its last will came,
        or since its heartbeat was due and did not come (1.5 beats after its last sign of
        life); None while it is present. Counted from when this board could know, so a
        claim never comes sooner than `gone_s` after the absence was seen."""
        if self.present(board, beating=True):
            return None
        now = self._clock.now()
        seen = self._seen.get(board, now)
        since = self._offline_at.get(board, seen + 1.5 * self.beat_s)
        return max(0.0, now - min(since, now))
