"""The one dispatcher behind every transport: sessions, commands, events, limits.

A transport opens a `ClientSession` per client (the serial port is one client), feeds it raw
lines with `handle_line`, and drains `session.outbox` to the wire. Replies and events go
through the same outbox, so a client sees the events a command caused before its reply,
and every subscriber sees events in `seq` order.

Threading: `handle_line` may be called from any thread; commands run one at a time under
the dispatcher's lock. `publish` (the service's listener) may be called from any thread,
never blocks and never calls back into the service, so a slow client cannot stall a game.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kiothi_board.api.access import AccessPolicy, Held
from kiothi_board.api.budget import DEFAULT_BUDGET, DEFAULT_MAX_REPLY, Outbox
from kiothi_board.api.commands import (
    COMMANDS,
    CONTROL_COMMANDS,
    DEFAULT_TOPICS,
    TOPICS,
    CommandHandlers,
    _code_of,
    frame_to_hex,
    refusal,
)
from kiothi_board.api.fanout import EventFanout
from kiothi_board.api.lines import (
    MALFORMED_RUN,
    MAX_DROPPED_RUN,
    decode_line,
    parse_request,
)
from kiothi_board.api.protocol import (
    MAX_LINE,
    ApiError,
    TooLong,
    encode,
    error_reply,
    ok_reply,
)
from kiothi_board.api.service import BoardService
from kiothi_board.api.session import ClientSession, RateLimiter
from kiothi_board.clock import Clock, SystemClock
from kiothi_board.controller.spec import ArgError, CommandSpec, allowed, short
from kiothi_board.controller.table import TABLE, CommandTable
from kiothi_board.errors import KiothiError, StoreError
from kiothi_board.i18n import DEFAULT_LANGUAGE, Msg, localize, tr

STORE_LOG_SECONDS = 60.0
"""A store that cannot write (a full disk) fails every request that writes: one log line a
minute says how many, instead of a traceback each."""

__all__ = [
    "COMMANDS",
    "CONTROL_COMMANDS",
    "DEFAULT_TOPICS",
    "TOPICS",
    "ClientSession",
    "Dispatcher",
    "Outbox",
    "RateLimiter",
    "frame_to_hex",
]

log = logging.getLogger(__name__)


class Dispatcher(EventFanout, CommandHandlers):
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
        languages: tuple[str, ...] = (DEFAULT_LANGUAGE,),
        table: CommandTable = TABLE,
    ) -> None:
        """Listen to `service`'s events; see the class docstring for the rest.

        `access` decides who may control (kiothi_board/api/access.py); `budget` is each
        client's byte budget and `max_reply` the largest reply (kiothi_board/api/budget.py).
        `languages` are the ones the venue enabled, its default first: a session that chose
        none (`hello` `lang`) reads the board's current one (a `language` event changes it).
        `table`: the commands it serves (a copy: `add_command` adds to this door's alone).
        """
        self.service = service
        self.table = CommandTable(tuple(table))
        self.languages = languages
        self.language = languages[0]
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
        self._sessions: dict[int, ClientSession] = {}
        self._taps: list[Callable[[str, dict[str, Any], bytes], None]] = []
        self._health: dict[str, Callable[[], Any]] = {}
        self._extra: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {}
        self._seq = 0
        self._pending_frame: dict[str, Any] | None = None  # the newest frame pushed, not yet sent
        self.requests = 0
        self.errors = 0
        self.dropped = 0  # malformed lines over a client's rate, dropped unanswered
        self._store_failures = 0
        self._store_logged = -STORE_LOG_SECONDS
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
    ) -> ClientSession:
        """A new client; `wake` is called when its outbox gets lines to send.

        `on_over(reason)` cuts the client off when it is over its byte budget; `pending`
        tells the bytes its transport holds unsent (counted in the budget). A seat (role
        `seat`, one side only) is only ever taken with a seat link's ticket (`hello`).
        """
        outbox = Outbox(
            self._outbox_limit, wake, byte_limit=self.budget, on_over=on_over, pending=pending
        )
        session = ClientSession(
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

    def close_session(self, session: ClientSession) -> None:
        """Forget a client (idempotent)."""
        with self._hub_lock:
            self._sessions.pop(session.id, None)
        if not session.closed:
            session.closed = True
            log.debug("api: %s client %s disconnected", session.transport, session.peer)

    def sessions(self) -> list[ClientSession]:
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
        self, spec: CommandSpec, fn: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> None:
        """Serve `spec` with `fn`, which takes the read arguments and returns the reply's
        result (the exhibit's `stats`, the simulator's `sim.*`): an entry of this door's
        table like the built-in ones (its role, its help, its schema)."""
        self.table.add(spec)
        self._extra[spec.name] = fn

    def add_health(self, name: str, source: Callable[[], Any]) -> None:
        """Report `source()` under `name` in `health`."""
        self._health[name] = source

    def close(self) -> None:
        """Stop listening to the service (idempotent)."""
        if not self._closed:
            self._closed = True
            self.service.remove_listener(self.publish)

    # ------------------------------------------------------------------ requests
    def handle_line(
        self, session: ClientSession, line: bytes | str | TooLong
    ) -> dict[str, Any] | None:
        """Handle one line from `session`: queue the reply on its outbox and return it.

        Blank lines and lines that are our own replies or events (an echoing terminal or
        a `loop://` port) are ignored and return None.
        """
        reply = self._reply(session, line)
        if reply is not None:
            reply = localize(reply, session.lang or self.language)  # words in its language
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

    def _known(self, cmd: str) -> bool:
        spec = self.table.get(cmd)
        return spec is not None and spec.door

    def _malformed(self, session: ClientSession, reply: dict[str, Any]) -> dict[str, Any] | None:
        """A line that is not a request costs a request: over the client's rate it is
        dropped unanswered (a flood of `{}` must not be answered at any rate)."""
        if session.limiter.allow():
            return reply
        with self._hub_lock:
            self.dropped += 1
        session.dropped_run += 1
        if session.dropped_run >= MAX_DROPPED_RUN:  # it sends nothing else: let it go
            session.outbox.cut_off(f"{session.dropped_run} {MALFORMED_RUN}")
        return None

    def _reply(self, session: ClientSession, line: bytes | str | TooLong) -> dict[str, Any] | None:
        text = decode_line(line, self.max_line)
        if isinstance(text, dict):
            return self._malformed(session, text)
        checked = parse_request(text, self.max_line, self._known)
        if checked is None:
            return None
        if isinstance(checked, dict):
            return self._malformed(session, checked)
        rid, cmd, args = checked
        session.dropped_run = 0
        if not session.limiter.allow():
            return error_reply(rid, "rate_limited", "too many requests; slow down")
        spec = self.table[cmd]
        if not allowed(session.role, spec.role):
            return error_reply(rid, "unauthorized", refusal(spec, session))
        return self._run(session, rid, spec, args)

    def _serve(self, session: ClientSession, spec: CommandSpec, raw: dict[str, Any]) -> Any:
        """Read the arguments by the spec, then run the command where it is served."""
        args = spec.read(raw)
        if session.role == "seat":
            self._seated(session, spec, args)
        fn = self._extra.get(spec.name)
        if fn is not None:
            return fn(args)
        if spec.handler is None:
            door: Callable[[ClientSession, dict[str, Any]], Any] = getattr(
                self, "_cmd_" + spec.name.replace(".", "_")
            )
            return door(session, args)
        result = self.service.call(spec.name, **args)
        return spec.reply(result, args)

    def _seated(self, session: ClientSession, spec: CommandSpec, args: dict[str, Any]) -> None:
        """A seat plays its own side: its own pits, its own resignation, on its own turn."""
        side = session.seat
        pit = args.get("pit")
        if "side" in args:
            args["side"] = args["side"] or side
        own = (pit is None or (pit < 10) == (side == "S")) and args.get("side", side) == side
        if not own:
            raise ApiError("unauthorized", refusal(spec, session))
        if spec.role != "seat":
            return  # what a spectator may do (state, help, …)
        if not self.access.seat_live(session.seat_ticket):
            raise ApiError("unauthorized", tr("This seat was given to someone else."))
        state = self.service.state()
        if side not in (state.get("settings") or {}).get("web", ()):
            # A link seats the web player of a game: not a side someone plays at the board.
            raise ApiError("unauthorized", tr("No game is waiting for the web player."))
        if spec.turn:
            position = state.get("position") or {}
            if position.get("to_move") != side:
                raise ApiError("conflict", tr("It is not {side}'s turn.", side=str(side)))

    def _run(
        self, session: ClientSession, rid: Any, spec: CommandSpec, args: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Run a checked request; only the project's own errors become error codes (None:
        a PIN waits its turn, and the door sends the request again)."""
        cmd = spec.name
        try:
            with self._cmd_lock:
                result = self._serve(session, spec, args)
        except Held as exc:
            if not session.can_wait:
                return error_reply(rid, exc.code, exc.message)
            session.held = True
            return None
        except ArgError as exc:  # the whole message: it names the argument and what it takes
            return error_reply(rid, "bad_args", str(exc))
        except ApiError as exc:
            return error_reply(rid, exc.code, exc.message)
        except StoreError as exc:  # a full disk: not a bug, and not a traceback per request
            self._store_failed(cmd, exc)
            return error_reply(rid, "unavailable", short(str(exc)))
        except KiothiError as exc:
            code = _code_of(exc)
            if code == "internal":
                log.exception("api: %s failed", cmd)
            said = exc.args[0] if exc.args and isinstance(exc.args[0], Msg) else None
            return error_reply(rid, code, said or short(str(exc)))  # words: the reader's language
        except Exception as exc:  # a bug, not the client's fault: say so, keep the session
            log.exception("api: %s failed", cmd)
            return error_reply(rid, "internal", f"{cmd} failed: {type(exc).__name__}")
        return ok_reply(rid, result)

    def _store_failed(self, cmd: str, exc: StoreError) -> None:
        """Log a store failure once per STORE_LOG_SECONDS, with how many there were."""
        with self._hub_lock:
            self._store_failures += 1
            now = self._clock.now()
            if now < self._store_logged + STORE_LOG_SECONDS:
                return
            self._store_logged, count, self._store_failures = now, self._store_failures, 0
        log.error("api: %d request(s) failed (last: %s): %s", count, cmd, exc)
