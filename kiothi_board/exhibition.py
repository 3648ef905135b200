"""Exhibition mode as the daemon runs it (composition layer, beside daemon.py).

`Exhibition.from_config` turns the `[exhibit]` section into a `Director` (L3) and adds
what only the composition root knows: the board loop's rates, the machine probe, the
store's files, the co-processor link. It answers the API's `stats`, `health` and
`/metrics`; whatever it asks of the director it asks on the board loop (`on_loop`), which
owns it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kiothi_board.ai.levels import LevelChoice
from kiothi_board.clock import Clock
from kiothi_board.config import Config
from kiothi_board.errors import ConfigError
from kiothi_board.exhibit.attendant import Timing
from kiothi_board.exhibit.director import Director, ExhibitSettings
from kiothi_board.exhibit.health import RateMeter, SystemProbe
from kiothi_board.exhibit.schedule import Schedule
from kiothi_board.exhibit.stats import stored_games, tally, to_csv, totals
from kiothi_board.guide import Renderer
from kiothi_board.rules import pit_name
from kiothi_board.store.base import CountStore, GameStore, StoreHealth

__all__ = ["Exhibition"]


MAX_DAYS = 400
TRIM_SECONDS = 3600.0


def _malloc_trim() -> Callable[[], object] | None:
    """glibc's `malloc_trim(0)`, where the C library has it (None elsewhere)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)
    return None if trim is None else lambda: trim(0)


