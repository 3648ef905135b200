"""`kiothi-board run`: the composition root — config → drivers → board → doors.

The daemon reads the configuration (with `drivers.py` and `exhibition.py` beside it) and
hands every part typed settings (`kiothi_board.config_tables`, `ApiConfig`,
`MqttSettings`, `ExhibitSettings`);
`kiothi_board.drivers` picks each driver (a named driver is required; `auto` falls back to
a fake with a `DriverFallback` warning, never silently). It builds the board (the
controller, the exhibition's director and the one board loop that owns them), resumes the
stored game, opens the doors (kiothi_board.api.doors), runs the loop on the main thread,
pings systemd's watchdog, and on SIGTERM shuts down in order: LEDs dark, pins released,
store closed. A signal only sets a flag and wakes the loop.
"""

from __future__ import annotations

import json
import logging
import os
import random
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiothi_board import __version__
from kiothi_board.board import Board
from kiothi_board.board.speech import Announcer, Voice
from kiothi_board.clock import Clock, FakeClock, SystemClock
from kiothi_board.config import Config, api_settings, default_state_dir
from kiothi_board.drivers import Drivers
from kiothi_board.errors import ConfigError, StoreError
from kiothi_board.exhibition import Exhibition
from kiothi_board.guide import PALETTES
from kiothi_board.hardware.fakes import FakePitInput
from kiothi_board.hardware.speaker import Speaker
from kiothi_board.i18n import use_folders, venue_folder
from kiothi_board.players import AIFactory
from kiothi_board.rules import PITS, Variant
from kiothi_board.sdnotify import Notifier
from kiothi_board.startup import open_game

if TYPE_CHECKING:
    from kiothi_board.api.server import ApiServer

log = logging.getLogger("kiothi_board.daemon")
STORE_LOG_SECONDS = 60.0  # a store that cannot write is logged at most this often

Hook = Callable[[], None]


def config_settings(config: Config) -> dict[str, Any]:
    """The operator settings the config implies (what `settings.get` shows before any
    `settings.set`): the configured mode, side, level, pace, variant, palette, brightness."""
    from kiothi_board.errors import RulesError
    from kiothi_board.rules import Variant

    game = config.game
    try:
        variant = Variant.parse(game.variant).to_json()
    except RulesError as exc:
        raise ConfigError(f"game.variant = {game.variant!r}: {exc}") from exc
    return {
        "palette": game.palette,
        "brightness": config.leds.brightness,
        "mode": game.mode,
        "sides": game.human_side,
        "level": game.level,
        "pace": game.pace,
        "variant": variant,
    }


def trace_fields(state: dict[str, Any]) -> dict[str, Any]:
    """Where the game of a `state` stands: `Daemon.trace_line`'s fields."""
    guide = state.get("guide")
    return {
        "game": state["game_id"],
        "events": state["events"],
        "stage": state["stage"],
        "actions": len(state.get("actions", ())),
        "guide": None if guide is None else guide["index"],
        "expect": state.get("expect"),
    }


