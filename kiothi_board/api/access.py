"""Who may control the board: decided here, once, for every door (docs/api.md, "Access").

| door      | control when                                                               |
| --------- | -------------------------------------------------------------------------- |
| serial    | always: physical access to the port                                        |
| unix      | always: the socket file's mode (0660) and owner are the access control     |
| redis     | always: whoever may write the Redis stream (secure Redis itself)           |
| tcp       | after the token, the staff PIN or a session ticket; from loopback at once  |
|           | only with `api.trust_loopback_tcp = true`                                  |
| websocket | after the token, the PIN, a ticket or the session cookie; a page of a      |
|           | foreign Origin stays a spectator whatever it sends                          |
| mqtt      | by the broker's user name: `mqtt.staff_users` control, others spectate;    |
|           | no secret is taken on the bus (api/mqtt_sessions.py)                       |

The web server also refuses requests whose `Host` is not a name it serves (DNS rebinding).
Secrets are compared first, in constant time, and a right one is never refused; every failure
goes through the `AuthLimiter`, and a PIN over its limits waits its turn (`Held`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import itertools
import secrets
import socket
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from kiothi_board.api.authlimit import AuthLimiter, TurnGate
from kiothi_board.api.protocol import ApiError
from kiothi_board.clock import Clock

__all__ = [
    "ALWAYS_CONTROL",
    "PURPOSES",
    "AccessPolicy",
    "Held",
    "cookie_name",
    "is_loopback",
    "machine_addresses",
    "new_token",
    "token_main",
]

ALWAYS_CONTROL = frozenset({"serial", "unix", "redis", "direct"})
"""Doors whose access is decided outside the protocol (a file mode, a cable, Redis)."""

MIN_TOKEN = 16
COOKIE = "kiothi_session"
_MAX_TICKETS = 256  # per purpose: churn of API sessions never ends a staff cookie session
ONCE_TTL = 600.0
"""Seconds a one-time ticket (the simulator's `#ticket=` link) may wait to be used."""
_MAX_ONCE = 8
SEAT_TTL = 600.0
"""Seconds a seat link (`seat_link`: a one-time `#seat=` link for one side) waits by default."""
_MAX_SEATS = 32
PURPOSES = ("api", "cookie", "once")
"""Tickets are kept per purpose: `api` (hello/auth with a token or PIN), `cookie` (POST
/session: the staff's browser), `once` (the simulator's link: used once, within ONCE_TTL,
exchanged for an `api` ticket)."""


def cookie_name(port: int | None) -> str:
    """The session cookie of the web door on `port`: browsers send a host's cookies to every
    port, so each board (each port) has its own name and never sees another's."""
    return COOKIE if port is None else f"{COOKIE}_{port}"


_REFRESH = 5.0  # seconds between re-reads of the machine's addresses
_TURN_KEPT = 10.0  # seconds a turn waits to be used by its peer's attempt


class Held(ApiError):
    """A PIN over the limits: the door waits its turn (`AccessPolicy.wait_turn`, without
    blocking anyone) and sends the same request again; a door that cannot wait answers it."""

    def __init__(self) -> None:
        """Always the same words: whether the PIN was right is not known yet."""
        super().__init__("rate_limited", "too many failed attempts; wait and try again")


def is_loopback(host: str | None) -> bool:
    """Whether `host` is a loopback address (127.0.0.0/8, ::1)."""
    if not host:
        return False
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A fresh random token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def token_main(argv: Sequence[str]) -> int:
    """`kiothi-board token`: print a new token for `api.token`."""
    if argv:
        print("usage: kiothi-board token   (prints a new random api.token)", file=sys.stderr)
        return 2
    print(new_token())
    return 0


def machine_addresses() -> set[str]:
    """This machine's own addresses and names (from the kernel's tables, no traffic)."""
    out = {socket.gethostname().lower()}
    out.add(out.copy().pop().split(".")[0] + ".local")
    try:
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
        for before, line in itertools.pairwise(lines):
            if "/32 host LOCAL" in line:
                out.add(before.strip().split()[-1])
    except OSError:
        pass
    try:
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0]
            out.add(str(ipaddress.ip_address(int(raw, 16))))
    except (OSError, ValueError, IndexError):
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            out.add(str(info[4][0]).split("%")[0])
    except OSError:
        pass
    return out


def _host_port(value: str, scheme: str = "http") -> tuple[str, int | None]:
    """A Host header or URL netloc as (name as `_host_name` gives it, port or None when it is
    the scheme's default)."""
    value = value.strip().lower()
    port: str | None = None
    if value.startswith("["):
        rest = value.split("]", 1)[1] if "]" in value else ""
        port = rest[1:] if rest.startswith(":") else None
    elif value.count(":") == 1:
        port = value.rsplit(":", 1)[1]
    number = int(port) if port and port.isdigit() else None
    if number == {"http": 80, "https": 443}.get(scheme):
        number = None
    return _host_name(value), number


