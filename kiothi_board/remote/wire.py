"""One board's side of remote play on the broker (paho-mqtt; topics in `topics.py`).

The wire holds the match (`match.Match`, the checker) under one lock: actions come from the
broker on paho's thread and from the board's own notices on the board loop's thread. The
game itself stays the board's: a checked remote move is handed to the controller through
the remote opponent (`opponent.py`), which the loop polls like the AI; a remote ending
(resign, agreement, claim) is run as the board's own command on a worker thread, never on
paho's. Nothing here takes a secret: the broker's user is the identity, by the ACL.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiothi_board.clock import Clock
from kiothi_board.controller.events import Resign
from kiothi_board.controller.notices import Applied, Notice, Started
from kiothi_board.controller.opponent import Choice
from kiothi_board.errors import ConflictError, KiothiError
from kiothi_board.i18n import tr
from kiothi_board.remote.actions import PLAYS, Action, BadActionError, Kind, position_hash
from kiothi_board.remote.invites import Invitations
from kiothi_board.remote.match import Checked, Desync, Gap, Match, MatchSpec
from kiothi_board.remote.opponent import MatchOpponents, remote_spec
from kiothi_board.remote.presence import Presence
from kiothi_board.remote.topics import MatchInvitation, MatchTopics
from kiothi_board.rules import Position, Side, parse_opening, parse_pit

__all__ = ["RemoteSettings", "RemoteWire"]

log = logging.getLogger(__name__)

Caller = Callable[..., Any]
"""`board.call(name, **args)`: run a command of the table on the board loop."""


@dataclass(frozen=True, slots=True)
class RemoteSettings:
    """The `[remote]` table: this board's id, name and language on the bus, the prefix,
    how long an absence must last before a claim, how long an invitation stands, and the
    boards an exhibition accepts invitations from (empty: any)."""

    board: str
    name: str
    lang: str = "en"
    prefix: str = "kiothi/v1"
    gone_s: float = 120.0
    invite_s: float = 60.0
    accept_from: tuple[str, ...] = ()
    exhibition: bool = False
    pace: str = "step"
    beat_s: float = 30.0  # how often a board in a match says it is there (mqtt.keepalive)
    state_file: str = ""  # where the match on is kept, to go on after a restart


class RemoteWire(Invitations):
    """Invitations, the match's log, presence and claims for one board."""

    def __init__(
        self,
        settings: RemoteSettings,
        *,
        call: Caller,
        opponents: MatchOpponents,
        clock: Clock,
        poke: Callable[[], object] | None = None,
    ) -> None:
        """`call` runs the board's commands; `opponents` is the board's opponent factory;
        `poke` runs a tick on the board loop now (a remote move is lit at once, not at the
        next of the loop's own ticks)."""
        self._poke = poke
        self.settings = settings
        self.topics = MatchTopics(settings.prefix, settings.board)
        self._call = call
        self._opponents = opponents
        self._clock = clock
        self._lock = threading.RLock()
        self._client: Any = None
        self.match: Match | None = None
        self._after: dict[str, Choice] = {}  # position hash before -> the remote's action
        self.invitations: dict[str, MatchInvitation] = {}  # host -> its invitation to us
        self.sent: MatchInvitation | None = None
        self.presence = Presence(clock, settings.beat_s)
        self.lobby: dict[str, dict[str, Any]] = {}
        self.stopped: str | None = None
        self.refused = 0
        self.duplicates = 0
        self.sent_bytes = 0  # topics and payloads this board published (bench remote)
        self._live = False  # the board's current game is the match's
        self._jobs: queue.Queue[Callable[[], object] | None] = queue.Queue()
        self._worker = threading.Thread(target=self._work, name="remote-wire", daemon=True)
        self._worker.start()

    # ------------------------------------------------------------------ the link (opponent)
    @property
    def spec(self) -> str:
        """`remote:<board id>` of the other board."""
        return remote_spec(self.other or "")

    @property
    def other(self) -> str | None:
        """The other board of the match, if one is on."""
        m = self.match
        return None if m is None else m.spec.board(m.local.other)

    def who(self) -> tuple[str, str]:
        """The other board's name and presence."""
        other = self.other or ""
        card = self.lobby.get(other, {})
        with self._lock:
            return str(card.get("name") or other), self.presence.word(other, beating=True)

    def choice(self, position: Position) -> Choice | None:
        """The other board's checked action from `position`, once it came."""
        with self._lock:
            if not self._after:
                return None
            return self._after.get(position_hash(position))

    # ------------------------------------------------------------------ the connection
    def attach(self, client: Any) -> None:
        """Use `client` (a connected or connecting paho client); call `connected` after
        each (re)connect."""
        self._client = client
        for pattern in [*self._filters(), f"{self.settings.prefix}/match/#"]:
            client.message_callback_add(pattern, self._on_message)

    def _filters(self) -> list[str]:
        t, me = self.topics, self.settings.board
        return [t.status("+"), t.lobby("+"), t.invite("+", me), t.answer("+", me)]

    def connected(self, client: Any) -> None:
        """After every (re)connect: subscribe, say who we are, replay the match's log."""
        if client is not self._client:
            self.attach(client)
        for pattern in self._filters():
            client.subscribe(pattern, qos=1)
        with self._lock:
            if self.match is not None:
                client.subscribe(self.topics.match_filter(self.match.spec.match), qos=1)
        self.publish_lobby()

    def publish_lobby(self) -> None:
        """Our retained lobby card: name, language, whether we are free."""
        card = {"name": self.settings.name, "lang": self.settings.lang, "free": self.free}
        self._publish(self.topics.lobby(self.settings.board), json.dumps(card), retain=True)

    @property
    def free(self) -> bool:
        """Whether no match is on."""
        m = self.match
        return m is None or m.over

    def _publish(self, topic: str, payload: str, *, retain: bool, expiry: float = 0) -> None:
        client = self._client
        if client is None:
            raise ConflictError(tr("remote play needs the board on a broker (mqtt.url)"))
        props = _expiry(expiry) if expiry else None
        self.sent_bytes += len(topic) + len(payload.encode())
        client.publish(topic, payload, qos=1, retain=retain, properties=props)

    def _begin(self, spec: MatchSpec) -> None:
        """Start the match's game on this board, the other side played from afar."""
        side = spec.side_of(self.settings.board)
        assert side is not None
        with self._lock:
            self.match = Match(spec, side)
            self._live = False  # until the board's game for it has started
            self._after = {}
            self.stopped = None
            self.presence.seen(spec.board(side.other))  # a beat is due within beat_s
            self._opponents.link = self
        self._keep({"spec": spec.to_json(), "side": side.letter})
        client = self._client
        client.subscribe(self.topics.match_filter(spec.match), qos=1)
        self._jobs.put(lambda: self._start_game(spec, side))

    def restore(self) -> bool:
        """Read back the match this board was in before a restart (before the board
        resumes its game); its log comes back from the broker's retained messages."""
        path = Path(self.settings.state_file) if self.settings.state_file else None
        if path is None or not path.exists():
            return False
        try:
            data = json.loads(path.read_text("utf-8"))
            spec, side = MatchSpec.from_json(data["spec"]), Side.parse(data["side"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.error("remote: %s cannot be read (ignored): %s", path, exc)
            return False
        with self._lock:
            self.match = Match(spec, side)
            self._live = True  # the game the board resumes is the match's
            self.presence.seen(spec.board(side.other))
            self._opponents.link = self
        log.info("remote: match %s goes on after a restart", spec.match)
        return True

    def _keep(self, data: dict[str, Any] | None) -> None:
        """Keep (or, with None, forget) the match on in the state file, atomically."""
        if not self.settings.state_file:
            return
        path = Path(self.settings.state_file)
        if data is None:
            path.unlink(missing_ok=True)
            return
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), "utf-8")
        os.replace(tmp, path)

    def _start_game(self, spec: MatchSpec, side: Side) -> None:
        self._call(
            "new_game",
            mode="ai",
            sides=side.letter,
            pace=self.settings.pace,
            variant=spec.variant.to_json(),
        )
        self.publish_lobby()

    # ------------------------------------------------------------------ the board's notices
    def notice(self, notice: Notice) -> None:
        """A notice of the board (on the loop's thread): send what the local side played."""
        if isinstance(notice, Started):
            self._live = self.match is not None  # the match's game, not an earlier one
            return
        if not isinstance(notice, Applied):
            return
        with self._lock:
            match = self.match
            if match is not None and match.over and notice.new.stage == "over":
                self._keep(None)  # the match's game is over here too
            if match is None or match.over or not self._live:
                return
            old, new = notice.old, notice.new
            action = None
            if len(new.actions) > len(match.actions) and new.movers[-1] is match.local:
                kind: Kind = "opening" if old.position.phase == "opening" else "move"
                action = self._play(match, kind, new.actions[-1])
            elif isinstance(notice.event, Resign) and notice.event.side is match.local:
                action = self._play(match, "resign", "")
            if match.over and new.stage == "over":
                self._keep(None)
        if action is not None:
            self._send(action)

    def _play(self, match: Match, kind: Kind, value: str) -> Action | None:
        try:
            return match.play(kind, value)
        except KiothiError as exc:
            self._stop_match(f"this board's {kind} {value} does not fit the match: {exc}")
            return None

    def _send(self, action: Action) -> None:
        topic = self.topics.action(action.match, self.settings.board, action.seq)
        self._publish(topic, action.dumps(), retain=True)

    # ------------------------------------------------------------------ offers and claims
    def offer(self, kind: Kind) -> dict[str, Any]:
        """An agreement offer (`offer`) or its acceptance (`accept`) from this board."""
        with self._lock:
            match = self._need_match()
            action = self._checked_play(match, kind)
        self._send(action)
        if kind == "accept":
            self._jobs.put(lambda: self._call("end"))
        return {"seq": action.seq}

    def claim(self, what: str) -> dict[str, Any]:
        """Claim the win or a draw after the other board has been gone `gone_s`."""
        with self._lock:
            match = self._need_match()
            gone = self.gone_for()
            if gone is None or gone < self.settings.gone_s:
                raise ConflictError(
                    tr(
                        "the other board has not been gone for {seconds}\u00a0s: no claim yet",
                        seconds=int(self.settings.gone_s),
                    )
                )
            action = self._checked_play(match, "claim", what)
        self._send(action)
        self._jobs.put(lambda: self._apply_ending(action))
        return {"seq": action.seq, "claim": what}

    def gone_for(self) -> float | None:
        """How long the other board has been gone (None: it is present)."""
        with self._lock:
            other = self.other
            return None if other is None else self.presence.gone_for(other)

    def _checked_play(self, match: Match, kind: Kind, value: str = "") -> Action:
        try:
            return match.play(kind, value)
        except KiothiError as exc:
            raise ConflictError(str(exc)) from exc

    def _need_match(self) -> Match:
        match = self.match
        if match is None or match.over:
            raise ConflictError(tr("no remote match is on"))
        return match

    # ------------------------------------------------------------------ from the broker
    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            self._route(msg.topic, bytes(msg.payload), client)
        except Exception:  # a bad message must never take paho's thread down
            log.exception("remote: message on %s", msg.topic)

    def _route(self, topic: str, payload: bytes, client: Any) -> None:
        parts = topic[len(self.settings.prefix) + 1 :].split("/")
        if parts[0] == "match" and len(parts) >= 4:
            self._match_message(parts, payload, client)
        elif len(parts) == 2 and parts[1] == "status":
            self._presence(parts[0], payload.decode("utf-8", "replace"))
        elif len(parts) == 2 and parts[1] == "lobby":
            self._lobby(parts[0], payload)
        elif len(parts) == 3 and parts[1] == "invite" and parts[2] == self.settings.board:
            self._invited(parts[0], payload)
        elif len(parts) == 3 and parts[1] == "answer" and parts[2] == self.settings.board:
            self._answered(parts[0], payload)

    def _presence(self, board: str, status: str) -> None:
        with self._lock:
            self.presence.status(board, status)

    def _lobby(self, board: str, payload: bytes) -> None:
        with contextlib.suppress(ValueError):
            card = json.loads(payload) if payload else None
            if isinstance(card, dict):
                self.lobby[board] = {k: card.get(k) for k in ("name", "lang", "free")}

    def _match_message(self, parts: list[str], payload: bytes, client: Any) -> None:
        mid, sender = parts[1], parts[2]
        with self._lock:
            match = self.match
            if match is None or mid != match.spec.match or not payload:
                return
            if sender == self.other:
                self.presence.seen(sender)
            if parts[3] == "beat":
                return
            if parts[3] == "stop":
                if sender == self.other:
                    self._stop_match(payload.decode("utf-8", "replace")[:200], tell=False)
                return
            try:
                action = Action.loads(payload)
            except BadActionError:
                self.refused += 1
                return
            before = match.position
            verdict = match.receive(action, sender)
            if isinstance(verdict, Checked) and action.side is not match.local:
                self._remote_applied(action, before)
            elif isinstance(verdict, Gap):
                client.unsubscribe(self.topics.match_filter(mid))  # the retained log again
                client.subscribe(self.topics.match_filter(mid), qos=1)
            elif isinstance(verdict, Desync):
                self._stop_match(verdict.reason)
            elif not isinstance(verdict, Checked):
                self.duplicates += 1 if verdict.__class__.__name__ == "Duplicate" else 0
                self.refused += 1 if verdict.__class__.__name__ == "Refused" else 0

    def _remote_applied(self, action: Action, before: Position) -> None:
        if action.kind in PLAYS:
            value = action.value
            choice = parse_pit(value) if action.kind == "move" else parse_opening(value)
            self._after[position_hash(before)] = choice
            if self._poke is not None:
                self._jobs.put(self._poke)
        elif action.kind in ("resign", "accept", "claim"):
            self._jobs.put(lambda: self._apply_ending(action))

    def _apply_ending(self, action: Action) -> None:
        match action.kind, action.value:
            case "resign", _:
                self._call("resign", side=action.side.letter)
            case "accept", _:
                self._call("end")
            case "claim", "win":
                self._call("resign", side=action.side.other.letter)
            case "claim", _:
                self._call("abandon")
        self.publish_lobby()

    def _stop_match(self, reason: str, *, tell: bool = True) -> None:
        """Stop the match on this board (and tell the other): loudly, records kept."""
        match = self.match
        if match is None:
            return
        match.stop(reason)
        self.stopped = reason
        log.error("remote: match %s stopped: %s", match.spec.match, reason)
        if tell:
            self._publish(self.topics.stop(match.spec.match, self.settings.board), reason,
                          retain=True)  # fmt: skip
        self._jobs.put(lambda: self._call("abandon"))

    # ------------------------------------------------------------------ status and life
    def status(self) -> dict[str, Any]:
        """What `remote_status` says: the match, presence, invitations, the boards online."""
        with self._lock:
            m = self.match
            return {
                "match": None if m is None else {
                    **m.spec.to_json(), "seq": len(m.log), "over": m.over,
                    "stopped": m.stopped, "gone_s": self.gone_for(),
                },
                "invitations": sorted(self.invitations),
                "boards": {
                    b: {**card, "presence": self.presence.word(b, beating=b == self.other)}
                    for b, card in sorted(self.lobby.items()) if b != self.settings.board
                },
                "refused": self.refused,
            }  # fmt: skip

    def health(self) -> dict[str, Any]:
        """The wire's part of `health`."""
        m = self.match
        return {
            "match": None if m is None else m.spec.match,
            "seq": 0 if m is None else len(m.log),
            "stopped": self.stopped,
            "refused": self.refused,
            "duplicates": self.duplicates,
        }

    def _work(self) -> None:
        beat = self._clock.now() + self.settings.beat_s
        while True:
            try:
                job = self._jobs.get(timeout=max(0.0, beat - self._clock.now()))
            except queue.Empty:
                beat = self._clock.now() + self.settings.beat_s
                self._beat()
                continue
            if job is None:
                return
            try:
                job()
            except KiothiError as exc:
                log.warning("remote: %s", exc)
            except Exception:
                log.exception("remote: a board call failed")

    def _beat(self) -> None:
        """Say we are here, to the other board of a match on (not retained)."""
        m = self.match
        if m is not None and not m.over and self._client is not None:
            topic = f"{self.settings.prefix}/match/{m.spec.match}/{self.settings.board}/beat"
            self.sent_bytes += len(topic) + 1
            self._client.publish(topic, "1", qos=0)

    def close(self) -> None:
        """Stop the worker; idempotent."""
        if self._worker.is_alive():
            self._jobs.put(None)
            self._worker.join(timeout=5)


def _expiry(seconds: float) -> Any:
    """MQTT 5 publish properties with a message expiry (a lapsed invitation vanishes)."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.MessageExpiryInterval = max(1, int(seconds))
    return props
