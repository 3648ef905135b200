"""Choosing drivers: a named driver is required (an error naming the key), `auto` falls back
with a `DriverFallback` warning and a log line; each concern is resolved on its own."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.daemon import Daemon
from kiothi_board.drivers import Drivers
from kiothi_board.errors import (
    ConfigError,
    DriverFallback,
    DriverUnavailableError,
    KiothiWarning,
    LinkError,
)
from kiothi_board.hardware.fakes import FakePitInput, FakePixelSink
from tests.refusals import refused_at_start


@pytest.fixture
def no_hardware(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without GPIO or NeoPixel library, whatever machine the tests run on."""
    from gpiozero import Device  # type: ignore[import-untyped]

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "kiothi-no-such-factory")
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setitem(sys.modules, "neopixel", None)  # import neopixel -> ImportError
    monkeypatch.setitem(sys.modules, "neopixel_spi", None)


def drivers(sections: dict[str, Any], resources: list[Any] | None = None) -> Drivers:
    return Drivers(
        validate(sections), clock=FakeClock(), resources=[] if resources is None else resources
    )


def test_fallback_is_a_kiothi_warning() -> None:
    assert issubclass(DriverFallback, KiothiWarning)
    assert issubclass(KiothiWarning, Warning)
    assert issubclass(DriverUnavailableError, LinkError)


@pytest.mark.usefixtures("no_hardware")
def test_auto_and_neopixel_without_gpio_refuses_to_start(tmp_path: Path) -> None:
    """The bug: inputs falling back used to turn the named NeoPixel output into fakes."""
    cfg = validate({"board": {"input": "auto"}, "leds": {"output": "neopixel"}})
    with (
        pytest.warns(DriverFallback, match="board.input"),
        pytest.raises(DriverUnavailableError, match=r"^leds\.output = 'neopixel': NeoPixel"),
    ):
        Daemon(cfg, state_dir=str(tmp_path), api=False, clock=FakeClock())


@pytest.mark.usefixtures("no_hardware")
def test_pit_input_gpio_is_required() -> None:
    with pytest.raises(DriverUnavailableError, match=r"^board\.input = 'gpio': GPIO pit input"):
        drivers({"board": {"input": "gpio"}}).pit_input()


@pytest.mark.usefixtures("no_hardware")
def test_pit_input_auto_falls_back_with_warning_and_log(caplog: pytest.LogCaptureFixture) -> None:
    made = drivers({"board": {"input": "auto"}})
    with caplog.at_level(logging.WARNING), pytest.warns(DriverFallback, match="board.input"):
        inputs = made.pit_input()
    assert isinstance(inputs, FakePitInput)
    assert made.fell_back == ["board.input"]
    assert "board.input = 'auto'" in caplog.text


@pytest.mark.usefixtures("no_hardware")
def test_led_output_neopixel_is_required() -> None:
    with pytest.raises(DriverUnavailableError, match=r"^leds\.output = 'neopixel': NeoPixel"):
        drivers({"leds": {"output": "neopixel"}}).pixel_sink()


@pytest.mark.usefixtures("no_hardware")
def test_led_output_auto_falls_back_on_its_own(caplog: pytest.LogCaptureFixture) -> None:
    made = drivers({"board": {"input": "sim"}, "leds": {"output": "auto"}})
    made.pit_input()
    assert made.fell_back == []  # the inputs did not fall back ...
    with caplog.at_level(logging.WARNING), pytest.warns(DriverFallback, match="leds.output"):
        sink = made.pixel_sink()  # ... and the LEDs still get their own check
    assert isinstance(sink, FakePixelSink)
    assert made.fell_back == ["leds.output"]
    assert "leds.output = 'auto'" in caplog.text


def test_sim_forces_fakes_without_warning(recwarn: pytest.WarningsRecorder) -> None:
    made = Drivers(
        validate({"board": {"input": "gpio"}, "leds": {"output": "neopixel"}}),
        clock=FakeClock(),
        resources=[],
        sim=True,
    )
    assert isinstance(made.pit_input(), FakePitInput)
    assert isinstance(made.pixel_sink(), FakePixelSink)
    assert not [w for w in recwarn if issubclass(w.category, DriverFallback)]


