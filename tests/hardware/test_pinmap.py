"""The pin maps: one source for config defaults, driver defaults, README tables and diagrams."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.cli import main as cli_main
from kiothi_board.config import SCHEMA, load, validate
from kiothi_board.errors import ConfigError
from kiothi_board.hardware import gpio
from kiothi_board.hardware.pinmap import PIT_NAMES, check_map, load_map
from kiothi_board.hardware.registry import LED_OUTPUTS, map_from_config
from kiothi_board.tools import bom, pinout

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "hardware"
DIRECT = (ROOT / "kiothi_board/hardware/maps/direct.toml").read_text(encoding="utf-8")


def _readme_rows(section: str) -> dict[str, tuple[int, int]]:
    """Pit name → (GPIO, header pin) as the README's generated table shows them."""
    text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    body = text.split(f"BEGIN generated {section} ")[1].split(f"END generated {section}")[0]
    rows: dict[str, tuple[int, int]] = {}
    for match in re.finditer(r"\| ([SN]\d+) \| (\d+) \| (\d+) \|", body):
        rows[match[1]] = (int(match[2]), int(match[3]))
    return rows


def test_map_config_driver_readme_diagram_and_firmware_agree() -> None:
    direct, copro = load_map("direct"), load_map("coprocessor")
    # config defaults and driver defaults are the direct map
    assert tuple(SCHEMA["board"]["pins"].default) == direct.pits == gpio.DEFAULT_PIT_PINS
    assert tuple(SCHEMA["board"]["control_pins"].default) == direct.controls
    assert direct.controls == gpio.DEFAULT_CONTROL_PINS
    # the README tables (parsed back) show the same pins on the same header pins
    for section, pin_map in (("direct-pits", direct), ("coprocessor-pits", copro)):
        rows = _readme_rows(section)
        assert sorted(rows) == sorted(PIT_NAMES)
        for name, pin in zip(PIT_NAMES, pin_map.pits, strict=True):
            assert rows[name] == (pin, pin_map.header.header[pin]), name
    # the generated README sections and both diagrams are current
    assert pinout.stale_files(HARDWARE) == []
    svg = (HARDWARE / "wiring-direct.svg").read_text(encoding="utf-8")
    for name, pin in zip(PIT_NAMES, direct.pits, strict=True):
        assert f">{name} · GPIO{pin}<" in svg
    # the firmware's pins are the co-processor map
    tree = ast.parse((ROOT / "firmware/kiothi_io/config.py").read_text(encoding="utf-8"))
    values = {
        t.id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    assert tuple(values["PIT_PINS"]) == copro.pits
    assert tuple(values["CONTROL_PINS"]) == copro.controls
    # One co-processor story: the Pico reads buttons, the LEDs are on the Pi's SPI. The map,
    # the firmware config and the settings docs/install.md gives all say so.
    assert copro.leds == "none" and not any("LED" in name for name in values)
    install_md = (ROOT / "docs/install.md").read_text(encoding="utf-8")
    block = install_md.split("```toml\n", 1)[1].split("```", 1)[0]
    told = tomllib.loads(block)
    config = validate(told, "docs/install.md")
    assert config["board"]["input"] == "coprocessor"
    assert map_from_config(config["board"], config["leds"])[0] == copro
    assert LED_OUTPUTS[config["leds"]["output"]].led_bus == direct.leds == "spi"
    assert 'leds.output = "coprocessor"' not in install_md
    # the maps are package data, so an installed package finds them
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "maps/*.toml" in project["tool"]["setuptools"]["package-data"]["kiothi_board.hardware"]


def test_packaged_maps_have_no_problems() -> None:
    assert check_map(load_map("direct")) == []
    assert check_map(load_map("coprocessor")) == []
    assert check_map(load_map("direct"), "pi5") == []


def test_a_stale_readme_is_found(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        (HARDWARE / "README.md")
        .read_text(encoding="utf-8")
        .replace("| S1 | 2 | 3 |", "| S1 | 4 | 7 |"),
        encoding="utf-8",
    )
    assert tmp_path / "README.md" in pinout.stale_files(tmp_path)
    assert cli_main(["pinout", "--check-docs", str(tmp_path)]) == 1
    assert cli_main(["pinout", "--write-docs", str(tmp_path)]) == 0
    assert pinout.stale_files(tmp_path) == []


def _write_map(tmp_path: Path, old: str, new: str) -> str:
    assert old in DIRECT
    path = tmp_path / "map.toml"
    path.write_text(DIRECT.replace(old, new, 1), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("old", "new", "key", "words"),
    [
        ("S2 = 3", "S2 = 2", "pits.S2", "already used by pits.S1"),
        ("N5 = 8", "N5 = 10", "pits.N5", "SPI0 MOSI"),
        ("N6 = 7", "N6 = 14", "pits.N6", "UART TX"),
        ("N7 = 12", "N7 = 28", "pits.N7", "no such header pin"),
        ("N8 = 16", "N8 = 0", "pits.N8", "ID EEPROM"),
        ('leds = "spi"', 'leds = "pwm"', "", ""),  # the map itself is fine with PWM…
    ],
)
def test_pinout_names_the_key_of_each_problem(
    tmp_path: Path, capsys: Any, old: str, new: str, key: str, words: str
) -> None:
    path = _write_map(tmp_path, old, new)
    status = cli_main(["pinout", path])
    out = capsys.readouterr().out
    if not key:
        assert status == 0 and "ok:" in out
        return
    assert status == 1
    assert f"{key}: " in out and words in out


def test_pwm_config_with_a_pit_on_gpio18_collides() -> None:
    pins = list(SCHEMA["board"]["pins"].default)
    pins[3] = 18
    config = validate({"board": {"pins": pins}, "leds": {"output": "neopixel-pwm"}}, "test")
    pin_map, problems = map_from_config(config["board"], config["leds"])
    assert problems == []
    found = [str(p) for p in check_map(pin_map)]
    assert found == ["board.pins[3] (S4): GPIO18 collides with PWM0 (LED data)"]
    spi = validate({"board": {"pins": pins}}, "test")  # on SPI, GPIO18 is a plain input
    assert check_map(map_from_config(spi["board"], spi["leds"])[0]) == []


def test_fixed_pull_up_pins_need_pull_up_and_names_are_parsed() -> None:
    pins: list[Any] = list(SCHEMA["board"]["pins"].default)
    pins[2] = "GPIO4"
    pins[3] = "BOARD11"  # = GPIO17
    config = validate({"board": {"pins": pins, "pull_up": False}}, "test")
    pin_map, problems = map_from_config(config["board"], config["leds"])
    assert problems == [] and pin_map.pits[2:4] == (4, 17)
    keys = [p.key for p in check_map(pin_map)]
    assert keys == ["board.pins[0] (S1)", "board.pins[1] (S2)"]  # GPIO2/3: fixed pull-ups
    pins[5] = "nonsense"
    config = validate({"board": {"pins": pins}}, "test")
    assert [str(p) for p in map_from_config(config["board"], config["leds"])[1]] == [
        "board.pins[5]: unknown pin name 'nonsense'"
    ]


def test_pico_map_rejects_the_pins_the_pico_lacks(tmp_path: Path, capsys: Any) -> None:
    text = (ROOT / "kiothi_board/hardware/maps/coprocessor.toml").read_text(encoding="utf-8")
    path = tmp_path / "pico.toml"
    path.write_text(text.replace("N10 = 21", "N10 = 23"), encoding="utf-8")
    assert cli_main(["pinout", str(path)]) == 1
    assert "pits.N10: GP23: the pico has no such header pin" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("N10 = 21\n", "", "pits: no pin for N10"),
        ("S1 = 2", 'S1 = "two"', "pits.S1: must be a GPIO number"),
        ("[pits]", "colour = 1\n[pits]", "unknown key 'colour'"),
        ('board = "pi"', 'board = "arduino"', "board must be one of"),
    ],
)
def test_bad_map_files_are_config_errors(tmp_path: Path, old: str, new: str, words: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(words)):
        load_map(_write_map(tmp_path, old, new))
    assert cli_main(["pinout", str(tmp_path / "map.toml")]) == 2


