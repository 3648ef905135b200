"""`kiothi-board seat-link --side N`: ask the running board for a seat link and print it.

The link (`…/#seat=…`) seats a person on the web as one side, once, until it expires
(docs/api.md, "A seat on the web"). The board is asked over its Unix socket (`api.unix_path`:
the socket's mode and owner are the access control, so whoever may use it is staff).
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from collections.abc import Sequence
from typing import Any

from kiothi_board.helptext import DefaultsFormatter

__all__ = ["main", "request"]

DEFAULT_SOCKET = "/run/kiothi-board/api.sock"


def request(path: str, cmd: str, args: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
    """One request over the board's Unix socket; the reply (events are skipped)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(json.dumps({"v": 1, "id": 1, "cmd": cmd, "args": args}).encode() + b"\n")
        reader = sock.makefile("rb")
        for line in reader:
            reply = json.loads(line)
            if reply.get("id") == 1:
                return dict(reply)
    raise ConnectionError(f"{path}: the board closed the socket before it answered")


def main(argv: Sequence[str] | None = None) -> int:
    """Print a new seat link (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="kiothi-board seat-link",
        description="Print a one-time link that seats a player on the web as one side of the "
        "next game (start it with new_game web=SIDE, or from the operator page).",
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("--side", choices=("N", "S"), default="N", help="the side the seat plays")
    parser.add_argument("--expires", type=int, default=600, help="seconds the link stays good")
    parser.add_argument("--socket", default=DEFAULT_SOCKET, help="the board's api.unix_path")
    parser.add_argument("--base", help="the page's address for the link (default: the board's)")
    args = parser.parse_args(argv)
    try:
        reply = request(args.socket, "seat_link", {"side": args.side, "expires": args.expires})
    except (OSError, ValueError) as exc:
        print(
            f"kiothi-board seat-link: cannot ask the board at {args.socket}: {exc}", file=sys.stderr
        )
        return 2
    if not reply.get("ok"):
        print(f"kiothi-board seat-link: {reply['error']['message']}", file=sys.stderr)
        return 2
    result = reply["result"]
    base = args.base or (result["url"] and result["url"].removesuffix(result["link"]))
    if not base:
        print(
            "kiothi-board seat-link: the board serves no web page (api.web_port)", file=sys.stderr
        )
        return 2
    print(base.rstrip("/") + "/" + result["link"])
    return 0
