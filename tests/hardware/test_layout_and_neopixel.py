"""Ring layout mapping, the current limiter and the NeoPixel driver over a fake module."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kiothi_board.errors import ConfigError, FrameError, LinkError
from kiothi_board.hardware.layout import RingLayout, estimate_milliamps, limit_current
from kiothi_board.hardware.neopixel import NeoPixelRings
from kiothi_board.hardware.protocols import RGB, PixelSink


def marked_frame(n: int) -> list[list[RGB]]:
    """Each LED's colour encodes (pit, led), so the mapping can be read back."""
    return [[(pit, led, 7) for led in range(n)] for pit in range(20)]


def test_default_layout_is_identity() -> None:
    layout = RingLayout()
    chain = layout.to_chain(marked_frame(16))
    assert chain == [(p, k, 7) for p in range(20) for k in range(16)]


def test_offset_direction_and_chain_order() -> None:
    layout = RingLayout.from_config(
        {
            "leds_per_ring": 12,
            "offset": {"S1": 3},
            "direction": {"S1": "ccw", "N10": "CCW"},
            "chain": [f"N{k}" for k in range(1, 11)] + [f"S{k}" for k in range(1, 11)],
        }
    )
    chain = layout.to_chain(marked_frame(12))
    # S1 is the 11th ring on the chain; logical LED 0 is physical LED 3, then backwards
    assert chain[10 * 12 + 3] == (0, 0, 7)
    assert chain[10 * 12 + 2] == (0, 1, 7)
    assert chain[10 * 12 + 4] == (0, 11, 7)
    # N1 (pit 10) is first on the chain, unrotated
    assert chain[:2] == [(10, 0, 7), (10, 1, 7)]
    assert layout.chain_index(19, 1) == 9 * 12 + 11
    with pytest.raises(IndexError):
        layout.chain_index(0, 12)


