"""The LED seam (issue 33): every `PixelSink` has `set_brightness`, and a real chain is a
`LimitedChain` whose subclass only transmits: one `_transmit(bytes)` a frame, 3 bytes a LED
in chain order, as Adafruit's Pixelbuf builds its drivers. (NeoPixelRings is one; that its
frame is still one SPI transfer is tests/hardware/test_spi_transfers.py's.)"""

from __future__ import annotations

import pytest

from kiothi_board.errors import ConfigError
from kiothi_board.hardware.chain import LimitedChain
from kiothi_board.hardware.fakes import FakePixelSink
from kiothi_board.hardware.layout import RingLayout
from kiothi_board.hardware.protocols import PixelSink


class Recorder(LimitedChain):
    """A new LED output in full: what it sends, and the brightness its hardware was told."""

    def __init__(self, layout: RingLayout) -> None:
        super().__init__(layout, brightness=0.3, max_brightness=0.5, supply_milliamps=None)
        self.sent: list[bytes] = []
        self.hardware: list[float] = []
        self.released = 0

    def _transmit(self, data: bytes) -> None:
        self.sent.append(data)

    def _hardware_brightness(self, value: float) -> None:
        self.hardware.append(value)

    def _release(self) -> None:
        self.released += 1


def test_a_chain_needs_only_transmit() -> None:
    layout = RingLayout.from_config({"leds_per_ring": 12, "chain": list(range(19, -1, -1))})
    sink = Recorder(layout)
    assert isinstance(sink, PixelSink)
    frame = [[(pit, led, 9) for led in range(12)] for pit in range(20)]
    sink.show(frame)
    assert len(sink.sent) == 1 and len(sink.sent[0]) == 3 * 240
    assert sink.sent[0][:6] == bytes([19, 0, 9, 19, 1, 9]), "chain order: N10's ring first"
    sink.set_brightness(0.9)
    assert (sink.brightness, sink.hardware) == (0.5, [0.5]), "capped, then told"
    with pytest.raises(ConfigError, match=r"1\.5"):
        sink.set_brightness(1.5)
    sink.close()
    sink.close()
    assert sink.sent[-1] == bytes(720) and len(sink.sent) == 2 and sink.released == 1
    sink.show(frame)
    sink.set_brightness(0.2)
    assert len(sink.sent) == 2 and sink.hardware == [0.5], "nothing after close"


def test_a_sink_without_set_brightness_is_no_pixel_sink() -> None:
    class Old:
        leds_per_ring = 16

        def show(self, frame: object) -> None: ...

        def close(self) -> None: ...

    assert not isinstance(Old(), PixelSink)
    fake = FakePixelSink(16)
    fake.set_brightness(0.25)
    assert fake.brightness == 0.25 and isinstance(fake, PixelSink)
    with pytest.raises(ValueError, match="-1"):
        fake.set_brightness(-1)
