"""The firmware modules under the real interpreter: MicroPython 1.27 (WebAssembly) in Node.

`firmware/wasm/device.mjs` loads frames.py, device.py and config.py — as they ship — into
MicroPython; these tests never skip: without node or the npm package (`make setup` runs
`npm ci` in firmware/wasm) they fail and say what to install.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.hardware import cobs_frames as cf
from kiothi_board.hardware.link import CoprocessorLink, LinkMessage
from kiothi_board.hardware.link_devices import LinkPitInput
from kiothi_board.hardware.protocols import InputEvent

ROOT = Path(__file__).resolve().parents[2]
WASM = ROOT / "firmware" / "wasm"
PACKAGE = WASM / "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs"
WAIT = 30.0


def node() -> str:
    """The node binary, failing the test loudly (never skipping) when anything is missing."""
    found = shutil.which("node")
    if found is None:
        pytest.fail("node is not installed: scripts/setup-system.sh installs nodejs")
    if not PACKAGE.exists():
        pytest.fail(f"{PACKAGE} is missing: run `make setup` (npm ci in firmware/wasm)")
    return found


def run_micropython(script: str, tmp_path: Path) -> str:
    path = tmp_path / "script.py"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run(
        [node(), str(WASM / "device.mjs"), "--run", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


MESSAGES = [
    (cf.HELLO, 0, bytes([1])),
    (cf.HELLO_ACK, 7, cf.pack_hello_ack((0, 2, 0), 20, 4)),
    (cf.INPUT, 255, cf.pack_input(19, 1, 0xFFFFFFFF)),
    (cf.STATUS, 3, cf.pack_status(0xFFFFF, 123456, 2, 65535)),
    (cf.MAINTENANCE, 1, cf.MAINTENANCE_MAGIC),
    (cf.ERROR, 2, cf.pack_error(cf.E_CRC, 0, 9)),
    (cf.ERROR, 0, bytes(range(250))),  # a payload of 250: a full COBS block, zeros inside
]


def test_the_codec_runs_under_micropython_and_matches_cpython(tmp_path: Path) -> None:
    cpython = [cf.encode_frame(t, s, p) for t, s, p in MESSAGES]
    script = "\n".join(
        [
            "import sys, binascii, frames",
            "print(sys.implementation.name, sys.implementation.version[:2])",
            f"MESSAGES = {MESSAGES!r}",
            f"WIRE = {cpython!r}",
            "for (t, s, p), wire in zip(MESSAGES, WIRE):",
            "    mine = frames.encode_frame(t, s, p)",
            "    back = frames.decode_frame(frames.FrameReader().feed(wire)[0])",
            "    print(binascii.hexlify(mine).decode(), back == (t, s, p))",
            "r = frames.FrameReader()",
            "bad = bytearray(WIRE[1]); bad[3] ^= 0xFF",
            "for packet in r.feed(bytes(bad) + WIRE[2]):",
            "    try:",
            "        print('ok', frames.decode_frame(packet)[0])",
            "    except frames.FrameDecodeError as exc:",
            "        print('bad', exc.reason)",
            "print('ack', frames.unpack_hello_ack(MESSAGES[1][2]))",
        ]
    )
    lines = run_micropython(script, tmp_path).splitlines()
    assert lines[0] == "micropython (1, 27)"
    for line, wire in zip(lines[1 : 1 + len(MESSAGES)], cpython, strict=True):
        assert line == f"{wire.hex()} True"
    assert lines[1 + len(MESSAGES) :] == [
        f"bad {cf.E_CRC}",
        f"ok {cf.INPUT}",
        "ack (1, (0, 2, 0), 20, 4, 1)",
    ]


class PipePort:
    """A serial-like port over the MicroPython process's stdout (read) and stdin (write)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None and proc.stdin is not None
        self._rx, self._tx = proc.stdout.fileno(), proc.stdin.fileno()
        self.written: list[bytes] = []

    @property
    def in_waiting(self) -> int:
        return 4096 if select.select([self._rx], [], [], 0)[0] else 0

    def read(self, size: int = 1) -> bytes:
        ready, _, _ = select.select([self._rx], [], [], 0.05)
        return os.read(self._rx, size) if ready else b""

    def write(self, data: bytes) -> int:
        os.write(self._tx, data)
        return len(data)

    def close(self) -> None:
        pass


