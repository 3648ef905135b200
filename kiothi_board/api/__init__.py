"""The API (L4): one JSON-lines protocol (kiothi-api/1) behind four doors.

Serial ports, local sockets (TCP and Unix), a WebSocket with the board's web twin, and an
optional Redis bus all feed one `Dispatcher`, which talks to the board through the small
`BoardService` protocol. The daemon opens every door with `doors.open_doors`; tests and
tools open the API's own with `start_api(service, config)`; see docs/api.md.
"""

from __future__ import annotations

from kiothi_board.api.dispatcher import (
    COMMANDS,
    CONTROL_COMMANDS,
    DEFAULT_TOPICS,
    TOPICS,
    ClientSession,
    Dispatcher,
    frame_to_hex,
)
from kiothi_board.api.doors import start_api
from kiothi_board.api.protocol import MAX_LINE, PROTOCOL, VERSION, ApiError, LineFramer
from kiothi_board.api.server import ApiConfig, ApiServer
from kiothi_board.api.service import BoardService

__all__ = [
    "COMMANDS",
    "CONTROL_COMMANDS",
    "DEFAULT_TOPICS",
    "MAX_LINE",
    "PROTOCOL",
    "TOPICS",
    "VERSION",
    "ApiConfig",
    "ApiError",
    "ApiServer",
    "BoardService",
    "ClientSession",
    "Dispatcher",
    "LineFramer",
    "frame_to_hex",
    "start_api",
]
