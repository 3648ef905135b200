"""`kiothi-board run`: the composition root — config → drivers → controller → adapters.

Only this module reads the configuration. `kiothi_board.drivers` picks each driver on its
own (a named driver is required; `auto` falls back to a fake with a `DriverFallback`
warning, never silently), then the daemon resumes the stored game, runs
the tick loop, pings systemd's watchdog, and on SIGTERM shuts down in order: LEDs dark,
pins released, store closed.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiothi_board import __version__
from kiothi_board.clock import Clock, FakeClock, SystemClock
from kiothi_board.config import Config, api_settings, default_state_dir
from kiothi_board.controller import Controller
from kiothi_board.drivers import Drivers
from kiothi_board.errors import ConfigError
from kiothi_board.exhibition import Exhibition
from kiothi_board.guide import PALETTES
from kiothi_board.hardware.fakes import FakePitInput
from kiothi_board.hardware.protocols import PixelSink
from kiothi_board.players import AIFactory
from kiothi_board.rules import parse_pit
from kiothi_board.sdnotify import Notifier
from kiothi_board.startup import open_game

if TYPE_CHECKING:
    from kiothi_board.api.server import ApiServer

log = logging.getLogger("kiothi_board.daemon")


def config_settings(config: Config) -> dict[str, Any]:
    """The operator settings the config implies (what `settings.get` shows before any
    `settings.set`): the configured mode, side, level, pace, variant, palette, brightness."""
    from kiothi_board.errors import RulesError
    from kiothi_board.rules import Variant

    game = config["game"]
    try:
        variant = Variant.parse(game["variant"]).to_json()
    except RulesError as exc:
        raise ConfigError(f"game.variant = {game['variant']!r}: {exc}") from exc
    return {
        "palette": game["palette"],
        "brightness": config["leds"]["brightness"],
        "mode": game["mode"],
        "sides": game["human_side"],
        "level": game["level"],
        "pace": game["pace"],
        "variant": variant,
    }


class Daemon:
    """The running product: drivers, store, controller, API, and the loop that ticks them."""

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
        self.tick_lock = threading.RLock()
        self.notifier = notifier or Notifier()
        self.stop_event = threading.Event()
        self.state_dir = Path(state_dir or default_state_dir())
        self.simulated = sim
        self._closed = False
        self._resources: list[Any] = []
        self.api: ApiServer | None = None
        self.link: Any = None  # the co-processor link, when the board uses one
        self.autoplay = autoplay
        self._next_auto = 0.0
        self._random = random.Random(seed)
        try:
            self._make_drivers()
            self.opponents = AIFactory(
                seed=int.from_bytes(os.urandom(4), "little") if seed is None else seed
            )
            game = config["game"]
            draw_into: PixelSink = self.sink
            # Always built, so staff can switch exhibition mode on at run time
            # (`exhibit.set`); off, the director passes presses and frames straight through.
            self.exhibition = self._make_exhibition(seed or 0)
            draw_into = self.exhibition.director.sink
            self.controller = Controller(
                sink=draw_into,
                clock=self.clock,
                store=self.store,
                opponent_factory=self.opponents,
                palette=PALETTES[game["palette"]],
                hold_seconds=config["board"]["hold_s"],
                over_seconds=game["over_seconds"],
                on_settings=self.apply_settings,
                defaults=config_settings(config),
            )
            self._start_inputs()
            self.api = self._make_api() if api else None
            self.mqtt = self._make_mqtt()
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
        )
        self.inputs = drivers.pit_input()
        self.sink = drivers.pixel_sink()
        self.link = drivers.link
        self.simulated = self.simulated or bool(drivers.fell_back)
        self.store = drivers.store(self.state_dir)

    def _start_inputs(self) -> None:
        """Give the inputs their handler: the exhibit's director (off, it forwards to the game)."""
        director = self.exhibition.director
        director.attach(self.controller)
        if self.link is not None:
            self.exhibition.watch_link(self.link)
        handler = director.handle_event
        if not director.enabled:
            game = self.config["game"]
            open_game(
                self.controller,
                self.store,
                tutorial_fits=(game["mode"], game["pace"], str(game["variant"]))
                == ("ai", "step", ""),
                autoplay=self.autoplay is not None,
                new_game=self.new_game_from_config,
            )
        self.inputs.start(handler)
        self.controller.route_presses(handler)  # a press from the page is a press
        director.publish = self.controller.publish_frame  # the page shows what the rings show
        if self.fake is not None:
            # The simulated visitors' hands, beside whatever real inputs there are.
            self.hands = self.inputs if isinstance(self.inputs, FakePitInput) else None
            if self.hands is None:
                self.hands = FakePitInput(self.clock)
                self._resources.append(self.hands)
                self.hands.start(handler)

    def _make_exhibition(self, seed: int) -> Exhibition:
        from kiothi_board.guide import Renderer
        from kiothi_board.store.sqlite import SqliteStore

        store_path = self.store.path if isinstance(self.store, SqliteStore) else None
        return Exhibition.from_config(
            self.config,
            sink=self.sink,
            clock=self.clock,
            store=self.store,
            renderer=Renderer(PALETTES[self.config["game"]["palette"]], self.sink.leds_per_ring),
            state_dir=self.state_dir,
            store_path=store_path,
            seed=seed,
        )

    def _make_api(self) -> ApiServer:
        from kiothi_board.api import exhibit_doors
        from kiothi_board.api.server import start_api
        from kiothi_board.fake_time import FakeTime

        sim = FakeTime(self) if self.fake is not None else None

        def setup(server: ApiServer) -> None:
            exhibit_doors.install(server, self.exhibition, sim)

        # The controller is the board service; it pushes its frames to the API.
        server = start_api(
            self.controller, api_settings(self.config, sim=self.simulated), setup=setup
        )
        self._resources.append(server)
        return server

    def _make_mqtt(self) -> Any:
        """The MQTT fleet adapter, when `mqtt.url` is set (it needs the API's dispatcher)."""
        cfg = self.config["mqtt"]
        if not cfg["url"]:
            return None
        if self.api is None:
            raise ConfigError("mqtt.url is set but the API is off: the adapter needs it")
        from kiothi_board.api.mqtt import MqttAdapter, mqtt_settings

        adapter = MqttAdapter(
            self.api.dispatcher,
            mqtt_settings(cfg, web_url=self.web_url),
            clock=self.clock,
            state=self.controller.state,
            stats=self._today_stats,
        )
        self._resources.append(adapter)
        return adapter.start()

    def _today_stats(self) -> dict[str, Any]:
        """Today's exhibition figures, for the fleet's retained `stats` topic."""
        today = str(self.exhibition.status()["day"])
        return {"today": self.exhibition.stats(today, today)["days"][-1]}

    def apply_settings(self, settings: dict[str, Any]) -> None:
        """Apply operator settings from the API: palette and LED brightness."""
        palette = settings.get("palette")
        if isinstance(palette, str) and palette in PALETTES:
            self.controller.set_palette(PALETTES[palette])
        brightness = settings.get("brightness")
        setter = getattr(self.sink, "set_brightness", None)
        if isinstance(brightness, int | float) and setter is not None:
            setter(float(brightness))

    @property
    def web_url(self) -> str | None:
        """The address of the web page, when the API serves one."""
        if self.api is None or self.api.web_port is None:
            return None
        host = self.config["api"]["web_host"]
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        return f"http://{host}:{self.api.web_port}/"

    def new_game_from_config(self) -> int:
        """Start a game with the configured mode, side, level, pace and variant."""
        game = self.config["game"]
        return self.controller.new_game(
            mode=game["mode"],
            sides=game["human_side"],
            level=game["level"],
            pace=game["pace"],
            variant=game["variant"],
            long_move_laps=game["long_move_laps"],
        )

    # ------------------------------------------------------------------ running
    def tick(self) -> None:
        """One pass of the loop: inputs' timers, then the controller's animations and AI."""
        with self.tick_lock:
            self.inputs.poll()
            self.controller.tick()
            self.exhibition.tick()
            if self.autoplay is not None:
                self._autoplay()

    def _autoplay(self) -> None:
        """Play as a person following the light: press the lit pit, choose moves at random."""
        now = self.clock.now()
        if now < self._next_auto or not isinstance(self.inputs, FakePitInput):
            return
        assert self.autoplay is not None
        self._next_auto = now + self.autoplay
        state = self.controller.state()
        stage = state["stage"]
        if stage == "none":
            self.new_game_from_config()
            return
        settings = state["settings"]
        if settings.get("mode") == "demo" or settings.get("pace") == "flow":
            return  # the animation runs by itself; a press would pause it
        if state.get("ai_to_move") or state.get("thinking"):
            return
        pit = self.controller.expected_pit()
        hold = self.config["board"]["hold_s"] + 0.1
        if pit is not None:
            self.inputs.tap(pit)
        elif stage == "set":  # a long move's counts are set at once: one hold confirms them
            self.inputs.hold(0, hold)
        elif stage == "turn":
            legal = state["position"]["legal"]
            if legal:
                self.inputs.tap(parse_pit(self._random.choice(legal)))
        elif stage == "open":
            legal = state["position"]["legal"]
            if legal:  # a hold on an own pit passes
                self.inputs.hold(parse_pit(legal[0]), hold)

    def trace_line(self) -> str:
        """One JSON line saying where the game stands (what `--trace` prints on change)."""
        state = self.controller.state()
        guide = state.get("guide")
        return json.dumps(
            {
                "game": state["game_id"],
                "events": state["events"],
                "stage": state["stage"],
                "actions": len(state.get("actions", ())),
                "guide": None if guide is None else guide["index"],
                "expect": state.get("expect"),
            }
        )

    def run(self, *, on_tick: Any = None) -> None:
        """Tick until `stop()`; tells systemd when ready and pings its watchdog."""
        period = 1.0 / self.config["daemon"]["tick_hz"]
        self.notifier.ready(f"kiothi-board {__version__} running")
        next_ping = 0.0
        while not self.stop_event.is_set():
            if self.fake is None:  # on fake time only sim.advance ticks
                self.tick()
            if on_tick is not None:
                on_tick()
            now = self.clock.now()
            if self.notifier.watchdog_interval and now >= next_ping:
                self.notifier.watchdog()
                next_ping = now + self.notifier.watchdog_interval
            self.stop_event.wait(period)

    def stop(self, *_: object) -> None:
        """Ask the loop to end (safe from a signal handler)."""
        self.stop_event.set()

    def close(self) -> None:
        """Orderly shutdown: searches stopped, LEDs dark, pins released, store closed."""
        if self._closed:
            return
        self._closed = True
        self.notifier.stopping()
        controller = getattr(self, "controller", None)
        if controller is not None:
            controller.close()
        opponents = getattr(self, "opponents", None)
        if opponents is not None:
            opponents.close()
        # API first (no more commands), then LEDs, inputs, store: reverse of construction.
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `kiothi-board run` (the command line lives in `daemon_cli`)."""
    from kiothi_board.daemon_cli import main as run_main

    return run_main(argv)