class MicroPythonDevice:
    """`node firmware/wasm/device.mjs`: the firmware's Device under MicroPython, on pipes."""

    def __init__(self) -> None:
        control_r, self._control = os.pipe()
        self.proc = subprocess.Popen(
            [node(), str(WASM / "device.mjs")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(control_r,),
            env={**os.environ, "KIOTHI_CONTROL_FD": str(control_r)},
        )
        os.close(control_r)
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        self.port = PipePort(self.proc)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            with self.changed:
                self.lines.append(raw.decode().rstrip("\n"))
                self.changed.notify_all()

    def wait_line(self, prefix: str, timeout: float = WAIT) -> str:
        with self.changed:
            found = self.changed.wait_for(
                lambda: any(x.startswith(prefix) for x in self.lines), timeout
            )
            assert found, f"no {prefix!r} from MicroPython; stderr: {self.lines[-5:]}"
            return next(x for x in reversed(self.lines) if x.startswith(prefix))

    def set_levels(self, mask: int) -> None:
        os.write(self._control, f"levels {mask}\n".encode())

    def close(self) -> None:
        os.close(self._control)
        self.proc.kill()
        self.proc.wait(10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def micropython_device() -> Iterator[MicroPythonDevice]:
    device = MicroPythonDevice()
    try:
        device.wait_line("ready")
        yield device
    finally:
        device.close()


def test_the_firmware_under_micropython_talks_to_the_host_link(
    micropython_device: MicroPythonDevice,
) -> None:
    mpy = micropython_device
    clock = FakeClock()  # the link's debounce clock; the heartbeat runs on the device's time
    arrived = threading.Event()
    events: list[InputEvent] = []
    inputs: list[LinkMessage] = []
    answers: list[LinkMessage] = []
    shipped = (ROOT / "firmware/kiothi_io/config.py").read_text(encoding="utf-8")
    with (
        CoprocessorLink(
            "micropython://pipes",
            clock=clock,
            heartbeat_timeout=10.0,
            serial_factory=lambda *a, **k: mpy.port,
        ) as link,
        LinkPitInput(link, clock=clock, notify=arrived.set) as pits,
    ):
        link.add_listener(lambda m: inputs.append(m) if m.type == cf.INPUT else None)
        link.add_listener(lambda m: answers.append(m) if m.type == cf.MAINTENANCE else None)
        assert link.wait_up(WAIT), link.error
        assert link.device is not None
        assert f"FIRMWARE_VERSION = {link.device.firmware}" in shipped  # the shipped config.py
        assert (link.device.pits, link.device.controls, link.device.updatable) == (20, 4, True)
        pits.start(events.append)
        mpy.set_levels(1 << 12)  # N3 pressed on the (MicroPython) device
        assert arrived.wait(WAIT)
        assert link.wait_for(lambda: len(inputs) >= 1, WAIT)
        assert cf.unpack_input(inputs[0].payload)[:2] == (12, 1)
        clock.advance(0.05)
        pits.poll()
        assert [(e.kind, e.pit) for e in events] == [("pressed", 12)]
        # The LEDs are the Pi's: an LED frame of firmware 0.1's protocol is an unknown type.
        link.send(0x5, bytes(4 + 3 * 82))
        assert link.wait_for(lambda: link.stats.device_errors >= 1, WAIT)
        assert link.is_up and link.stats.garbled == 0
        link.request_maintenance()  # answered, then main.py's restart would run
        assert link.wait_for(lambda: len(answers) == 1, WAIT)
        assert mpy.wait_line("maintenance") == "maintenance"
