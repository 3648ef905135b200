"""The one dispatcher behind every transport: sessions, commands, events, limits.

A transport opens a `Session` per client (the serial port is one client), feeds it raw
lines with `handle_line`, and drains `session.outbox` to the wire. Replies and events go
through the same outbox, so a client sees the events a command caused before its reply,
and every subscriber sees events in `seq` order.

Threading: `handle_line` may be called from any thread; commands run one at a time under
the dispatcher's lock. `publish` (the service's listener) may be called from any thread,
never blocks and never calls back into the service, so a slow client cannot stall a game.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from kiothi_board import __version__
from kiothi_board.api.access import AccessPolicy
from kiothi_board.api.args import Args, short
from kiothi_board.api.budget import DEFAULT_BUDGET, DEFAULT_MAX_REPLY, Outbox
from kiothi_board.api.protocol import (
    MAX_LINE,
    PROTOCOL,
    VERSION,
    ApiError,
    TooLong,
    encode,
    error_reply,
    ok_reply,
)
from kiothi_board.api.service import BoardService
from kiothi_board.errors import (
    BadArgumentError,
    ConflictError,
    KiothiError,
    NotFoundError,
    RulesError,
    StoreUsageError,
    UnknownGameError,
)
from kiothi_board.guide import PALETTES
from kiothi_board.hardware.clock import SystemClock
from kiothi_board.hardware.protocols import Clock, Frame
from kiothi_board.rules import pit_name

__all__ = [
    "COMMANDS",
    "CONTROL_COMMANDS",
    "DEFAULT_TOPICS",
    "TOPICS",
    "Dispatcher",
    "Outbox",
    "RateLimiter",
    "Session",
    "frame_to_hex",
]

log = logging.getLogger(__name__)

TOPICS: tuple[str, ...] = (
    "position",
    "guide",
    "move",
    "capture",
    "game_over",
    "input",
    "health",
    "new_game",
    "wrong",
    "hint",
    "error",
    "settings",
    "frame",
)
"""Event types a client may subscribe to (`overflow` is always sent)."""

DEFAULT_TOPICS: frozenset[str] = frozenset(TOPICS) - {"frame"}
"""What `subscribe` with no topics gives: everything but the LED frames (the bulky stream)."""

CONTROL_COMMANDS: frozenset[str] = frozenset(
    {
        "new_game",
        "tutorial",
        "press",
        "move",
        "opening",
        "undo",
        "hint",
        "resign",
        "end",
        "check",
        "settings.set",
    }
)
"""Commands that change the game or the board; they need the `control` role."""

COMMANDS: tuple[str, ...] = (
    "hello",
    "auth",
    "ping",
    "state",
    "frame",
    "subscribe",
    "unsubscribe",
    "settings.get",
    "games.list",
    "games.get",
    "health",
    *sorted(CONTROL_COMMANDS),
)

_ID_MAX = 2**53


def frame_to_hex(frame: Frame) -> list[str]:
    """A frame as 20 strings of `rrggbb` per LED: compact and trivial to draw in JS."""
    return ["".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in ring) for ring in frame]


class RateLimiter:
    """A token bucket: `rate` requests a second on average, bursts of up to `burst`."""

    def __init__(self, rate: float, burst: float, clock: Clock | None = None) -> None:
        """A full bucket."""
        self._rate = rate
        self._burst = burst
        self._clock = clock or SystemClock()
        self._tokens = burst
        self._last = self._clock.now()

    def allow(self) -> bool:
        """Take a token if there is one."""
        now = self._clock.now()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class Session:
    """One client of one transport: its role, subscriptions, rate limit and outbox."""

    _ids = itertools.count(1)

    def __init__(
        self,
        transport: str,
        peer: str,
        *,
        role: str,
        outbox: Outbox,
        limiter: RateLimiter,
    ) -> None:
        """Made by `Dispatcher.open_session`."""
        self.id = next(Session._ids)
        self.transport = transport
        self.peer = peer
        self.role = role
        self.outbox = outbox
        self.limiter = limiter
        self.topics: frozenset[str] = frozenset()
        self.client: str | None = None
        self.closed = False
        self.locked = False  # a page of a foreign Origin: may never take control

    def __repr__(self) -> str:
        return f"Session({self.transport!r}, {self.peer!r}, role={self.role!r}, id={self.id})"


class Dispatcher:
    """Parses request lines, runs commands on a `BoardService`, fans events out to sessions.

    `token` (None: no remote control) grants the `control` role to untrusted sessions;
    trusted ones (serial, Unix socket, loopback peers) have it from the start. `sim`
    tells clients that pit presses from the page stand in for the board.
    """

    def __init__(
        self,
        service: BoardService,
        *,
        token: str | None = None,
        sim: bool = False,
        max_line: int = MAX_LINE,
        rate: float = 50.0,
        burst: float = 200.0,
        outbox_limit: int = 2000,
        clock: Clock | None = None,
        access: AccessPolicy | None = None,
        budget: int = DEFAULT_BUDGET,
        max_reply: int = DEFAULT_MAX_REPLY,
    ) -> None:
        """Listen to `service`'s events; see the class docstring for the rest.

        `access` decides who may control (kiothi_board/api/access.py); `budget` is each
        client's byte budget and `max_reply` the largest reply (kiothi_board/api/budget.py).
        """
        self.service = service
        self._clock = clock or SystemClock()
        self.access = access or AccessPolicy(token=token, clock=self._clock, addresses=())
        self.budget = budget
        self.max_reply = max_reply
        self.sim = sim
        self.max_line = max_line
        self._rate = rate
        self._burst = burst
        self._outbox_limit = outbox_limit
        self._started = self._clock.now()
        self._cmd_lock = threading.RLock()
        self._hub_lock = threading.Lock()
        self._sessions: dict[int, Session] = {}
        self._taps: list[Callable[[str, dict[str, Any], bytes], None]] = []
        self._health: dict[str, Callable[[], Any]] = {}
        self._extra: dict[str, tuple[Callable[[Args], dict[str, Any]], bool]] = {}
        self._seq = 0
        self._pending_frame: dict[str, Any] | None = None  # the newest frame pushed, not yet sent
        self.requests = 0
        self.errors = 0
        self._closed = False
        service.add_listener(self.publish)

    # ------------------------------------------------------------------ sessions
    def open_session(
        self,
        transport: str,
        peer: str,
        *,
        trusted: bool,
        wake: Callable[[], None],
        on_over: Callable[[str], None] | None = None,
        pending: Callable[[], int] | None = None,
    ) -> Session:
        """A new client; `wake` is called when its outbox gets lines to send.

        `on_over(reason)` cuts the client off when it is over its byte budget; `pending`
        tells the bytes its transport holds unsent (counted in the budget).
        """
        outbox = Outbox(
            self._outbox_limit, wake, byte_limit=self.budget, on_over=on_over, pending=pending
        )
        session = Session(
            transport,
            peer,
            role="control" if trusted else "spectator",
            outbox=outbox,
            limiter=RateLimiter(self._rate, self._burst, self._clock),
        )
        with self._hub_lock:
            self._sessions[session.id] = session
        log.debug("api: %s client %s connected as %s", transport, peer, session.role)
        return session

    def close_session(self, session: Session) -> None:
        """Forget a client (idempotent)."""
        with self._hub_lock:
            self._sessions.pop(session.id, None)
        if not session.closed:
            session.closed = True
            log.debug("api: %s client %s disconnected", session.transport, session.peer)

    def sessions(self) -> list[Session]:
        """The open sessions."""
        with self._hub_lock:
            return list(self._sessions.values())

    def add_tap(self, tap: Callable[[str, dict[str, Any], bytes], None]) -> None:
        """Also give every event (type, message, encoded line) to `tap` (the Redis bus)."""
        with self._hub_lock:
            self._taps.append(tap)

    def remove_tap(self, tap: Callable[[str, dict[str, Any], bytes], None]) -> None:
        """Stop giving events to `tap`."""
        with self._hub_lock:
            if tap in self._taps:
                self._taps.remove(tap)

    def add_command(
        self, name: str, fn: Callable[[Args], dict[str, Any]], *, control: bool
    ) -> None:
        """Serve `name` with `fn` (the exhibit's `stats`, the simulator's `sim.*`); with
        `control`, only control sessions may call it."""
        if name in _HANDLERS:
            raise ValueError(f"command {name!r} is built in")
        self._extra[name] = (fn, control)

    def add_health(self, name: str, source: Callable[[], Any]) -> None:
        """Report `source()` under `name` in `health`."""
        self._health[name] = source

    def close(self) -> None:
        """Stop listening to the service (idempotent)."""
        if not self._closed:
            self._closed = True
            self.service.remove_listener(self.publish)

    # ------------------------------------------------------------------ events
    @property
    def seq(self) -> int:
        """The sequence number of the last event published."""
        return self._seq

    def wants(self, topic: str) -> bool:
        """Whether any session subscribes to `topic` (taps are not asked: the Redis bus
        takes no frames)."""
        with self._hub_lock:
            return any(topic in s.topics for s in self._sessions.values())

    def publish(self, event: dict[str, Any]) -> None:
        """Send one service event to its subscribers; never blocks, never raises.

        A `frame` event (pushed by the board after each new frame) is only kept: the
        server's pump sends the newest with `flush_frame`, at most `frame_fps` a second.
        """
        if event.get("type") == "frame":
            with self._hub_lock:
                self._pending_frame = event
            return
        self._publish(event)

    def flush_frame(self) -> bool:
        """Send the newest pushed frame to its subscribers if it is new; whether it was."""
        with self._hub_lock:
            event, self._pending_frame = self._pending_frame, None
            wanted = any("frame" in s.topics for s in self._sessions.values())
        if event is None or not wanted:
            return False
        leds = event.get("leds_per_ring", self.service.leds_per_ring)
        self._publish(
            {"type": "frame", "leds_per_ring": leds, "frame": frame_to_hex(event["frame"])}
        )
        return True

    def _publish(self, event: dict[str, Any]) -> None:
        try:
            kind = str(event.get("type", "error"))
            body = {k: v for k, v in event.items() if k != "type"}
            if "id" in body:
                # Only replies carry "id" (the request's); a game's id is "game_id" here.
                body["game_id"] = body.pop("id")
            with self._hub_lock:
                self._seq += 1
                message = {"event": kind, "seq": self._seq, **body}
                line = encode(message)
                # Under the lock, so every subscriber queues events in seq order.
                for session in self._sessions.values():
                    if kind in session.topics:
                        session.outbox.put(line)
                taps = list(self._taps)
            for tap in taps:
                tap(kind, message, line)
        except Exception:  # a listener that raises would break the controller's emit
            log.exception("api: could not publish event %r", event.get("type"))

    def publish_health(self) -> None:
        """Push a `health` event."""
        self._publish({"type": "health", **self.health()})

    def health(self) -> dict[str, Any]:
        """Uptime, clients per transport, events and request counters, other sources."""
        counts: dict[str, int] = {}
        for s in self.sessions():
            counts[s.transport] = counts.get(s.transport, 0) + 1
        out: dict[str, Any] = {
            "status": "ok",
            "uptime": round(self._clock.now() - self._started, 3),
            "clients": counts,
            "events": self._seq,
            "requests": self.requests,
            "errors": self.errors,
        }
        for name, source in self._health.items():
            try:
                out[name] = source()
            except Exception as exc:  # health must answer even when a part is broken
                out[name] = {"status": "error", "message": str(exc)}
        return out

    # ------------------------------------------------------------------ requests
    def handle_line(self, session: Session, line: bytes | str | TooLong) -> dict[str, Any] | None:
        """Handle one line from `session`: queue the reply on its outbox and return it.

        Blank lines and lines that are our own replies or events (an echoing terminal or
        a `loop://` port) are ignored and return None.
        """
        reply = self._reply(session, line)
        if reply is not None:
            encoded = encode(reply)
            if len(encoded) > self.max_reply:
                reply = error_reply(
                    reply["id"],
                    "unavailable",
                    f"the reply of {len(encoded)} bytes exceeds max_reply ({self.max_reply}); "
                    "ask for less (a smaller games.list limit)",
                )
                encoded = encode(reply)
            with self._hub_lock:  # several transport threads count here
                self.requests += 1
                if not reply["ok"]:
                    self.errors += 1
            session.outbox.put(encoded)
        return reply

    def _reply(self, session: Session, line: bytes | str | TooLong) -> dict[str, Any] | None:
        if isinstance(line, TooLong):
            return error_reply(
                None, "line_too_long", f"line of {line.size} bytes exceeds {self.max_line}"
            )
        if isinstance(line, bytes):
            if len(line) > self.max_line:
                return error_reply(
                    None, "line_too_long", f"line of {len(line)} bytes exceeds {self.max_line}"
                )
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                return error_reply(None, "parse_error", f"not UTF-8: {exc.reason} at {exc.start}")
        else:
            text = line
            if len(text) > self.max_line:
                return error_reply(
                    None, "line_too_long", f"line of {len(text)} chars exceeds {self.max_line}"
                )
        if not text.strip():
            return None
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return error_reply(None, "parse_error", f"not JSON: {short(str(exc))}")
        if not isinstance(msg, dict):
            return error_reply(
                None, "invalid_request", f"expected an object, got {type(msg).__name__}"
            )
        if "cmd" not in msg and _is_ours(msg):
            return None
        rid = msg.get("id")
        if not _valid_id(rid):
            return error_reply(None, "invalid_request", f"bad or missing id: {short(repr(rid))}")
        extra = set(msg) - {"id", "cmd", "args", "v"}
        if extra:
            return error_reply(rid, "invalid_request", f"unknown keys {sorted(extra)!r}")
        if "v" in msg and (msg["v"] != VERSION or isinstance(msg["v"], bool)):
            return error_reply(
                rid, "unsupported_version", f"version {short(repr(msg['v']))}; this is {VERSION}"
            )
        cmd = msg.get("cmd")
        if not isinstance(cmd, str):
            return error_reply(rid, "invalid_request", f"cmd must be a string: {short(repr(cmd))}")
        added = self._extra.get(cmd)
        if cmd not in _HANDLERS and added is None:
            return error_reply(rid, "unknown_command", f"unknown command {short(repr(cmd))}")
        args = msg.get("args", {})
        if not isinstance(args, dict):
            return error_reply(rid, "bad_args", f"args must be an object: {short(repr(args))}")
        if not session.limiter.allow():
            return error_reply(rid, "rate_limited", "too many requests; slow down")
        needs_control = cmd in CONTROL_COMMANDS or (added is not None and added[1])
        if needs_control and session.role != "control":
            return error_reply(
                rid, "unauthorized", f"{cmd} needs control: send hello with the board's token"
            )
        return self._run(session, rid, cmd, args)

    def _run(self, session: Session, rid: Any, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run a checked request; only the project's own errors become error codes."""
        try:
            with self._cmd_lock:
                added = self._extra.get(cmd)
                if added is not None:
                    result = added[0](Args(cmd, args, TOPICS))
                else:
                    result = _HANDLERS[cmd](self, session, Args(cmd, args, TOPICS))
        except ApiError as exc:
            return error_reply(rid, exc.code, exc.message)
        except KiothiError as exc:
            code = _code_of(exc)
            if code == "internal":
                log.exception("api: %s failed", cmd)
            return error_reply(rid, code, short(str(exc)))
        except Exception as exc:  # a bug, not the client's fault: say so, keep the session
            log.exception("api: %s failed", cmd)
            return error_reply(rid, "internal", f"{cmd} failed: {type(exc).__name__}")
        return ok_reply(rid, result)

    # ------------------------------------------------------------------ commands
    def _hello(self, session: Session, a: Args) -> dict[str, Any]:
        secrets_ = {k: a.opt_text(k, 256) for k in ("token", "pin", "ticket")}
        client = a.opt_text("client", 64)
        a.done()
        ticket = None
        if any(secrets_.values()):
            ticket = self._authorize(session, **secrets_)
        if client is not None:
            session.client = client
        extra = {} if ticket is None else {"ticket": ticket}
        return extra | {
            "protocol": PROTOCOL,
            "version": VERSION,
            "server": f"kiothi-board {__version__}",
            "session": session.id,
            "transport": session.transport,
            "role": session.role,
            "sim": self.sim,
            "capabilities": self._capabilities(),
            "commands": list(COMMANDS),
            "control_commands": sorted(CONTROL_COMMANDS),
            "topics": list(TOPICS),
            "board": {
                "pits": 20,
                "south": [pit_name(p) for p in range(10)],
                "north": [pit_name(p) for p in range(10, 20)],
                "sowing": "counter-clockwise",
                "leds_per_ring": self.service.leds_per_ring,
                "led_order": "LED 0 at the ring's top as its owner sees it, then clockwise",
            },
            "limits": {"max_line": self.max_line, "rate": self._rate, "burst": self._burst},
        }

    def _capabilities(self) -> list[str]:
        caps = ["events", "frames", "games", "settings", "press"]
        if self.sim:
            caps.append("sim")
        if self.access.accepts_secrets:
            caps.append("token")
        caps.extend(sorted(self._health))  # optional parts that report health ("redis")
        return caps

    def _authorize(self, session: Session, **secrets_: str | None) -> str:
        """Check a token, PIN or ticket (kiothi_board/api/access.py); returns a ticket."""
        ticket = self.access.authenticate(session.peer, locked=session.locked, **secrets_)
        session.role = "control"
        return ticket

    def _auth(self, session: Session, a: Args) -> dict[str, Any]:
        secrets_ = {k: a.opt_text(k, 256) for k in ("token", "pin", "ticket")}
        a.done()
        ticket = self._authorize(session, **secrets_)
        return {"role": session.role, "ticket": ticket}

    def _ping(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        return {"time": self._clock.wall()}

    def _state(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        return {"state": self.service.state(), "seq": self._seq}

    def _frame(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        return {
            "leds_per_ring": self.service.leds_per_ring,
            "frame": frame_to_hex(self.service.frame()),
        }

    def _subscribe(self, session: Session, a: Args) -> dict[str, Any]:
        topics = a.topics()
        a.done()
        with self._hub_lock:
            session.topics = session.topics | (DEFAULT_TOPICS if topics is None else topics)
            seq = self._seq
        return {"topics": sorted(session.topics), "seq": seq}

    def _unsubscribe(self, session: Session, a: Args) -> dict[str, Any]:
        topics = a.topics()
        a.done()
        with self._hub_lock:
            session.topics = frozenset() if topics is None else session.topics - topics
        return {"topics": sorted(session.topics)}

    def _settings_get(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        return {"settings": self.service.get_settings()}

    def _settings_set(self, session: Session, a: Args) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if "palette" in a:
            values["palette"] = a.choice("palette", tuple(PALETTES))
        if "brightness" in a:
            values["brightness"] = a.number("brightness", 0.0, 1.0)
        values.update(a.game_settings(required=False))
        a.done()
        if not values:
            raise ApiError("bad_args", "settings.set: nothing to set")
        return {"settings": self.service.set_settings(values)}

    def _games_list(self, session: Session, a: Args) -> dict[str, Any]:
        limit = a.integer("limit", 1, 200, 50)
        offset = a.integer("offset", 0, 10**9, 0)
        a.done()
        return {"games": self.service.list_games(limit, offset)}

    def _games_get(self, session: Session, a: Args) -> dict[str, Any]:
        gid = a.integer("id", 1, 2**62)
        a.done()
        game = self.service.get_game(gid)
        if game is None:
            raise ApiError("not_found", f"no game {gid}")
        return {"game": game}

    def _health_cmd(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        return self.health()

    def _new_game(self, session: Session, a: Args) -> dict[str, Any]:
        given = a.game_settings(required=False)
        a.done()
        s = {**self.service.get_settings(), **given}
        gid = self.service.new_game(
            str(s["mode"]), str(s["sides"]), s["level"], str(s["pace"]), dict(s["variant"])
        )
        return {"game_id": gid}

    def _press(self, session: Session, a: Args) -> dict[str, Any]:
        pit = a.pit("pit")
        hold = a.opt_bool("hold")
        a.done()
        self.service.press(pit, hold=bool(hold))
        return {"pit": pit_name(pit)}

    def _tutorial(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        return {"game_id": self.service.tutorial()}

    def _move(self, session: Session, a: Args) -> dict[str, Any]:
        pit = a.pit("pit")
        a.done()
        self.service.move(pit)
        return {"pit": pit_name(pit)}

    def _opening(self, session: Session, a: Args) -> dict[str, Any]:
        action = a.text("action", 400)
        a.done()
        from kiothi_board.rules import parse_opening

        try:
            parsed = parse_opening(action)
        except RulesError as exc:
            raise ApiError("bad_args", f"opening: {short(str(exc))}") from exc
        self.service.opening(str(parsed))
        return {"action": str(parsed)}

    def _undo(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        self.service.undo()
        return {}

    def _hint(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        self.service.hint()
        return {}

    def _resign(self, session: Session, a: Args) -> dict[str, Any]:
        side = a.opt_choice("side", ("S", "N"))
        a.done()
        self.service.resign(side)
        return {}

    def _end(self, session: Session, a: Args) -> dict[str, Any]:
        a.done()
        self.service.end()
        return {}

    def _check(self, session: Session, a: Args) -> dict[str, Any]:
        on = a.opt_bool("on")
        a.done()
        return {"check": self.service.check_board(on)}


_HANDLERS: dict[str, Callable[[Dispatcher, Session, Args], dict[str, Any]]] = {
    "hello": Dispatcher._hello,
    "auth": Dispatcher._auth,
    "ping": Dispatcher._ping,
    "state": Dispatcher._state,
    "frame": Dispatcher._frame,
    "subscribe": Dispatcher._subscribe,
    "unsubscribe": Dispatcher._unsubscribe,
    "settings.get": Dispatcher._settings_get,
    "settings.set": Dispatcher._settings_set,
    "games.list": Dispatcher._games_list,
    "games.get": Dispatcher._games_get,
    "health": Dispatcher._health_cmd,
    "new_game": Dispatcher._new_game,
    "press": Dispatcher._press,
    "tutorial": Dispatcher._tutorial,
    "move": Dispatcher._move,
    "opening": Dispatcher._opening,
    "undo": Dispatcher._undo,
    "hint": Dispatcher._hint,
    "resign": Dispatcher._resign,
    "end": Dispatcher._end,
    "check": Dispatcher._check,
}


def _code_of(exc: KiothiError) -> str:
    """The reply code of one of the project's errors (anything else is `internal`)."""
    if isinstance(exc, NotFoundError | UnknownGameError):
        return "not_found"
    if isinstance(exc, RulesError):
        return "illegal"
    if isinstance(exc, BadArgumentError | StoreUsageError):
        return "bad_args"
    if isinstance(exc, ConflictError):
        return "conflict"
    return "internal"


def _valid_id(rid: Any) -> bool:
    if isinstance(rid, bool):
        return False
    if isinstance(rid, int):
        return -_ID_MAX <= rid <= _ID_MAX
    return isinstance(rid, str) and 0 < len(rid) <= 64


def _is_ours(msg: dict[str, Any]) -> bool:
    """A reply or event of this protocol (seen when a port echoes our own output)."""
    reply = "ok" in msg and "id" in msg and ("result" in msg or "error" in msg)
    event = isinstance(msg.get("event"), str) and ("seq" in msg or msg["event"] == "overflow")
    return reply or event
