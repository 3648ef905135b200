"""Home Assistant MQTT discovery: a board appears as one device with sensors and a button.

Follows Home Assistant's discovery conventions: one retained config message per entity
at `<discovery_prefix>/<component>/<node_id>/<object_id>/config`, all sharing one
`device` block, the board's `status` topic as availability (`online` / `offline`), and
templates that read the board's retained `state`, `stats` and `health` topics. The
"new game" button publishes a request line on the board's `cmd/homeassistant` topic, so
it runs through the same dispatcher and roles as every other door: the board must list
Home Assistant's broker user in `mqtt.staff_users` (the ACL lets only that user write
`cmd/homeassistant`), or the button is refused as a spectator's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kiothi_board import __version__

if TYPE_CHECKING:
    from kiothi_board.api.mqtt_settings import MqttSettings

__all__ = ["discovery_messages"]


def _sensor(
    s: MqttSettings, obj: str, name: str, topic: str, template: str, **extra: Any
) -> tuple[str, dict[str, Any]]:
    return (
        f"sensor/{obj}",
        {
            "name": name,
            "state_topic": f"{s.base}/{topic}",
            "value_template": template,
            **extra,
        },
    )


def discovery_messages(s: MqttSettings) -> list[tuple[str, bytes]]:
    """The retained (topic, payload) pairs that announce board `s.board_id`."""
    node = f"kiothi_{s.board_id}".replace("-", "_")
    device: dict[str, Any] = {
        "identifiers": [node],
        "name": f"Kiothi board {s.board_id}",
        "manufacturer": "kiothi-board",
        "model": "Kiothi board",
        "sw_version": __version__,
    }
    if s.web_url:
        device["configuration_url"] = s.web_url
    entities = [
        (
            "binary_sensor/online",
            {
                "name": "Online",
                "state_topic": f"{s.base}/status",
                "payload_on": "online",
                "payload_off": "offline",
                "device_class": "connectivity",
            },
        ),
        _sensor(
            s,
            "games_today",
            "Games today",
            "stats",
            "{{ value_json.today.games.started | default(0) }}",
            state_class="total_increasing",
        ),
        _sensor(
            s,
            "to_move",
            "Current player",
            "state",
            "{{ value_json.state.position.to_move | default('none') }}",
        ),
        _sensor(
            s,
            "cpu_temperature",
            "CPU temperature",
            "health",
            "{{ value_json.exhibit.cpu_temperature | default(none) }}",
            device_class="temperature",
            unit_of_measurement="°C",
        ),
        (
            "button/new_game",
            {
                "name": "New game",
                "command_topic": f"{s.base}/cmd/homeassistant",
                "payload_press": json.dumps(
                    {"id": 1, "cmd": "new_game", "args": {}}, separators=(",", ":")
                ),
            },
        ),
    ]
    out: list[tuple[str, bytes]] = []
    for path, config in entities:
        component, obj = path.split("/")
        config.update(
            unique_id=f"{node}_{obj}",
            object_id=f"{node}_{obj}",
            device=device,
            availability_topic=f"{s.base}/status",
            payload_available="online",
            payload_not_available="offline",
        )
        if component == "binary_sensor":
            # The online sensor must stay readable while the board is offline.
            del config["availability_topic"], config["payload_available"]
            del config["payload_not_available"]
        topic = f"{s.discovery_prefix}/{component}/{node}/{obj}/config"
        out.append((topic, json.dumps(config, separators=(",", ":")).encode()))
    return out
