"""The exhibition's doors in the API: `stats`, `exhibit`, `exhibit.set`, `/metrics`,
`/stats.csv`, and the fake-time simulator's `sim.*` commands.

Who may use them: `stats`, `/metrics`, `/stats.csv` and `exhibit.set` (exhibition mode on
or off until the next start) are staff only (the control role: the token, or a trusted
door); `exhibit` (the phase, the countdown, the line to show) is public, as the page
shows them to visitors. `sim.advance`, `sim.press` and `sim.hold` exist only when the
daemon runs with `--fake-clock` (see docs/exhibition.md, "Fake time").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from kiothi_board.api.args import Args as CommandArgs
from kiothi_board.api.protocol import ApiError
from kiothi_board.exhibit.words import ATTRACT

if TYPE_CHECKING:
    from kiothi_board.api.server import ApiServer

__all__ = ["ExhibitDoors", "SimDoors", "install"]


class ExhibitDoors(Protocol):
    """What the doors ask of the daemon's exhibition."""

    def stats(self, first: str | None = None, last: str | None = None) -> dict[str, Any]: ...

    def stats_csv(self, first: str | None = None, last: str | None = None) -> str: ...

    def report(self) -> dict[str, Any]: ...

    def health(self) -> dict[str, Any]: ...

    def store_health(self) -> dict[str, Any]: ...

    def status(self) -> dict[str, Any]: ...

    def set_enabled(self, on: bool) -> dict[str, Any]: ...


class SimDoors(Protocol):
    """The fake-time simulator's hands and clock."""

    def advance(self, seconds: float, step: float) -> dict[str, Any]: ...

    def press(self, pit: int) -> None: ...

    def hold(self, pit: int, seconds: float) -> None: ...

    def chord(self, first: int, second: int, seconds: float) -> None: ...


def _date(a: CommandArgs, key: str) -> str | None:
    text = a.opt_text(key, 10)
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise ApiError(
            "bad_args", f"stats: {key} must be a date like '2026-05-01', got {text!r}"
        ) from None


def install(server: ApiServer, exhibit: ExhibitDoors, sim: SimDoors | None = None) -> None:
    """Add the commands to `server`'s dispatcher and the routes' sources to its web app."""
    dispatcher = server.dispatcher

    def stats(a: CommandArgs) -> dict[str, Any]:
        first, last = _date(a, "from"), _date(a, "to")
        days = a.integer("days", 1, 400) if "days" in a else None
        a.done()
        if days is not None and first is None:
            end = dt.date.fromisoformat(last or exhibit.status()["day"])
            first, last = (end - dt.timedelta(days=days - 1)).isoformat(), end.isoformat()
        try:
            return exhibit.stats(first, last)
        except ValueError as exc:
            raise ApiError("bad_args", str(exc)) from None

    def status(a: CommandArgs) -> dict[str, Any]:
        a.done()
        st = exhibit.status()
        # The attract loop invites in each of the venue's languages in turn: a page that
        # chose none shows these one after the other (the words stay in the catalogs).
        st["invitations"] = (
            {code: ATTRACT.render(code) for code in dispatcher.languages}
            if st["phase"] == "attract"
            else None
        )
        return {"exhibit": st}

    def switch(a: CommandArgs) -> dict[str, Any]:
        on = a.boolean("enabled")
        a.done()
        return {"exhibit": exhibit.set_enabled(on)}

    dispatcher.add_command("stats", stats, control=True)
    dispatcher.add_command("exhibit.set", switch, control=True)
    dispatcher.add_command("exhibit", status, control=False)
    dispatcher.add_health("exhibit", exhibit.health)
    dispatcher.add_health("store", exhibit.store_health)
    server.metrics_source = exhibit.report
    server.stats_csv = exhibit.stats_csv
    server.stats_today = lambda: str(exhibit.status()["day"])
    if sim is not None:
        _install_sim(server, sim)


def _install_sim(server: ApiServer, sim: SimDoors) -> None:
    def advance(a: CommandArgs) -> dict[str, Any]:
        # A press first, then time: one round trip per visitor's action.
        pit = a.pit("press") if "press" in a else None
        seconds = a.number("seconds", 0.0, 86_400.0)
        step = a.number("step", 0.001, 600.0) if "step" in a else 0.1
        a.done()
        if pit is not None:
            sim.press(pit)
        return sim.advance(seconds, step)

    def press(a: CommandArgs) -> dict[str, Any]:
        pit = a.pit("pit")
        a.done()
        sim.press(pit)
        return {"pit": pit}

    def hold(a: CommandArgs) -> dict[str, Any]:
        pit = a.pit("pit")
        seconds = a.number("seconds", 0.0, 60.0)
        a.done()
        sim.hold(pit, seconds)
        return {"pit": pit}

    def chord(a: CommandArgs) -> dict[str, Any]:
        first, second = a.pit("pit"), a.pit("with")
        seconds = a.number("seconds", 0.0, 60.0)
        a.done()
        sim.chord(first, second, seconds)
        return {"pit": first, "with": second}

    commands: dict[str, Callable[[CommandArgs], dict[str, Any]]] = {
        "sim.advance": advance,
        "sim.press": press,
        "sim.hold": hold,
        "sim.chord": chord,
    }
    for name, fn in commands.items():
        server.dispatcher.add_command(name, fn, control=True)