def test_link_is_required_and_names_the_port(tmp_path: Path) -> None:
    port = str(tmp_path / "kiothi-no-such-port")
    sections = {"board": {"input": "coprocessor", "port": port}}
    with pytest.raises(
        DriverUnavailableError, match=r"^board\.input = 'coprocessor': co-proc"
    ) as info:
        drivers(sections).pit_input()
    assert f"board.port = {port!r}" in str(info.value)


def test_the_config_takes_its_driver_names_from_the_registry() -> None:
    from kiothi_board.config import SCHEMA
    from kiothi_board.errors import ConfigError
    from kiothi_board.hardware.registry import LED_OUTPUTS, PIT_INPUTS

    assert PIT_INPUTS.choices() == ("auto", "gpio", "coprocessor", "sim")
    assert LED_OUTPUTS.choices() == ("auto", "neopixel", "neopixel-pwm", "sim")
    for table, registry in (("board", PIT_INPUTS), ("leds", LED_OUTPUTS)):
        key = registry.key.split(".")[1]
        check = SCHEMA[table][key].check
        assert check is not None
        assert [c for c in registry.choices() if check(c) is None] == list(registry.choices())
        assert all(registry[name].description for name in registry)
    # The co-processor reads buttons only: the LEDs are on the Pi's SPI in every wiring.
    with pytest.raises(ConfigError, match=r"leds\.output = 'coprocessor': must be one of"):
        validate({"leds": {"output": "coprocessor"}})


@pytest.mark.usefixtures("no_hardware")
def test_led_output_pwm_is_required() -> None:
    with pytest.raises(DriverUnavailableError, match=r"^leds\.output = 'neopixel-pwm': NeoPixel"):
        drivers({"leds": {"output": "neopixel-pwm"}}).pixel_sink()


def test_store_is_required_and_names_the_key(tmp_path: Path) -> None:
    resources: list[Any] = []
    made = drivers({"store": {"path": str(tmp_path)}}, resources)  # a directory, not a file
    with pytest.raises(DriverUnavailableError, match=r"^store\.backend = 'sqlite': SQLite store"):
        made.store(tmp_path)
    redis = drivers({"store": {"backend": "redis", "redis_url": "nonsense://x"}})
    with pytest.raises(DriverUnavailableError, match=r"^store\.backend = 'redis': Redis store"):
        redis.store(tmp_path)
    store = drivers({}, resources).store(tmp_path)
    assert resources == [store]
    store.close()


@pytest.mark.parametrize(
    ("leds", "message"),
    [
        ({"chain": [0, 0, 2]}, r"leds.chain must list each pit 0…19 exactly once"),
        ({"chain": ["S1"] * 20}, r"leds.chain must list each pit"),
    ],
)
def test_sim_checks_the_leds_layout_too(tmp_path: Path, leds: dict[str, Any], message: str) -> None:
    """Issue 21: `--sim` started with a chain the board's NeoPixel driver refuses."""
    sections = {"leds": {"output": "neopixel", **leds}}
    made = Drivers(validate(sections), clock=FakeClock(), resources=[], sim=True)
    with pytest.raises(ConfigError, match=message):
        made.pixel_sink()
    config = tmp_path / "c.toml"
    config.write_text(
        '[leds]\noutput = "neopixel"\nchain = [0, 0, 2]\n[api]\ntcp_port = -1\nweb_port = -1\n'
    )
    assert "leds.chain must list each pit" in refused_at_start(config, tmp_path / "state")


@pytest.mark.usefixtures("no_hardware")
def test_a_laptop_run_says_no_board_found_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 31 item 18: `make run` on a laptop printed two WARNING lines, each with
    gpiozero's "Unable to load any default pin factory!"; now one plain line."""
    from kiothi_board.drivers import NO_BOARD

    with caplog.at_level(logging.INFO), pytest.warns(DriverFallback):
        daemon = Daemon(validate({}), state_dir=str(tmp_path), api=False, clock=FakeClock())
    daemon.close()
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warned == [NO_BOARD], warned
    assert "pin factory" not in caplog.text and daemon.simulated


@pytest.mark.usefixtures("no_hardware")
def test_no_gpio_is_said_with_its_fix() -> None:
    with pytest.raises(DriverUnavailableError) as got:
        drivers({"board": {"input": "gpio"}}).pit_input()
    assert "pin factory" not in str(got.value), got.value
    assert "not a Raspberry Pi" in str(got.value) and "pip install lgpio" in str(got.value)
