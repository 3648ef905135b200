"""What the API needs from the board: the `BoardService` protocol, a fake, and the adapter.

The dispatcher talks only to `BoardService`, so the protocol, the transports and the
tests do not depend on the controller's internals. `ControllerService` adapts the real
`kiothi_board.controller.Controller`; `FakeBoardService` is a small rules-only game for
unit tests and benchmarks.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kiothi_board.errors import IllegalMoveError, KiothiError
from kiothi_board.hardware.protocols import RGB, Frame, PixelSink
from kiothi_board.rules import Position, Side, Variant, parse_opening, pit_name

if TYPE_CHECKING:
    from kiothi_board.controller import Controller
    from kiothi_board.store.base import GameStore
from kiothi_board.listeners import Listener, Listeners

__all__ = [
    "BoardService",
    "ControllerService",
    "FakeBoardService",
    "FrameTap",
    "Listener",
    "ServiceConflict",
    "default_settings",
]


PALETTE_NAMES = ("default", "colour-blind", "night")


def default_settings() -> dict[str, Any]:
    """The operator settings a fresh board starts with."""
    return {
        "palette": "default",
        "brightness": 0.5,
        "mode": "ai",
        "sides": "S",
        "level": 3,
        "pace": "step",
        "variant": {},
    }


class ServiceConflict(KiothiError, RuntimeError):
    """A call that does not fit the game's state (the fake's `ControllerError`)."""


@runtime_checkable
class BoardService(Protocol):
    """Exactly what the API dispatcher uses of the board.

    Errors: a `RuntimeError` means "not now" (conflict), a `RulesError` an illegal move, a
    `KeyError` an unknown game, another `ValueError` bad arguments.
    """

    @property
    def leds_per_ring(self) -> int:
        """LEDs in each pit's ring."""
        ...

    def add_listener(self, listener: Listener) -> None:
        """Receive every event dict."""
        ...

    def remove_listener(self, listener: Listener) -> None:
        """Stop receiving events."""
        ...

    def new_game(
        self, mode: str, sides: str, level: int | str, pace: str, variant: dict[str, Any]
    ) -> int:
        """Start a game; its id."""
        ...

    def press(self, pit: int) -> None:
        """A tap on a pit (press and release)."""
        ...

    def move(self, pit: int) -> None:
        """Choose a sowing move for the human to move."""
        ...

    def opening(self, action: str) -> None:
        """Submit an opening action in text notation (`pass`, `S7>S1,S1,...`)."""
        ...

    def undo(self) -> None:
        """Take back the last action."""
        ...

    def hint(self) -> None:
        """Ask for a suggested move (arrives as a `hint` event)."""
        ...

    def resign(self, side: str | None) -> None:
        """`side` ("S"/"N", default the side to move) resigns."""
        ...

    def end(self) -> None:
        """End the game by agreement."""
        ...

    def check_board(self, on: bool | None) -> bool:
        """Enter/leave/toggle board check; whether it is on."""
        ...

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot (see docs/api.md, `state`)."""
        ...

    def frame(self) -> Frame:
        """The LED frame as lit now: per pit, its ring's colours in ring order."""
        ...

    def get_settings(self) -> dict[str, Any]:
        """The operator settings."""
        ...

    def set_settings(self, values: dict[str, Any]) -> dict[str, Any]:
        """Merge validated values into the settings; the new settings."""
        ...

    def list_games(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """Stored games, newest first."""
        ...

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """One stored game, or None."""
        ...


# --------------------------------------------------------------------------- frame tap
class FrameTap:
    """A `PixelSink` wrapper that remembers the last frame shown, for the web twin.

    The daemon hands the tap to the controller instead of the real sink; frames pass
    straight through, so the rings and the twin show exactly the same colours.
    """

    def __init__(self, sink: PixelSink) -> None:
        """Wrap `sink`."""
        self._sink = sink
        self._lock = threading.Lock()
        self._frame: Frame | None = None
        self.version = 0

    @property
    def leds_per_ring(self) -> int:
        """The wrapped sink's ring size."""
        return self._sink.leds_per_ring

    def show(self, frame: Frame) -> None:
        """Pass the frame on and keep it."""
        self._sink.show(frame)
        with self._lock:
            self._frame = frame
            self.version += 1

    def last(self) -> Frame | None:
        """The last frame shown (None before the first)."""
        with self._lock:
            return self._frame

    def close(self) -> None:
        """Close the wrapped sink; idempotent as the sink is."""
        self._sink.close()


# --------------------------------------------------------------------------- adapter
class _EventSource:
    """The listener list and ring size both services expose to the dispatcher."""

    def __init__(self, leds_per_ring: int) -> None:
        self._leds = leds_per_ring
        self._listeners = Listeners()

    @property
    def leds_per_ring(self) -> int:
        """LEDs in each ring."""
        return self._leds

    def add_listener(self, listener: Listener) -> None:
        """Receive every event the board emits."""
        self._listeners.add(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop sending events to `listener`."""
        self._listeners.remove(listener)

    def emit(self, event: dict[str, Any]) -> None:
        """Send an event to every listener (tests and the bench inject their own too)."""
        self._listeners.emit(event)


class ControllerService(_EventSource):
    """`BoardService` over the real controller, its store and the optional frame tap.

    Settings (palette, brightness and new-game defaults) live in the store's settings
    under the key "operator"; `on_settings` lets the daemon apply palette and brightness
    to the renderer and the LED driver, which the controller does not own.
    """

    def __init__(
        self,
        controller: Controller,
        store: GameStore,
        *,
        tap: FrameTap | None = None,
        leds_per_ring: int = 16,
        on_settings: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Adapt `controller`; `store` serves settings and games."""
        self._ctl = controller
        self._store = store
        super().__init__(tap.leds_per_ring if tap is not None else leds_per_ring)
        self._tap = tap
        self._on_settings = on_settings
        self._lock = threading.Lock()
        controller.add_listener(self.emit)

    def new_game(
        self, mode: str, sides: str, level: int | str, pace: str, variant: dict[str, Any]
    ) -> int:
        """Start a game on the controller."""
        return self._ctl.new_game(mode, sides, level, pace, variant)  # type: ignore[arg-type]

    def press(self, pit: int) -> None:
        """A tap (the controller reports it as `input` events, as it does board presses)."""
        self._ctl.press(pit)

    def move(self, pit: int) -> None:
        """A sowing move for the human to move."""
        self._ctl.move(pit)

    def opening(self, action: str) -> None:
        """An opening action in text notation."""
        self._ctl.opening(action)

    def undo(self) -> None:
        """Take back the last action."""
        self._ctl.undo()

    def hint(self) -> None:
        """Ask the AI for a hint."""
        self._ctl.hint()

    def resign(self, side: str | None) -> None:
        """Resign for `side` (default: the side to move)."""
        self._ctl.resign(side)

    def end(self) -> None:
        """End by agreement."""
        self._ctl.end()

    def check_board(self, on: bool | None) -> bool:
        """Board check on/off/toggle."""
        return self._ctl.check_board(on)

    def state(self) -> dict[str, Any]:
        """The controller's snapshot."""
        return self._ctl.state()

    def frame(self) -> Frame:
        """The frame last shown on the rings (rendered now if no tap is wired)."""
        if self._tap is not None:
            last = self._tap.last()
            if last is not None:
                return last
        return self._ctl.frame()

    def get_settings(self) -> dict[str, Any]:
        """Defaults overlaid with the stored operator settings."""
        stored = self._store.load_settings().get("operator", {})
        return {**default_settings(), **(stored if isinstance(stored, dict) else {})}

    def set_settings(self, values: dict[str, Any]) -> dict[str, Any]:
        """Store the merged settings and tell the daemon."""
        merged = {**self.get_settings(), **values}
        all_settings = self._store.load_settings()
        all_settings["operator"] = merged
        self._store.save_settings(all_settings)
        if self._on_settings is not None:
            self._on_settings(copy.deepcopy(merged))
        self.emit({"type": "settings", "settings": merged})
        return merged

    def list_games(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """The store's summaries."""
        return self._store.list_games(limit, offset)

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """The store's game, None if unknown."""
        try:
            return self._store.get_game(game_id)
        except KeyError:
            return None


# --------------------------------------------------------------------------- fake
_FAKE_COLOURS: dict[str, RGB] = {"S": (255, 140, 0), "N": (0, 120, 255), "off": (0, 0, 0)}


class FakeBoardService(_EventSource):
    """A rules-only board for tests and benchmarks: no guide steps, moves apply at once.

    Emits the controller's event shapes (`new_game`, `position`, `guide`, `move`,
    `capture`, `game_over`, `input`, `wrong`, `hint`). `calls` records every call that
    could change the game, so tests can prove a malformed line changed nothing.
    """

    def __init__(self, leds_per_ring: int = 16) -> None:
        """An idle board (no game)."""
        super().__init__(leds_per_ring)
        self._lock = threading.RLock()
        self._pos: Position | None = None
        self._history: list[Position] = []
        self._actions: list[str] = []
        self._openings = 0  # how many of the actions are opening actions
        self._game_id = 0
        self._meta: dict[str, Any] = {}
        self._games: dict[int, dict[str, Any]] = {}
        self._settings = default_settings()
        self._check = False
        self._ended: str | None = None
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    # -- game -----------------------------------------------------------------------------
    def _need(self) -> Position:
        if self._pos is None:
            raise ServiceConflict("no game: start one with new_game")
        return self._pos

    def new_game(
        self, mode: str, sides: str, level: int | str, pace: str, variant: dict[str, Any]
    ) -> int:
        """Start a game with `Variant.from_json(variant)`."""
        with self._lock:
            if mode not in ("two", "ai", "demo"):
                raise ValueError(f"bad mode {mode!r}")
            var = Variant.from_json(variant)
            self.calls.append(("new_game", (mode, sides, level, pace, variant)))
            self._game_id += 1
            self._pos = Position.initial(var)
            self._history = []
            self._actions = []
            self._openings = 0
            self._ended = None
            self._meta = {"mode": mode, "humans": list(sides), "level": level, "pace": pace}
            self._meta["variant"] = var.to_json()
            self._games[self._game_id] = {"id": self._game_id, "meta": self._meta, "record": None}
            self.emit({"type": "new_game", "id": self._game_id, **self._meta})
            self._changed()
            return self._game_id

    def _changed(self) -> None:
        pos = self._pos
        assert pos is not None
        self.emit({"type": "position", "position": pos.to_json()})
        stage = "over" if pos.over else ("open" if pos.phase == "opening" else "turn")
        self.emit({"type": "guide", "stage": stage, "step": None, "check": self._check})
        if pos.over and self._games[self._game_id]["record"] is None:
            result = pos.result.to_json() if pos.result else None
            record: dict[str, Any] = {
                "format": "kiothi-game/1",
                "variant": pos.variant.to_json(),
                "opening": self._actions[: self._openings],
                "moves": self._actions[self._openings :],
                "result": result,
            }
            self._games[self._game_id]["record"] = record
            self.emit(
                {
                    "type": "game_over",
                    "id": self._game_id,
                    "result": result,
                    "ended": self._ended,
                    "record": record,
                }
            )

    def press(self, pit: int) -> None:
        """A tap: plays the pit's move, or passes in the opening; else a `wrong` event."""
        with self._lock:
            self.calls.append(("press", (pit,)))
            for kind in ("pressed", "released"):  # as the controller reports a tap
                self.emit({"type": "input", "kind": kind, "pit": pit_name(pit), "control": None})
            pos = self._pos
            if pos is not None and pos.phase == "opening":
                self.opening("pass")
            elif pos is not None and not pos.over and pit in pos.legal_moves():
                self.move(pit)
            else:
                self.emit({"type": "wrong", "pit": pit_name(pit), "reason": "not expected"})

    def move(self, pit: int) -> None:
        """Play a sowing move at once."""
        with self._lock:
            pos = self._need()
            if pos.phase != "play":
                raise ServiceConflict("no move is awaited now")
            if pit not in pos.legal_moves():
                raise IllegalMoveError(f"{pit_name(pit)} is not a legal move now")
            self.calls.append(("move", (pit,)))
            new, trace = pos.play_traced(pit)
            self._history.append(pos)
            self._actions.append(pit_name(pit))
            self._pos = new
            self.emit({"type": "move", "pit": pit_name(pit), "trace": trace.to_json()})
            if trace.captures:
                self.emit({"type": "capture", "captures": [c.to_json() for c in trace.captures]})
            self._changed()

    def opening(self, action: str) -> None:
        """Apply an opening action."""
        with self._lock:
            pos = self._need()
            if pos.phase != "opening":
                raise ServiceConflict("no opening action is awaited now")
            act = parse_opening(action)
            new = pos.open(act)
            self.calls.append(("opening", (action,)))
            self._history.append(pos)
            self._actions.append(str(act))
            self._openings += 1
            self._pos = new
            self._changed()

    def undo(self) -> None:
        """Take back the last action."""
        with self._lock:
            self._need()
            if not self._history or self._pos is None or self._pos.over:
                raise ServiceConflict("nothing to undo")
            self.calls.append(("undo", ()))
            self._pos = self._history.pop()
            self._actions.pop()
            self._openings = min(self._openings, len(self._actions))
            self._changed()

    def hint(self) -> None:
        """The first legal move, as a `hint` event."""
        with self._lock:
            pos = self._need()
            legal = pos.legal_moves()
            if legal:
                self.emit({"type": "hint", "pit": pit_name(legal[0])})

    def resign(self, side: str | None) -> None:
        """`side` resigns; the fake ends the game with R11's split (it keeps no score)."""
        with self._lock:
            pos = self._need()
            if pos.over:
                raise ServiceConflict("the game is over")
            who = Side.parse(side) if side else pos.to_move
            self.calls.append(("resign", (who.letter,)))
            self._ended = "resign"
            self._history.append(pos)
            self._pos = pos.end_by_agreement()
            self._changed()

    def end(self) -> None:
        """End by agreement (R11's split)."""
        with self._lock:
            pos = self._need()
            if pos.over:
                raise ServiceConflict("the game is over")
            self.calls.append(("end", ()))
            self._ended = "agreement"
            self._history.append(pos)
            self._pos = pos.end_by_agreement()
            self._changed()

    def check_board(self, on: bool | None) -> bool:
        """Toggle a flag (the fake has no check view)."""
        with self._lock:
            self.calls.append(("check", (on,)))
            self._check = (not self._check) if on is None else on
            if self._pos is not None:
                self._changed()
            return self._check

    def state(self) -> dict[str, Any]:
        """A snapshot shaped like the controller's."""
        with self._lock:
            pos = self._pos
            out: dict[str, Any] = {
                "game_id": self._game_id or None,
                "settings": copy.deepcopy(self._meta),
                "stage": "none",
                "check": [] if self._check else None,
                "paused": False,
                "thinking": False,
            }
            if pos is None:
                return out
            stage = "over" if pos.over else ("open" if pos.phase == "opening" else "turn")
            out.update(
                stage=stage,
                position=pos.to_json(),
                board=list(pos.board),
                actions=list(self._actions),
                pending=None,
                guide=None,
                expect=None,
                lifted=None,
                result=pos.result.to_json() if pos.result else None,
                ended=self._ended,
                ai_to_move=False,
            )
            return out

    def frame(self) -> Frame:
        """Count arcs: one lit LED per seed in the owner's colour, legal pits brighter."""
        with self._lock:
            pos = self._pos
            off = _FAKE_COLOURS["off"]
            if pos is None:
                return [[off] * self._leds for _ in range(20)]
            legal = set(pos.legal_moves())
            rings: list[Sequence[RGB]] = []
            for p, count in enumerate(pos.board):
                r, g, b = _FAKE_COLOURS["S" if p < 10 else "N"]
                k = 1.0 if p in legal else 0.35
                colour = (int(r * k), int(g * k), int(b * k))
                lit = min(count, self._leds)
                rings.append([colour] * lit + [off] * (self._leds - lit))
            return rings

    def get_settings(self) -> dict[str, Any]:
        """The settings."""
        with self._lock:
            return copy.deepcopy(self._settings)

    def set_settings(self, values: dict[str, Any]) -> dict[str, Any]:
        """Merge values."""
        with self._lock:
            self.calls.append(("settings", (values,)))
            self._settings.update(copy.deepcopy(values))
            self.emit({"type": "settings", "settings": copy.deepcopy(self._settings)})
            return copy.deepcopy(self._settings)

    def list_games(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """Games newest first."""
        with self._lock:
            ids = sorted(self._games, reverse=True)[offset : offset + limit]
            return [
                {
                    "id": i,
                    "started": None,
                    "finished": None,
                    "result": (self._games[i]["record"] or {}).get("result"),
                }
                for i in ids
            ]

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        """A finished game's record or an unfinished game's meta."""
        with self._lock:
            g = self._games.get(game_id)
            if g is None:
                return None
            return copy.deepcopy(g["record"] or {"id": game_id, "meta": g["meta"], "events": []})
