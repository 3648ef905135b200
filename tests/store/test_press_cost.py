"""One durable write per step: what a guided press costs the store on the real daemon.

The simulator daemon with its SQLite store plays guided presses over loopback TCP while
strace counts its fsync/fdatasync calls (`kiothi-board bench guide` prints the same
figures for 400 presses). Before the board loop a press cost two fsync'd transactions
(the exhibit's counter, then the game's event) and about 17 KB.
"""

from __future__ import annotations

from kiothi_board.tools.bench_store import store_cost


def test_a_guided_press_costs_at_most_one_fsync_and_8_kib() -> None:
    cost = store_cost(presses=60, seed=3)
    assert cost.presses == 60
    assert cost.syncs is not None, "strace is missing: scripts/setup-system.sh installs it"
    assert cost.syncs <= 1.1 * cost.presses, cost.lines()
    assert cost.write_bytes <= 8 * 1024 * cost.presses, cost.lines()