class Exhibition:
    """The director plus the daemon's measurements and the curators' queries."""

    def __init__(
        self,
        director: Director,
        *,
        clock: Clock,
        store: GameStore,
        state_dir: Path,
        store_path: Path | None = None,
        probe: SystemProbe | None = None,
    ) -> None:
        """Wrap a built `director`; `store_path` is the SQLite file (None for Redis)."""
        self.director = director
        self._clock = clock
        self._store = store
        self._state_dir = state_dir
        self._store_path = store_path
        self.probe = probe or SystemProbe()
        self.loop = RateMeter()  # the board loop's ticks (`measure` gives its meters)
        self.frames = RateMeter()  # frames shown on the rings
        self.started = clock.now()
        self.link: Any = None
        self.on_loop: Callable[[Callable[[], Any]], Any] = lambda fn: fn()  # BoardLoop.ask
        # A season-long process: the AI's searches free their tables after each game, but
        # glibc keeps freed memory in the heap; giving it back after every game (and hourly)
        # keeps the RSS at what is live, so a Pi Zero's 512 MB lasts the season.
        self._trim = _malloc_trim()
        self._games_ended = -1
        self._trimmed_at = clock.now()

    @classmethod
    def from_config(
        cls,
        config: Config,
        *,
        clock: Clock,
        store: GameStore,
        renderer: Renderer,
        state_dir: Path,
        store_path: Path | None,
        seed: int,
    ) -> Exhibition:
        """Build from `[exhibit]` (and `game.over_seconds`, `board.hold_s`)."""
        ex = config.exhibit
        schedule = Schedule(
            timezone=ex.timezone,
            opening=ex.opening_hours,
            closed_days=ex.closed_days,
            quiet=ex.quiet_hours,
            brightness=ex.brightness,
        )
        timing = Timing(
            idle_after=float(ex.idle_s),
            countdown=float(ex.countdown_s),
            hint_after=float(ex.hint_after_s),
            two_player_window=float(ex.two_player_s),
            over_seconds=float(config.game.over_seconds),
            confirm_hold=float(config.board.hold_s),
        )
        if timing.hint_after >= timing.idle_after:
            raise ConfigError(
                f"exhibit.hint_after_s = {ex.hint_after_s!r} must be less than "
                f"exhibit.idle_s = {ex.idle_s!r} (a hint comes before the countdown)"
            )
        settings = ExhibitSettings(
            timing,
            level=LevelChoice.parse(ex.level),
            pace=ex.pace,
            variant=ex.variant,
            long_move_laps=config.game.long_move_laps,
            attract_brightness=float(ex.attract_brightness),
            quiet_brightness=float(ex.quiet_brightness),
            closed=ex.closed,
            enabled=bool(ex.enabled),
        )
        director = Director(
            settings,
            clock=clock,
            store=store,
            schedule=schedule,
            renderer=renderer,
            seed=seed,
        )
        return cls(director, clock=clock, store=store, state_dir=state_dir, store_path=store_path)

    # ------------------------------------------------------------------ running
    def measure(
        self, call: Callable[[Callable[[], Any]], Any], ticks: RateMeter, frames: RateMeter
    ) -> None:
        """Ask the director through `call` (the board loop's), and report the loop's rates."""
        self.on_loop = call
        self.loop = ticks
        self.frames = frames

    def watch_link(self, link: Any) -> None:
        """Report the co-processor link's state (its losses reach the director as inputs
        of the board loop)."""
        self.link = link

    def tick(self) -> None:
        """After each tick of the board loop (on it): give freed memory back after a game."""
        now = self._clock.now()
        ended = self.director.totals["finished"] + self.director.totals["abandoned"]
        if ended != self._games_ended or now - self._trimmed_at >= TRIM_SECONDS:
            self._games_ended = ended
            self._trimmed_at = now
            if self._trim is not None:
                self._trim()

    def status(self) -> dict[str, Any]:
        """The director's phase, countdown and schedule."""
        status: dict[str, Any] = self.on_loop(self.director.status)
        return status

    def set_enabled(self, on: bool) -> dict[str, Any]:
        """Switch exhibition mode on or off (until the next start: the config decides then)."""

        def switch() -> dict[str, Any]:
            self.director.set_enabled(on)
            return self.director.status()

        status: dict[str, Any] = self.on_loop(switch)
        return status

    # ------------------------------------------------------------------ curators
    def _range(self, first: str | None, last: str | None) -> list[str]:
        today = dt.date.fromisoformat(self.status()["day"])
        try:
            end = dt.date.fromisoformat(last) if last else today
            start = dt.date.fromisoformat(first) if first else end - dt.timedelta(days=6)
        except ValueError as exc:
            raise ValueError(f"stats: dates must be like '2026-05-01': {exc}") from None
        if start > end or (end - start).days >= MAX_DAYS:
            raise ValueError(f"stats: from {start} to {end} is not a range of 1 to {MAX_DAYS} days")
        return [(start + dt.timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]

    def _days(self, first: str | None, last: str | None) -> list[Any]:
        days = self._range(first, last)
        zone = self.director.schedule.zone
        since = dt.datetime.combine(dt.date.fromisoformat(days[0]), dt.time(), zone).timestamp()
        counts = (
            self._store.get_counts(days[0], days[-1]) if isinstance(self._store, CountStore) else {}
        )
        return tally(stored_games(self._store, since), counts, self.director.schedule, days)

    def stats(self, first: str | None = None, last: str | None = None) -> dict[str, Any]:
        """The `stats` command: one entry per day (oldest first) and the range's totals."""
        per_day = self._days(first, last)
        return {
            "timezone": self.director.schedule.timezone,
            "days": [d.to_json() for d in per_day],
            "total": totals(per_day).to_json(),
        }

    def stats_csv(self, first: str | None = None, last: str | None = None) -> str:
        """The same figures as CSV, one row per day."""
        return to_csv(self._days(first, last))

    # ------------------------------------------------------------------ monitoring
    def _store_bytes(self) -> int | None:
        if self._store_path is None:
            return None
        total = 0
        for suffix in ("", "-wal", "-shm"):
            try:
                total += os.stat(str(self._store_path) + suffix).st_size
            except OSError:
                continue
        return total

    def _link(self) -> dict[str, Any] | None:
        if self.link is None:
            return None
        error = self.link.error
        return {"state": self.link.state, "error": None if error is None else str(error)}

    def health(self) -> dict[str, Any]:
        """The exhibit's part of the API `health` event: `degraded` while the input link
        (the co-processor) is not up, for no press reaches the board then."""
        d = self.director
        # The loop's meters change with every turn: read on the loop, as the director is.
        status, faults, rates, frames = self.on_loop(
            lambda: (d.status(), dict(d.faults), self.loop.to_json(), self.frames.to_json())
        )
        link = self._link()
        return {
            "status": "ok" if link is None or link["state"] == "up" else "degraded",
            **status,
            "uptime": round(self._clock.now() - self.started, 3),
            "loop": rates,
            "frames": frames,
            **self.probe.to_json(self._state_dir),
            "input_faults": faults["input_faults"],
            "link": link,
            "store_bytes": self._store_bytes(),
        }

    def store_health(self) -> dict[str, Any]:
        """The store's part of `health` (degraded while damage is quarantined or salvaged)."""
        if isinstance(self._store, StoreHealth):
            return self._store.health()
        return {"status": "ok", "problems": []}

    def report(self) -> dict[str, Any]:
        """The flat figures `/metrics` exports."""
        d = self.director
        health = self.health()
        totals, faults, presses = self.on_loop(
            lambda: (dict(d.totals), dict(d.faults), list(d.presses))
        )
        jitter = health["loop"]["jitter_ms"]
        throttled = health["throttled"]
        link = health["link"]
        return {
            "games_started": totals["started"],
            "games_finished": totals["finished"],
            "games_abandoned": totals["abandoned"],
            "input_faults": faults["input_faults"],
            "wrong_presses": faults["wrong"],
            "hints": faults["hints"],
            "errors": faults["errors"],
            "pit_presses": {pit_name(p): presses[p] for p in range(20)},
            "uptime_seconds": health["uptime"],
            "loop_rate_hz": health["loop"]["rate"],
            "loop_jitter_seconds": None if jitter is None else jitter / 1000.0,
            "frame_rate_hz": health["frames"]["rate"],
            "cpu_temperature_celsius": health["cpu_temperature"],
            "cpu_throttled": None if throttled is None else int(throttled["now"]),
            "under_voltage": None if throttled is None else int(throttled["under_voltage"]),
            "link_up": None if link is None else int(link["state"] == "up"),
            "store_bytes": health["store_bytes"],
            "free_disk_bytes": health["free_disk"],
            "exhibit_open": int(health["open"]),
        }
