"""Every door to the board, opened in one place from the config.

The API server's own doors (TCP, the Unix socket, the web page and its WebSocket, serial
ports, the Redis bus; `ApiServer.start`) and the fleet's MQTT adapter share one dispatcher
and one access policy. The exhibition's commands and, with fake time, the simulator's are
added before the first door opens. Adding a door means adding it here (and to ApiServer's
table, for the server's kinds), nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kiothi_board.api import exhibit_doors
from kiothi_board.api.server import ApiServer, start_api
from kiothi_board.api.service import BoardService
from kiothi_board.clock import Clock

__all__ = ["Doors", "open_doors"]


@dataclass
class Doors:
    """The open doors; `close()` shuts the MQTT adapter, then the server."""

    server: ApiServer
    mqtt: Any = None

    def close(self) -> None:
        """Idempotent."""
        mqtt, self.mqtt = self.mqtt, None
        if mqtt is not None:
            mqtt.close()
        self.server.close()


def open_doors(
    board: BoardService,
    api: Mapping[str, Any],
    mqtt: Mapping[str, Any],
    *,
    exhibition: exhibit_doors.ExhibitDoors,
    sim: exhibit_doors.SimDoors | None,
    clock: Clock,
    stats: Callable[[], dict[str, Any]],
    web_url: Callable[[], str | None],
) -> Doors:
    """Open the `[api]` doors and, when `mqtt.url` is set, the fleet adapter; a door that
    cannot open closes the others and raises (a ConfigError naming its key)."""

    def setup(server: ApiServer) -> None:
        exhibit_doors.install(server, exhibition, sim)

    server = start_api(board, api, setup=setup)
    doors = Doors(server)
    if not mqtt["url"]:
        return doors
    try:
        from kiothi_board.api.mqtt import MqttAdapter, mqtt_settings

        adapter = MqttAdapter(
            server.dispatcher,
            mqtt_settings(mqtt, web_url=web_url()),
            clock=clock,
            state=board.state,
            stats=stats,
        )
        doors.mqtt = adapter
        adapter.start()
    except BaseException:
        doors.close()
        raise
    return doors
