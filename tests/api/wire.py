"""Raw HTTP and WebSocket clients on plain sockets: an attacker sets every header itself."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
from typing import Any


def http(
    port: int, path: str = "/", headers: dict[str, str] | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], bytes]:
    """One request to 127.0.0.1:port; returns status, headers, body."""
    hdrs = {"Host": f"127.0.0.1:{port}", "Connection": "close", **(headers or {})}
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items())
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head.encode() + b"\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    top, _, body = data.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    out = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        out[key.strip().lower()] = value.strip()
    return status, out, body


class RawWebSocket:
    """A WebSocket opened by hand (any Host, any Origin); `read=False` never reads."""

    def __init__(
        self,
        port: int,
        headers: dict[str, str],
        *,
        rcvbuf: int | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.sock = socket.socket()
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(5)
        self.sock.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        hdrs = {
            "Host": f"{host}:{port}",
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": "13",
            **headers,
        }
        head = "GET /ws HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items())
        self.sock.sendall(head.encode() + b"\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(1)
            if not chunk:
                break
            data += chunk
        self.status = int(data.split(b" ", 2)[1]) if data else 0
        self._buf = b""

    def send(self, message: dict[str, Any]) -> None:
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def _read(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def recv(self) -> dict[str, Any]:
        """The next text message (pings answered by nobody: tests are short)."""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", self._read(8))
            payload = self._read(n)
            if b0 & 0x0F == 0x1:
                result: dict[str, Any] = json.loads(payload)
                return result
            if b0 & 0x0F == 0x8:
                raise ConnectionError("closed by the server")

    def request(self, rid: int, cmd: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and return its reply (events in between are skipped)."""
        msg: dict[str, Any] = {"id": rid, "cmd": cmd}
        if args is not None:
            msg["args"] = args
        self.send(msg)
        while True:
            reply = self.recv()
            if reply.get("id") == rid:
                return reply

    def close(self) -> None:
        self.sock.close()
