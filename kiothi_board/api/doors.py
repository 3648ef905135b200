"""Every door to the board, opened in one place from the config: the door registry.

`DOORS` lists every kind of door — TCP, the Unix socket, the web page and its WebSocket,
serial ports, the Redis bus, the fleet's MQTT adapter — with the config key that asks for
it and how to open it on the `ApiServer` (one asyncio loop, one dispatcher, one access
policy for all of them). `open_doors` opens those the config asks for, in that order; a
door that cannot open closes the others and raises a ConfigError naming its key. Adding a
door means adding its entry here (and its transport's module), nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kiothi_board.api.api_config import ApiConfig
from kiothi_board.api.exhibit_doors import ExhibitDoors, SimDoors, install
from kiothi_board.api.server import ApiServer
from kiothi_board.api.service import BoardService
from kiothi_board.clock import Clock, SystemClock
from kiothi_board.config_tables import MqttConfig

__all__ = ["DOORS", "Door", "DoorContext", "open_doors", "start_api"]


@dataclass(frozen=True, slots=True)
class DoorContext:
    """What opening a door may use: the server, the `[api]` and `[mqtt]` settings, the
    board's state and statistics for the fleet's retained topics, the clock."""

    server: ApiServer
    api: ApiConfig
    mqtt: MqttConfig | None = None
    state: Callable[[], dict[str, Any]] | None = None
    stats: Callable[[], dict[str, Any]] | None = None
    web_url: Callable[[], str | None] = lambda: None
    clock: Clock | None = None


@dataclass(frozen=True, slots=True)
class Door:
    """One kind of door: the config key that asks for it, and how it opens."""

    name: str
    key: str
    wanted: Callable[[DoorContext], bool]
    open: Callable[[DoorContext], None]


def _tcp(ctx: DoorContext) -> None:
    assert ctx.api.tcp_port is not None
    ctx.server.listen_tcp(ctx.api.host, ctx.api.tcp_port)


def _unix(ctx: DoorContext) -> None:
    assert ctx.api.unix_path is not None
    ctx.server.listen_unix(ctx.api.unix_path)


def _web(ctx: DoorContext) -> None:
    assert ctx.api.web_port is not None
    ctx.server.listen_web(ctx.api.web_host, ctx.api.web_port)


def _serial(ctx: DoorContext) -> None:
    from kiothi_board.api.serial_port import SerialTransport

    for url in ctx.api.serial:
        port = ctx.server.attach(
            SerialTransport(ctx.server.dispatcher, url, baudrate=ctx.api.serial_baud)
        )
        ctx.server.serial.append(port)
        port.start()


def _redis(ctx: DoorContext) -> None:
    from kiothi_board.api.redis_bus import RedisBus, check_redis_url

    url = ctx.api.redis_url
    assert url is not None
    check_redis_url(url)
    bus = RedisBus(
        ctx.server.dispatcher, url, prefix=ctx.api.redis_prefix, queue_size=ctx.api.redis_queue
    )
    ctx.server.redis = ctx.server.attach(bus).start()


def _mqtt(ctx: DoorContext) -> None:
    from kiothi_board.api.mqtt import MqttAdapter, mqtt_settings

    assert ctx.mqtt is not None and ctx.state is not None
    adapter = MqttAdapter(
        ctx.server.dispatcher,
        mqtt_settings(ctx.mqtt, web_url=ctx.web_url()),
        clock=ctx.clock or SystemClock(),
        state=ctx.state,
        stats=ctx.stats,
    )
    ctx.server.mqtt = ctx.server.attach(adapter).start()


DOORS: tuple[Door, ...] = (
    Door("tcp", "api.tcp_port", lambda c: c.api.tcp_port is not None, _tcp),
    Door("unix", "api.unix_path", lambda c: bool(c.api.unix_path), _unix),
    Door("web", "api.web_port", lambda c: c.api.web_port is not None, _web),
    Door("serial", "api.serial", lambda c: bool(c.api.serial), _serial),
    Door("redis", "api.redis_url", lambda c: bool(c.api.redis_url), _redis),
    Door("mqtt", "mqtt.url", lambda c: c.mqtt is not None and bool(c.mqtt.url), _mqtt),
)


def _api_config(config: ApiConfig | Mapping[str, Any] | None) -> ApiConfig:
    if config is None:
        return ApiConfig()
    return config if isinstance(config, ApiConfig) else ApiConfig.from_mapping(config)


def open_doors(
    board: BoardService,
    api: ApiConfig | Mapping[str, Any] | None,
    mqtt: MqttConfig | None = None,
    *,
    setup: Callable[[ApiServer], None] | None = None,
    stats: Callable[[], dict[str, Any]] | None = None,
    web_url: Callable[[], str | None] = lambda: None,
    clock: Clock | None = None,
) -> ApiServer:
    """Open every door the `[api]` and `[mqtt]` settings ask for; `close()` the server.

    `setup(server)` runs before any door opens (to add commands a first client may use).
    """
    cfg = _api_config(api)
    server = ApiServer(board, cfg)
    server.dispatcher.web_url = web_url  # the address `seat_link` writes its links for
    if setup is not None:
        setup(server)
    server.start()
    ctx = DoorContext(server, cfg, mqtt, board.state, stats, web_url, clock)
    try:
        for door in DOORS:
            if door.wanted(ctx):
                door.open(ctx)
    except BaseException:
        server.close()
        raise
    return server


def start_api(
    service: BoardService,
    config: ApiConfig | Mapping[str, Any] | None = None,
    *,
    setup: Callable[[ApiServer], None] | None = None,
) -> ApiServer:
    """The API's own doors (no MQTT) for `service`: what tests and tools open."""
    return open_doors(service, config, setup=setup)


def exhibition_doors(exhibition: ExhibitDoors, sim: SimDoors | None) -> Callable[[ApiServer], None]:
    """The `setup` that adds the exhibition's commands (and, with fake time, `sim.*`)."""

    def setup(server: ApiServer) -> None:
        install(server, exhibition, sim)

    return setup
