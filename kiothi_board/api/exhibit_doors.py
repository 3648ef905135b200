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

from kiothi_board.api.protocol import ApiError
from kiothi_board.controller.kinds import Bool, Integer, Number, Pit, Text
from kiothi_board.controller.spec import Arg, CommandSpec
from kiothi_board.exhibit.words import ATTRACT
from kiothi_board.i18n import tr

if TYPE_CHECKING:
    from kiothi_board.api.server import ApiServer

__all__ = ["EXHIBIT_COMMANDS", "ExhibitDoors", "SimDoors", "install"]

_ANY: dict[str, Any] = {"type": "object"}


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


_DATE = Text(10)
EXHIBIT_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "stats",
        tr("read the exhibition's statistics"),
        "staff",
        (Arg("from", _DATE), Arg("to", _DATE), Arg("days", Integer(1, 400))),
        returns="`timezone`, `days`, `total` (docs/exhibition.md; `from`, `to`: dates)",
        reply_schema=_ANY,
    ),
    CommandSpec(
        "exhibit.set",
        tr("turn exhibition mode on or off until the next start"),
        "staff",
        (Arg("enabled", Bool(), True),),
        returns="`exhibit` (as `exhibit`'s)",
        reply_schema={"type": "object", "required": ["exhibit"]},
        fleet=True,
    ),
    CommandSpec(
        "exhibit",
        tr("read the exhibition's phase, countdown and line"),
        "spectator",
        returns="`exhibit`: `enabled`, `phase`, `countdown`, `instruction`, … (docs/exhibition.md)",
        reply_schema={"type": "object", "required": ["exhibit"]},
    ),
)
"""The exhibition's commands (served when the daemon runs an exhibition)."""


def _date(a: dict[str, Any], key: str) -> str | None:
    text = a[key]
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

    def stats(a: dict[str, Any]) -> dict[str, Any]:
        first, last, days = _date(a, "from"), _date(a, "to"), a["days"]
        if days is not None and first is None:
            end = dt.date.fromisoformat(last or exhibit.status()["day"])
            first, last = (end - dt.timedelta(days=days - 1)).isoformat(), end.isoformat()
        try:
            return exhibit.stats(first, last)
        except ValueError as exc:
            raise ApiError("bad_args", str(exc)) from None

    def status(a: dict[str, Any]) -> dict[str, Any]:
        st = exhibit.status()
        # The attract loop invites in each of the venue's languages in turn: a page that
        # chose none shows these one after the other (the words stay in the catalogs).
        st["invitations"] = (
            {code: ATTRACT.render(code) for code in dispatcher.languages}
            if st["phase"] == "attract"
            else None
        )
        return {"exhibit": st}

    def switch(a: dict[str, Any]) -> dict[str, Any]:
        return {"exhibit": exhibit.set_enabled(a["enabled"])}

    for spec, fn in zip(EXHIBIT_COMMANDS, (stats, switch, status), strict=True):
        dispatcher.add_command(spec, fn)
    dispatcher.add_health("exhibit", exhibit.health)
    dispatcher.add_health("store", exhibit.store_health)
    server.metrics_source = exhibit.report
    server.stats_csv = exhibit.stats_csv
    server.stats_today = lambda: str(exhibit.status()["day"])
    if sim is not None:
        _install_sim(server, sim)


def _install_sim(server: ApiServer, sim: SimDoors) -> None:
    def advance(a: dict[str, Any]) -> dict[str, Any]:
        # A press first, then time: one round trip per visitor's action.
        if a["press"] is not None:
            sim.press(a["press"])
        return sim.advance(a["seconds"], a["step"])

    def press(a: dict[str, Any]) -> dict[str, Any]:
        sim.press(a["pit"])
        return {"pit": a["pit"]}

    def hold(a: dict[str, Any]) -> dict[str, Any]:
        sim.hold(a["pit"], a["seconds"])
        return {"pit": a["pit"]}

    def chord(a: dict[str, Any]) -> dict[str, Any]:
        sim.chord(a["pit"], a["with"], a["seconds"])
        return {"pit": a["pit"], "with": a["with"]}

    pit, held = Arg("pit", Pit(), True), Arg("seconds", Number(0.0, 60.0), True)
    specs: tuple[tuple[CommandSpec, Callable[[dict[str, Any]], dict[str, Any]]], ...] = (
        (
            CommandSpec(
                "sim.advance",
                tr("fake time: a press, then the clock forward"),
                "staff",
                (
                    Arg("press", Pit()),
                    Arg("seconds", Number(0.0, 86_400.0), True),
                    Arg("step", Number(0.001, 600.0), default=0.1),
                ),
                reply_schema=_ANY,
            ),
            advance,
        ),
        (
            CommandSpec(
                "sim.press", tr("fake time: press a pit"), "staff", (pit,), reply_schema=_ANY
            ),
            press,
        ),
        (
            CommandSpec(
                "sim.hold", tr("fake time: hold a pit"), "staff", (pit, held), reply_schema=_ANY
            ),
            hold,
        ),
        (
            CommandSpec(
                "sim.chord",
                tr("fake time: hold two pits together"),
                "staff",
                (pit, Arg("with", Pit(), True), held),
                reply_schema=_ANY,
            ),
            chord,
        ),
    )
    for spec, fn in specs:
        server.dispatcher.add_command(spec, fn)
