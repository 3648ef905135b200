# The co-processor's protocol logic (firmware/PROTOCOL.md), free of machine imports so the
# same file is exercised on CPython by tests/hardware/test_link.py and under MicroPython by
# tests/firmware/test_micropython.py. main.py wires it to the pins, USB CDC and the restart.
#
# MicroPython-compatible on purpose: no __future__ or typing imports, no f-strings.
# ruff: noqa: UP031

import frames


def _since(now, then):
    # ms from `then` to `now` on the wrapping u32 clock
    return (now - then) & 0xFFFFFFFF


class Device:
    """Scans inputs and answers the host. It drives no LEDs: the Pi's SPI does.

    write(bytes): send to the host. read_levels() -> int: bit i set while input slot i is
    active (slots 0..19 pits, 20.. controls). ticks_ms() / ticks_diff(a, b): the MicroPython
    time functions. maintenance(): restart into the update mode (main.py: a flag file and a
    hard reset), called after the MAINTENANCE answer is written; None: not offered.
    """

    def __init__(
        self,
        write,
        read_levels,
        ticks_ms,
        ticks_diff,
        maintenance=None,
        pits=20,
        controls=4,
        firmware=(0, 2, 0),
        status_ms=100,
        error_gap_ms=100,
    ):
        self._write = write
        self._read_levels = read_levels
        self._maintenance = maintenance
        self._ticks_ms = ticks_ms
        self._ticks_diff = ticks_diff
        self.pits = pits
        self.controls = controls
        self.firmware = firmware
        self.status_ms = status_ms
        self.error_gap_ms = error_gap_ms
        self.reader = frames.FrameReader()
        self.rx_ok = 0
        self.rx_bad = 0
        self._overruns = 0
        self._seq = 0
        # ticks_ms() wraps (at 2**30 on the RP2040); the wire carries a u32 that we accumulate.
        self._last_ticks = ticks_ms()
        self.ms = 0
        self._next_status = 0
        self._last_error = (-error_gap_ms) & 0xFFFFFFFF
        self.levels = read_levels()

    def send(self, msg_type, payload):
        frame = frames.encode_frame(msg_type, self._seq, payload)
        self._seq = (self._seq + 1) & 0xFF
        self._write(frame)

    def feed(self, data):
        """Bytes from the host."""
        for packet in self.reader.feed(data):
            self._packet(packet)
        if self.reader.overruns != self._overruns:
            self._overruns = self.reader.overruns
            self._bad(frames.E_OVERRUN, 0)

    def tick(self):
        """Scan inputs (INPUT per change) and send STATUS when due; call every SCAN_MS."""
        now = self._ticks_ms()
        self.ms = (self.ms + self._ticks_diff(now, self._last_ticks)) & 0xFFFFFFFF
        self._last_ticks = now
        levels = self._read_levels()
        changed = levels ^ self.levels
        self.levels = levels
        slot = 0
        while changed:
            if changed & 1:
                self.send(frames.INPUT, frames.pack_input(slot, (levels >> slot) & 1, self.ms))
            changed >>= 1
            slot += 1
        if _since(self.ms, self._next_status) < 0x80000000:  # due (modulo-2**32 compare)
            self._next_status = (self.ms + self.status_ms) & 0xFFFFFFFF
            self.status()

    def status(self):
        self.send(frames.STATUS, frames.pack_status(self.levels, self.ms, self.rx_bad, self.rx_ok))

    def _packet(self, packet):
        try:
            msg_type, _seq, payload = frames.decode_frame(packet)
            self._handle(msg_type, payload)
        except frames.FrameDecodeError as exc:
            # Count it, never act on it, tell the host (rate-limited); the reader has already
            # resynchronised at the delimiter.
            self._bad(exc.reason, packet[0] if len(packet) else 0)
            return
        self.rx_ok += 1

    def _bad(self, reason, detail):
        self.rx_bad += 1
        if _since(self.ms, self._last_error) >= self.error_gap_ms:
            self._last_error = self.ms
            self.send(frames.ERROR, frames.pack_error(reason, detail, self.rx_bad))

    def _handle(self, msg_type, payload):
        if msg_type == frames.HELLO:
            frames.unpack_hello(payload)
            features = frames.F_MAINTENANCE if self._maintenance is not None else 0
            ack = frames.pack_hello_ack(self.firmware, self.pits, self.controls, features)
            self.send(frames.HELLO_ACK, ack)
            self.status()
        elif msg_type == frames.MAINTENANCE and self._maintenance is not None:
            frames.check_maintenance(payload)
            self.send(frames.MAINTENANCE, frames.MAINTENANCE_MAGIC)
            self._maintenance()
        else:
            raise frames.FrameDecodeError(frames.E_TYPE, "type %d is not for a device" % msg_type)