def _host_name(value: str) -> str:
    """A Host header or URL netloc without its port, lower case, IPv6 without brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    if value.count(":") == 1:
        value = value.rsplit(":", 1)[0]
    return value.rstrip(".")


class AccessPolicy:
    """Roles per door, the names the web server answers to, secrets and session tickets."""

    def __init__(
        self,
        *,
        token: str | None = None,
        staff_pin: str | None = None,
        trust_loopback_tcp: bool = False,
        host_names: Iterable[str] = (),
        session_ttl: float = 12 * 3600.0,
        limiter: AuthLimiter | None = None,
        clock: Clock,
        addresses: Iterable[str] | None = None,
    ) -> None:
        """`addresses` (the machine's own) is read from the kernel when not given."""
        self._token = token or None
        self._pin = staff_pin or None
        self.trust_loopback_tcp = trust_loopback_tcp
        self._clock = clock
        self._ttl = session_ttl
        self.limiter = limiter or AuthLimiter(clock=clock)
        self._fixed = {"localhost", "127.0.0.1", "::1", *(_host_name(n) for n in host_names)}
        self._read_addresses = machine_addresses if addresses is None else None
        self.names = self._names(machine_addresses() if addresses is None else addresses)
        self._next_refresh = clock.now() + _REFRESH
        self._lock = threading.Lock()
        self._tickets: dict[str, OrderedDict[bytes, float]] = {p: OrderedDict() for p in PURPOSES}
        # Seats on the web: digest -> (until when, the side, whether it is a one-time link).
        self._seats: OrderedDict[bytes, tuple[float, str, bool]] = OrderedDict()
        self.turns = TurnGate(self.limiter)
        self._turns: dict[str, float] = {}  # peer -> until when its turn is kept

    def _names(self, addresses: Iterable[str]) -> frozenset[str]:
        return frozenset(n for n in (*self._fixed, *(_host_name(a) for a in addresses)) if n)

    def _served(self, name: str) -> bool:
        """Whether `name` is served; re-reads the machine's addresses (DHCP after boot) at
        most once per `_REFRESH` seconds when an unknown name is asked for."""
        if name in self.names:
            return True
        now = self._clock.now()
        if self._read_addresses is None or now < self._next_refresh:
            return False
        self._next_refresh = now + _REFRESH
        self.names = self._names(self._read_addresses())
        return name in self.names

    @property
    def accepts_secrets(self) -> bool:
        """Whether any secret (token or PIN) can grant control."""
        return self._token is not None or self._pin is not None

    # ------------------------------------------------------------------ roles
    def initial_role(self, door: str, host: str | None) -> str:
        """The role a new client of `door` from `host` starts with."""
        if door in ALWAYS_CONTROL:
            return "control"
        if door == "tcp" and self.trust_loopback_tcp and is_loopback(host):
            return "control"
        return "spectator"

    def host_allowed(self, host_header: str | None) -> bool:
        """Whether a request's `Host` names this board (else: DNS rebinding, refuse)."""
        return bool(host_header) and self._served(_host_name(host_header or ""))

    def origin_allowed(self, origin: str | None, host_header: str | None = None) -> bool:
        """Whether a request's `Origin` is a page this board served (None: not a browser).

        The port counts: a page on another port of the board's host is another site's page
        (another program's), so with `host_header` the Origin's port must be the Host's.
        """
        if origin is None:
            return True
        parts = urlsplit(origin.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # "null" (a sandboxed or file page) and anything odd
        name, port = _host_port(parts.netloc, parts.scheme)
        if host_header is not None and port != _host_port(host_header, parts.scheme)[1]:
            return False
        return self._served(name)

    # ------------------------------------------------------------------ secrets
    def authenticate(
        self,
        peer: str,
        *,
        token: str | None = None,
        pin: str | None = None,
        ticket: str | None = None,
        locked: bool = False,
        purpose: str = "api",
    ) -> str:
        """Check one secret; returns a session ticket (of `purpose`), or raises `ApiError`.

        `locked` (a page of a foreign Origin): refused whatever is sent. A one-time ticket is
        spent here and answered with a new `api` ticket.
        """
        given = [(k, v) for k, v in (("token", token), ("PIN", pin), ("ticket", ticket)) if v]
        if len(given) != 1:
            raise ApiError("bad_args", "send exactly one of token, pin, ticket")
        what, secret = given[0]
        if locked:
            raise ApiError("unauthorized", "a page of another origin cannot take control")
        expected = {"token": self._token, "PIN": self._pin}.get(what)
        if what != "ticket" and expected is None:
            raise ApiError("unauthorized", f"this board accepts no {what}")
        if what == "ticket":
            if self._spend_once(secret):
                return self.issue_ticket(purpose)
            ok = self.check_ticket(secret)
        else:
            assert expected is not None
            # compare_digest: a timing side channel must not leak the secret byte by byte.
            ok = hmac.compare_digest(secret.encode(), expected.encode())
        if ok and what != "PIN":
            # Compared first: a right token or ticket (unguessable) is never refused.
            return secret if what == "ticket" else self.issue_ticket(purpose)
        if not self._take_turn(peer) and not self.limiter.allow(peer):
            if what == "PIN":
                raise Held  # right or wrong, it waits its turn: no timing tells which
            raise ApiError("rate_limited", "too many failed attempts; wait and try again")
        if ok:
            return self.issue_ticket(purpose)
        self.limiter.failed(peer, what)
        raise ApiError("unauthorized", f"wrong {what}")

    async def wait_turn(self, peer: str, alive: Callable[[], bool] = lambda: True) -> bool:
        """Wait (on the API's loop) until `peer`'s held PIN may be compared; whether it
        may (False: its connection went away meanwhile)."""
        if not await self.turns.turn(alive):
            return False
        now = self._clock.now()
        with self._lock:
            for key in [k for k, until in self._turns.items() if until < now]:
                del self._turns[key]
            self._turns[peer] = now + _TURN_KEPT
        return True

    def _take_turn(self, peer: str) -> bool:
        with self._lock:
            until = self._turns.pop(peer, None)
        return until is not None and until >= self._clock.now()

    def issue_ticket(self, purpose: str = "api") -> str:
        """A new session ticket with the token's rights: `session_ttl` seconds, or for
        `once` ONCE_TTL seconds and one use. Each purpose keeps its newest tickets."""
        if purpose not in PURPOSES:
            raise ValueError(f"ticket purpose must be one of {PURPOSES}, got {purpose!r}")
        ticket = secrets.token_urlsafe(24)
        ttl, cap = (ONCE_TTL, _MAX_ONCE) if purpose == "once" else (self._ttl, _MAX_TICKETS)
        with self._lock:
            pool = self._tickets[purpose]
            pool[_digest(ticket)] = self._clock.now() + ttl
            while len(pool) > cap:
                pool.popitem(last=False)
        return ticket

    def _live(self, purpose: str, key: bytes, *, spend: bool = False) -> bool:
        pool = self._tickets[purpose]
        expiry = pool.get(key)
        if expiry is None:
            return False
        if expiry < self._clock.now() or spend:
            del pool[key]
        return expiry >= self._clock.now()

    def _spend_once(self, ticket: str) -> bool:
        with self._lock:
            return self._live("once", _digest(ticket), spend=True)

    def check_ticket(self, ticket: str | None, purposes: Sequence[str] = ("api", "cookie")) -> bool:
        """Whether `ticket` is a live session of one of `purposes` (looked up by its hash:
        no timing leak). One-time tickets are only good for `authenticate`."""
        if not ticket:
            return False
        key = _digest(ticket)
        with self._lock:
            return any(self._live(p, key) for p in purposes if p != "once")

    def issue_seat(self, side: str, ttl: float = SEAT_TTL) -> str:
        """A seat link's secret for `side`: good once, within `ttl` seconds, exchanged for
        a session of role `seat` that plays `side` only (`take_seat`). A new link for a side
        retires every earlier link and seat session of that side: the phone of the last
        visitor who played North cannot play in the next visitor's game."""
        with self._lock:
            for key in [k for k, (_, s, _) in self._seats.items() if s == side]:
                del self._seats[key]
        return self._add_seat(side, ttl, once=True)

    def seat_live(self, ticket: str | None) -> bool:
        """Whether a seat's session ticket is still good (not expired, not retired)."""
        if not ticket:
            return False
        with self._lock:
            seat = self._seats.get(_digest(ticket))
        return seat is not None and not seat[2] and seat[0] >= self._clock.now()

    def _add_seat(self, side: str, ttl: float, *, once: bool) -> str:
        ticket = secrets.token_urlsafe(24)
        with self._lock:
            self._seats[_digest(ticket)] = (self._clock.now() + ttl, side, once)
            while len(self._seats) > _MAX_SEATS:
                self._seats.popitem(last=False)
        return ticket

    def take_seat(self, ticket: str) -> tuple[str, str] | None:
        """(the side, a session ticket for its reconnections) for a live seat link (spent
        now) or a seat's session ticket; None for anything else (the caller goes on to
        `authenticate`, which counts a wrong secret)."""
        key = _digest(ticket)
        now = self._clock.now()
        with self._lock:
            seat = self._seats.get(key)
            if seat is None:
                return None
            until, side, once = seat
            if until < now or once:
                del self._seats[key]
            if until < now:
                return None
        return side, (self._add_seat(side, self._ttl, once=False) if once else ticket)

    def health(self) -> dict[str, int]:
        """Authentication counters and live sessions, for `health`."""
        with self._lock:
            live = sum(len(self._tickets[p]) for p in ("api", "cookie"))
        return {**self.limiter.health(), "sessions": live, "waiting": self.turns.waiting}


def _digest(ticket: str) -> bytes:
    return hashlib.sha256(ticket.encode()).digest()
