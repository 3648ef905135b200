"""`kiothi-board remote`: invite a board elsewhere, list the boards online, answer an
invitation or claim, by asking the local board's API (its TCP port on loopback, or its Unix
socket: both doors give a local program control, docs/api.md)."""

from __future__ import annotations

import argparse
import json
import os
import socket
from collections.abc import Sequence
from typing import Any

from kiothi_board.helptext import DefaultsFormatter

__all__ = ["main"]


def _ask(args: argparse.Namespace, cmd: str, **params: Any) -> dict[str, Any]:
    """One request on a fresh connection; the reply's result (exit 1 on an error)."""
    if args.unix:
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(args.timeout)
        sock.connect(args.unix)
    else:
        sock = socket.create_connection((args.host, args.port), timeout=args.timeout)
    with sock, sock.makefile("rwb") as f:
        line = {"id": 1, "cmd": cmd, "args": {k: v for k, v in params.items() if v is not None}}
        if args.token:  # control over TCP: the token (or api.trust_loopback_tcp)
            hello = {"id": 0, "cmd": "hello", "args": {"token": args.token}}
            f.write(json.dumps(hello).encode() + b"\n")
        f.write(json.dumps(line).encode() + b"\n")
        f.flush()
        for raw in f:
            reply = json.loads(raw)
            if reply.get("id") != 1:
                continue  # an event
            if not reply.get("ok"):
                error = reply.get("error", {})
                raise SystemExit(f"kiothi-board remote {cmd}: {error.get('message', error)}")
            result: dict[str, Any] = reply.get("result", {})
            return result
    raise SystemExit(f"kiothi-board remote {cmd}: the board closed the connection")


def _boards(status: dict[str, Any]) -> str:
    rows = [f"{'board':20} {'name':24} {'lang':5} {'free':5} presence"]
    for board, card in status.get("boards", {}).items():
        free = "yes" if card.get("free") else "no"
        name, lang = str(card.get("name") or ""), str(card.get("lang") or "")
        rows.append(f"{board:20} {name:24} {lang:5} {free:5} {card.get('presence')}")
    return "\n".join(rows)


def main(argv: Sequence[str]) -> int:
    """Run one remote-play command on the local board."""
    p = argparse.ArgumentParser(prog="kiothi-board remote", description=__doc__.split("\n")[0],
                                formatter_class=DefaultsFormatter)  # fmt: skip
    p.add_argument("--host", default="127.0.0.1", help="the board's API host")
    p.add_argument("--port", type=int, default=7420, help="the board's api.tcp_port")
    p.add_argument("--unix", default="", help="the board's api.unix_path instead")
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--token", default=os.environ.get("KIOTHI_TOKEN", ""),
                   help="the board's api.token (default: $KIOTHI_TOKEN); a Unix socket "
                   "and api.trust_loopback_tcp need none")  # fmt: skip
    sub = p.add_subparsers(dest="what", required=True)
    sub.add_parser("list", help="the boards online (their lobby cards) and the match")
    invite = sub.add_parser("invite", help="invite BOARD to a game")
    invite.add_argument("board")
    invite.add_argument("--side", choices=("S", "N"), default="S", help="this board's side")
    invite.add_argument("--move-seconds", type=int, default=None, help="time per move")
    for name in ("accept", "decline"):
        sub.add_parser(name, help=f"{name} an invitation").add_argument("board", nargs="?")
    sub.add_parser("claim", help="claim after the other board's absence").add_argument(
        "claim", choices=("win", "draw")
    )
    args = p.parse_args(argv)
    if args.what == "list":
        status = _ask(args, "remote_status")
        print(_boards(status))
        if status.get("match"):
            print("match:", json.dumps(status["match"]))
        return 0
    if args.what == "invite":
        got = _ask(args, "remote_invite", board=args.board, side=args.side,
                   move_seconds=args.move_seconds)  # fmt: skip
    elif args.what in ("accept", "decline"):
        got = _ask(args, f"remote_{args.what}", **{"from": args.board})
    else:
        got = _ask(args, "remote_claim", claim=args.claim)
    print(json.dumps(got))
    return 0