def test_pinout_of_the_default_config_is_clean(capsys: Any) -> None:
    assert cli_main(["pinout", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"problems": []' in out and '"key": "board.pins[19] (N10)"' in out


def test_power_budget_from_the_config() -> None:
    b = bom.budget(load(None))
    assert (b.leds, b.max_brightness, b.ma_per_led_white) == (320, 0.5, 31.0)
    assert b.full_white_ma == pytest.approx(9920.0)  # 20 × 16 × (3 × 20 mA × 0.5 + 1 mA)
    assert b.limit_ma == 3000 and b.supply_amps == 4.0  # 3 A limit ≤ 75 % of a 4 A supply
    assert b.injection_after_rings == (0, 10, 20)
    assert b.spi_bytes == 7808 and b.spidev_bufsiz == 32768  # neopixel_spi's reset padding
    big = bom.budget(validate({"leds": {"leds_per_ring": 24, "supply_milliamps": 8000}}, "t"))
    assert big.supply_amps == 18.0 and big.leds == 480 and len(big.injection_after_rings) == 4
    small = bom.budget(validate({"leds": {"leds_per_ring": 12, "max_brightness": 0.1}}, "t"))
    assert small.limit_ma == pytest.approx(small.full_white_ma)  # below the supply limit
    assert small.supply_amps == 3.0