class Daemon:
    """The running product: drivers, store, the board and its loop, the doors."""

    def __init__(
        self,
        config: Config,
        *,
        sim: bool = False,
        state_dir: str | None = None,
        clock: Clock | None = None,
        notifier: Notifier | None = None,
        api: bool = True,
        autoplay: float | None = None,
        seed: int | None = None,
        fake_clock: float | None = None,
    ) -> None:
        """Build everything from `config`; `sim` forces the simulator's fake hardware.

        `autoplay` (simulator only): every so many seconds, press the pit the guide
        points at, and start a new game when one ends — an unattended demo.
        `fake_clock` (epoch seconds): run on a fake clock starting at that wall time, moved
        only by the API's `sim.advance` (docs/exhibition.md, "Fake time").
        """
        self.config = config
        self.fake = None if fake_clock is None else FakeClock(0.0, wall_start=fake_clock)
        self.clock = clock or self.fake or SystemClock()
        # A real device's link keeps real time (its heartbeat is real bytes on a wire).
        self.device_clock: Clock = SystemClock() if self.fake is not None else self.clock
        self.hands: FakePitInput | None = None
        self.notifier = notifier or Notifier()
        self.state_dir = Path(state_dir or default_state_dir())
        use_folders(venue_folder(self.state_dir))  # the venue's own catalogs first
        self.simulated = sim
        self._closed = False
        self._resources: list[Any] = []
        self.api: ApiServer | None = None
        self.sim_code: str | None = None  # the simulator's access code for its pages

        self.link: Any = None  # the co-processor link, when the board uses one
        self.autoplay = autoplay
        self._next_auto = 0.0
        self._demo_logged = -STORE_LOG_SECONDS
        self._random = random.Random(seed)
        self._next_ping = 0.0
        try:
            self._make_drivers()
            self.opponents = AIFactory(
                seed=int.from_bytes(os.urandom(4), "little") if seed is None else seed
            )
            self.exhibition = self._make_exhibition(seed or 0)
            self.remote: Any = None  # the remote match's wire, with [remote] enabled
            self.match_opponents = self._match_opponents()
            self.board = self._make_board()
            self.controller = self.board.controller
            self._start_inputs()
            if api:
                self._open_doors()
            elif config.mqtt.url:
                raise ConfigError("mqtt.url is set but the API is off (--no-api): MQTT is a door")
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ construction
    def _make_drivers(self) -> None:
        """Inputs, LEDs and store, each chosen on its own by `kiothi_board.drivers`."""
        drivers = Drivers(
            self.config,
            clock=self.clock,
            device_clock=self.device_clock,
            resources=self._resources,
            sim=self.simulated,
            quiet=True,
        )
        self.inputs = drivers.pit_input()
        try:
            self.sink = drivers.pixel_sink()
        finally:
            drivers.say_fallbacks()  # a laptop: one line, "no board found"
        self.voice_output = drivers.voice_output()  # None: [voice] is off
        self.link = drivers.link
        self.simulated = self.simulated or bool(drivers.fell_back)
        self.store = drivers.store(self.state_dir)

    def _make_exhibition(self, seed: int) -> Exhibition:
        from kiothi_board.guide import Renderer
        from kiothi_board.store.sqlite import SqliteStore

        store_path = self.store.path if isinstance(self.store, SqliteStore) else None
        return Exhibition.from_config(
            self.config,
            clock=self.clock,
            store=self.store,
            renderer=Renderer(PALETTES[self.config.game.palette], self.sink.leds_per_ring),
            state_dir=self.state_dir,
            store_path=store_path,
            seed=seed,
        )

    def _make_board(self) -> Board:
        """The controller, the exhibition's director (always built, so staff can switch
        exhibition mode on at run time; off, it passes presses and frames straight
        through) and the loop that owns them."""
        game = self.config.game
        board = Board(
            sink=self.sink,
            clock=self.clock,
            store=self.store,
            opponent_factory=self.match_opponents or self.opponents,
            palette=PALETTES[game.palette],
            hold_seconds=self.config.board.hold_s,
            over_seconds=game.over_seconds,
            defaults=config_settings(self.config),
            director=self.exhibition.director,
            tick_hz=self.config.daemon.tick_hz,
            ticking=self.fake is None,  # on fake time only sim.advance ticks
            languages=self.config.board.enabled_languages,
            voice=self._make_voice(),
        )
        loop = board.loop
        self.exhibition.measure(loop.ask, loop.ticks, loop.frames)
        loop.sources.append(self.inputs.poll)  # polled at the top of each turn
        loop.on_tick += [self.exhibition.tick, self._autoplay, self._ping]
        return board

    def _make_voice(self) -> Voice | None:
        """The board's voice, when `[voice]` is on: its announcer and the speaker's worker."""
        if self.voice_output is None:
            return None
        voice = self.config.voice
        languages = self.config.board.enabled_languages
        return Voice(Announcer(voice.what, languages), Speaker(self.voice_output))

    def _start_inputs(self) -> None:
        """Every input enters the board loop's queue; open the first game."""
        loop = self.board.loop
        if self.link is not None:
            self.exhibition.watch_link(self.link)
            self.link.add_state_listener(loop.link_changed)
        if not self.exhibition.director.enabled:
            game = self.config.game
            open_game(
                self.board,
                self.store,
                tutorial_fits=(game.mode, game.pace, game.variant) == ("ai", "step", ""),
                autoplay=self.autoplay is not None,
                new_game=self.new_game_from_config,
            )
        self.inputs.start(loop.feed)
        if self.fake is not None:
            # The simulated visitors' hands, beside whatever real inputs there are.
            self.hands = self.inputs if isinstance(self.inputs, FakePitInput) else None
            if self.hands is None:
                self.hands = FakePitInput(self.clock)
                self._resources.append(self.hands)
                self.hands.start(loop.feed)

    def _open_doors(self) -> None:
        """Every door of the API, the fleet's MQTT included (kiothi_board.api.doors)."""
        from kiothi_board.api.doors import exhibition_doors, open_doors
        from kiothi_board.fake_time import FakeTime

        sim = None
        if self.fake is not None and self.hands is not None:
            sim = FakeTime(
                self.board,
                self.fake,
                self.hands,
                real=self.device_clock,
                exhibit=self.exhibition.director.status,
            )
        settings = api_settings(self.config, sim=self.simulated)
        if self.simulated and settings["staff_pin"] is None:
            # The simulator's pages typed into the address bar (/operator) need a way to
            # control: a staff PIN for this run only, shown to whoever reads its terminal.
            self.sim_code = settings["staff_pin"] = f"{secrets.randbelow(10**8):08d}"
        exhibit = exhibition_doors(self.exhibition, sim)
        remote = self._remote_wire()

        def setup(server: Any) -> None:
            exhibit(server)
            if remote is not None:
                from kiothi_board.remote.doors import install

                install(server, remote)

        self.api = open_doors(
            self.board,
            settings,
            self.config.mqtt,
            setup=setup,
            stats=self._today_stats,
            web_url=lambda: self.web_url,
            clock=self.clock,
        )
        if remote is not None:
            self.api.mqtt.add_connect_hook(remote.connected)

    def _match_opponents(self) -> Any:
        """With `[remote]` enabled: the board's opponents (the other board's side while a
        match is on) and the wire, which reads back a match this board was in before the
        board resumes its game (kiothi_board.remote); else None."""
        if not self.config.remote.enabled:
            return None
        if not self.config.mqtt.url:
            raise ConfigError("remote.enabled needs mqtt.url: the boards meet on the broker")
        from kiothi_board.api.mqtt_settings import mqtt_settings
        from kiothi_board.remote.opponent import MatchOpponents
        from kiothi_board.remote.wire import RemoteSettings, RemoteWire

        opponents = MatchOpponents(self.opponents)
        mqtt, cfg = mqtt_settings(self.config.mqtt), self.config.remote
        settings = RemoteSettings(
            board=mqtt.board_id,
            name=cfg.name or mqtt.board_id,
            lang=self.config.board.language,
            prefix=mqtt.prefix,
            gone_s=cfg.gone_s,
            invite_s=cfg.invite_s,
            accept_from=cfg.accept_from,
            exhibition=self.exhibition.director.enabled,
            pace=cfg.pace,
            beat_s=self.config.mqtt.keepalive,
            state_file=str(self.state_dir / "remote-match.json"),
        )
        wire = RemoteWire(settings, call=lambda name, **a: self.board.call(name, **a),
                          opponents=opponents, clock=self.clock,
                          poke=lambda: self.board.loop.call(self.controller.tick))  # fmt: skip
        self.remote = wire
        self._resources.append(wire)
        wire.restore()
        return opponents

    def _remote_wire(self) -> Any:
        """The remote match's wire, listening to the board's notices (docs/remote.md)."""
        if self.remote is not None:
            self.board.add_notice_listener(self.remote.notice)
            from kiothi_board.remote.doors import guard

            guard(self.board.session, self.remote)
        return self.remote

    def _today_stats(self) -> dict[str, Any]:
        """Today's exhibition figures, for the fleet's retained `stats` topic."""
        today = str(self.exhibition.status()["day"])
        return {"today": self.exhibition.stats(today, today)["days"][-1]}

    @property
    def web_url(self) -> str | None:
        """The address of the web page, when the API serves one."""
        if self.api is None or self.api.web_port is None:
            return None
        host = self.api.config.web_host
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        return f"http://{host}:{self.api.web_port}/"

    def new_game_from_config(self) -> int:
        """Start a game with the configured mode, side, level, pace and variant."""
        game = self.config.game
        return int(
            self.board.call(
                "new_game",
                mode=game.mode,
                sides=game.human_side,
                level=game.level,
                pace=game.pace,
                variant=Variant.parse(game.variant),
                long_move_laps=game.long_move_laps,
            )
        )

    # ------------------------------------------------------------------ running
    def tick(self) -> None:
        """One tick of the board loop (inputs' timers, the game, the exhibition, the demo)."""
        self.board.tick()

    def _autoplay(self) -> None:
        """Play as a person following the light: press the lit pit, choose moves at random."""
        now = self.clock.now()
        if self.autoplay is None or now < self._next_auto:
            return
        if not isinstance(self.inputs, FakePitInput):
            return
        self._next_auto = now + self.autoplay
        glance = self.controller.glance()  # on the loop: this is one of its hooks
        if glance.stage == "none":
            self._demo_game()
            return
        if glance.settings.mode == "demo" or self._animating():
            return  # the animation runs by itself; a press would pause it
        if glance.ai_to_move or glance.thinking:
            return
        hold = self.config.board.hold_s + 0.1
        legal = [] if glance.position is None else glance.position.legal_moves()
        if glance.expect is not None:
            self.inputs.tap(glance.expect)
        elif glance.stage == "open" and self._in_hand():
            self.inputs.tap(self._random.randrange(PITS))  # a seed placed in any pit (R3)
        elif glance.stage == "set":  # a long move's counts are set at once: one hold confirms
            self.inputs.hold(0, hold)
        elif glance.stage == "turn" and legal:
            self.inputs.tap(self._random.choice(legal))
        elif glance.stage == "open" and legal:  # a hold on an own pit passes
            self.inputs.hold(legal[0], hold)

    def _demo_game(self) -> None:
        """The demo's next game; a store that cannot write (a full disk) is what the API
        answers `unavailable`: said once a minute, tried again, the daemon plays on."""
        try:
            self.new_game_from_config()
        except StoreError as exc:
            now = self.clock.now()
            if now >= self._demo_logged + STORE_LOG_SECONDS:
                self._demo_logged = now
                log.error("autoplay: no new game yet (tried again): %s", exc)

    def _animating(self) -> bool:
        """Whether the step of the moment advances by itself (the flow pace's lifts, drops
        and relays): the demo then waits, and presses where a person would (a move, a
        capture, the opening) in every pace."""
        session = self.controller.session
        step = None if session.game is None else session.game.step
        return step is not None and session.auto(step.kind)

    def _in_hand(self) -> bool:
        """Whether an opening's lifted seeds are in the hand: a restart between the press
        that lifted them and the hold that would have taken the lift back leaves them
        there, and a hold cannot pass until they are placed."""
        game = self.controller.session.game
        return game is not None and game.lifted is not None

    def _ping(self) -> None:
        """Systemd's watchdog, from the loop itself: a stuck loop stops pinging."""
        now = self.clock.now()
        if self.notifier.watchdog_interval and now >= self._next_ping:
            self.notifier.watchdog()
            self._next_ping = now + self.notifier.watchdog_interval

    def trace_line(self) -> str:
        """One JSON line saying where the game stands (what `--trace` prints on change)."""
        return json.dumps(trace_fields(self.board.state()))

    def run(self, *, on_tick: Hook | None = None) -> None:
        """Run the board loop on this thread until `stop()`; tells systemd when ready."""
        if on_tick is not None:
            self.board.loop.on_tick.append(on_tick)
        self.notifier.ready(f"kiothi-board {__version__} running")
        self.board.loop.run()

    def stop(self, *_: object) -> None:
        """Ask the loop to end (safe from a signal handler: it sets a flag, wakes the loop)."""
        board = getattr(self, "board", None)
        if board is not None:
            board.loop.stop()

    def close(self) -> None:
        """Orderly shutdown: searches stopped, LEDs dark, pins released, store closed."""
        if self._closed:
            return
        self._closed = True
        self.notifier.stopping()
        if self.api is not None:  # no more commands: every door first
            self.api.close()
        board = getattr(self, "board", None)
        if board is not None:
            board.close()
        opponents = getattr(self, "opponents", None)
        if opponents is not None:
            opponents.close()
        # LEDs, inputs, store: the reverse of construction.
        for resource in reversed(self._resources):
            try:
                resource.close()
            except Exception:  # one failing close must not keep the LEDs lit
                log.exception("closing %r failed", resource)
        self.notifier.close()

    def __enter__(self) -> Daemon:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