@given(
    st.sampled_from([12, 16, 24]),
    st.lists(st.integers(0, 11), min_size=20, max_size=20),
    st.lists(st.sampled_from(["cw", "ccw"]), min_size=20, max_size=20),
    st.permutations(list(range(20))),
)
def test_mapping_is_a_bijection(n: int, offs: list[int], dirs: list[str], chain: list[int]) -> None:
    layout = RingLayout.from_config(
        {"leds_per_ring": n, "offset": offs, "direction": dirs, "chain": chain}
    )
    out = layout.to_chain(marked_frame(n))
    assert sorted(out) == sorted(c for ring in marked_frame(n) for c in ring)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"leds_per_ring": 8}, "12, 16, 24.*8"),
        ({"offset": 16}, "offset of pit 0: expected 0…15, got 16"),
        ({"offset": [0] * 19}, "20 values"),
        ({"direction": {"S3": "left"}}, "pit 2.*'left'"),
        ({"chain": list(range(19))}, "exactly once"),
        ({"chain": [*range(19), 0]}, "exactly once"),
        ({"chain": ["S11", *range(1, 20)]}, "'S11'"),
        ({"offset": {"X1": 2}}, "'X1'"),
        ({"colour": 1}, "'colour'"),
        ({"chain": "S1"}, "'S1'"),
    ],
)
def test_layout_config_errors_quote_the_input(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        RingLayout.from_config(config)


def test_to_chain_checks_the_frame() -> None:
    with pytest.raises(FrameError, match="expected 16 LEDs, got 12"):
        RingLayout().to_chain(marked_frame(12))


def test_current_model_and_limiter() -> None:
    white = [(255, 255, 255)] * 320
    assert estimate_milliamps(white) == pytest.approx(320 * 61)
    assert estimate_milliamps(white, brightness=0.5) == pytest.approx(320 * 31)
    dim = [(10, 0, 0)] * 320
    assert limit_current(dim, 3000) == dim
    limited = limit_current(white, 3000, brightness=0.5)
    assert estimate_milliamps(limited, brightness=0.5) <= 3000
    assert estimate_milliamps(limited, brightness=0.5) > 2900
    assert len({c for c in limited}) == 1  # scaled evenly
    assert limit_current(white, 100) == [(0, 0, 0)] * 320


class FakeNeoPixel:
    """Records what the driver does, like adafruit's NeoPixel with auto_write=False."""

    instances: ClassVar[list[FakeNeoPixel]] = []

    def __init__(
        self, pin: object, n: int, *, brightness: float, auto_write: bool, pixel_order: str
    ) -> None:
        self.pin, self.n, self.brightness = pin, n, brightness
        self.auto_write, self.pixel_order = auto_write, pixel_order
        self.buffer: list[RGB] = [(0, 0, 0)] * n
        self.shown: list[list[RGB]] = []
        self.deinited = 0
        self.instances.append(self)

    def __setitem__(self, i: int, colour: RGB) -> None:
        self.buffer[i] = colour

    def show(self) -> None:
        self.shown.append(list(self.buffer))

    def deinit(self) -> None:
        self.deinited += 1


FAKE_NEOPIXEL = SimpleNamespace(NeoPixel=FakeNeoPixel)
FAKE_BOARD = SimpleNamespace(D18="pin-18", D10="pin-10")


def rings(**kwargs: Any) -> tuple[NeoPixelRings, FakeNeoPixel]:
    kwargs.setdefault("layout", RingLayout(leds_per_ring=12))
    kwargs.setdefault("bus", "pwm")
    sink = NeoPixelRings(neopixel_module=FAKE_NEOPIXEL, board_module=FAKE_BOARD, **kwargs)
    return sink, FakeNeoPixel.instances[-1]


def test_neopixel_rings_show_and_close() -> None:
    layout = RingLayout.from_config({"leds_per_ring": 12, "chain": [19, *range(19)]})
    sink, pixels = rings(layout=layout, brightness=0.9, pixel_order="RGB")
    assert isinstance(sink, PixelSink)
    assert (pixels.pin, pixels.n, pixels.auto_write, pixels.pixel_order) == (
        "pin-18",
        240,
        False,
        "RGB",
    )
    assert pixels.brightness == sink.brightness == 0.5  # capped
    sink.show(marked_frame(12))
    assert pixels.shown[-1][0] == (19, 0, 7)
    assert pixels.shown[-1][12] == (0, 0, 7)
    sink.set_brightness(0.2)
    assert pixels.brightness == 0.2
    with sink:
        pass
    sink.close()
    assert pixels.shown[-1] == [(0, 0, 0)] * 240
    assert len(pixels.shown) == 2
    assert pixels.deinited == 1
    sink.show(marked_frame(12))
    assert len(pixels.shown) == 2


def test_neopixel_rings_limit_current() -> None:
    sink, pixels = rings(supply_milliamps=2000, brightness=0.5)
    sink.show([[(255, 255, 255)] * 12] * 20)
    assert estimate_milliamps(pixels.shown[-1], brightness=0.5) <= 2000
    assert sink.limited_frames == 1
    unlimited, raw = rings(supply_milliamps=None, brightness=0.5)
    unlimited.show([[(255, 255, 255)] * 12] * 20)
    assert raw.shown[-1][0] == (255, 255, 255)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"pixel_order": "GRBW"}, ConfigError, "'GRBW'"),
        ({"brightness": 1.5}, ConfigError, "1.5"),
        ({"max_brightness": 0}, ConfigError, "0"),
        ({"pin_name": "D99"}, ConfigError, "'D99'"),
        ({"supply_milliamps": 100}, ConfigError, "100"),
    ],
)
def test_neopixel_rings_config_errors(kwargs: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        rings(**kwargs)


def test_neopixel_driver_failures_are_link_errors() -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("needs root")

    with pytest.raises(LinkError, match="needs root"):
        NeoPixelRings(
            RingLayout(),
            bus="pwm",
            neopixel_module=SimpleNamespace(NeoPixel=refuse),
            board_module=FAKE_BOARD,
        )


class FakeSPI:
    """Blinka's `board.SPI()`: the SPI0 bus (SCLK GPIO11, MOSI GPIO10, MISO GPIO9)."""


class FakeNeoPixelSPI(FakeNeoPixel):
    """adafruit-circuitpython-neopixel-spi's NeoPixel_SPI(spi, n, ...), recorded."""

    def __init__(
        self, spi: object, n: int, *, brightness: float, auto_write: bool, pixel_order: str
    ) -> None:
        super().__init__(
            spi, n, brightness=brightness, auto_write=auto_write, pixel_order=pixel_order
        )


class FakeSpiBoard:
    def __init__(self, fail: Exception | None = None) -> None:
        self.buses: list[FakeSPI] = []
        self.fail = fail

    def SPI(self) -> FakeSPI:
        if self.fail is not None:
            raise self.fail
        self.buses.append(FakeSPI())
        return self.buses[-1]


def test_spi_is_the_default_bus_and_needs_no_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    # the real driver imports neopixel_spi and board lazily: give it fakes in sys.modules
    board = FakeSpiBoard()
    monkeypatch.setitem(sys.modules, "neopixel_spi", SimpleNamespace(NeoPixel_SPI=FakeNeoPixelSPI))
    monkeypatch.setitem(sys.modules, "board", board)
    sink = NeoPixelRings(
        RingLayout(leds_per_ring=16), brightness=0.3, pixel_order="GRB", spidev_bufsiz=32768
    )
    pixels = FakeNeoPixel.instances[-1]
    assert isinstance(pixels, FakeNeoPixelSPI) and sink.bus == "spi"
    assert pixels.pin is board.buses[0]  # the SPI bus object, not a pin
    assert (pixels.n, pixels.auto_write, pixels.pixel_order, pixels.brightness) == (
        320,
        False,
        "GRB",
        0.3,
    )
    sink.show(marked_frame(16))
    assert pixels.shown[-1][:2] == [(0, 0, 7), (0, 1, 7)] and pixels.shown[-1][16] == (1, 0, 7)
    sink.close()
    assert pixels.shown[-1] == [(0, 0, 0)] * 320 and pixels.deinited == 1


def test_spi_failures_are_link_errors_and_bad_bus_is_a_config_error() -> None:
    spi_module = SimpleNamespace(NeoPixel_SPI=FakeNeoPixelSPI)
    with pytest.raises(LinkError, match=r"cannot open SPI0.*No such file.*spidev0\.0"):
        NeoPixelRings(
            RingLayout(),
            neopixel_module=spi_module,
            board_module=FakeSpiBoard(FileNotFoundError("No such file: /dev/spidev0.0")),
            spidev_bufsiz=32768,
        )
    with pytest.raises(ConfigError, match="'i2c'"):
        NeoPixelRings(
            RingLayout(), bus="i2c", neopixel_module=spi_module, board_module=FakeSpiBoard()
        )


def test_no_spi_device_says_so_without_the_pi_boot_fix(tmp_path: Path) -> None:
    """Issue 24 #7: on a laptop the fallback told the user to edit /boot/firmware/cmdline.txt."""
    with pytest.raises(LinkError, match=r"no SPI device here \(/dev/spidev0\.0\)") as exc:
        NeoPixelRings(RingLayout(), root=tmp_path)
    assert "cmdline.txt" not in str(exc.value)
