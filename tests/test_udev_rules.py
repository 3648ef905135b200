"""systemd/99-kiothi-board.rules, read from its own text and evaluated as udev evaluates it
against simulated devices (`udevadm test` needs the real sysfs devices): the Pico running
MicroPython (2e8a:0005) becomes /dev/kiothi-io, the same Pico in BOOTSEL mode (2e8a:0003,
a USB drive) gets nothing, and a Pi 5's RP1 GPIO chip gets /dev/gpiochip4 whatever its
number (issue 30 items 11 and 14)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "systemd/99-kiothi-board.rules"
KEY = re.compile(r'\s*([A-Z]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(?:,|$)')
SELF_KEYS = {"SUBSYSTEM", "KERNEL", "DRIVER", "ATTR"}  # the device itself
PARENT_KEYS = {"SUBSYSTEMS": "SUBSYSTEM", "KERNELS": "KERNEL", "DRIVERS": "DRIVER", "ATTRS": "ATTR"}


@dataclass
class Device:
    """One sysfs device: the values udev's keys read."""

    subsystem: str
    kernel: str
    driver: str = ""
    attrs: dict[str, str] = field(default_factory=dict)

    def value(self, key: str, attr: str | None) -> str | None:
        if key == "ATTR":
            return self.attrs.get(attr or "")
        return {"SUBSYSTEM": self.subsystem, "KERNEL": self.kernel, "DRIVER": self.driver}[key]


Rule = list[tuple[str, str | None, str, str]]


def parse(text: str) -> list[Rule]:
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        keys, at = [], 0
        while at < len(line):
            match = KEY.match(line, at)
            assert match, f"line {number}: cannot read {line[at:]!r}"
            keys.append((match[1], match[2], match[3], match[4]))
            at = match.end()
        rules.append(keys)
    return rules


def matches(pattern: str, value: str | None) -> bool:
    return value is not None and any(fnmatchcase(value, p) for p in pattern.split("|"))


def applies(rule: Rule, chain: list[Device]) -> bool:
    """udev's match: the device's own keys on the device, the S-keys all on one device of
    the chain (the device itself or a parent)."""
    own = [k for k in rule if k[0] in SELF_KEYS and k[2] in ("==", "!=")]
    for key, attr, op, pattern in own:
        if matches(pattern, chain[0].value(key, attr)) != (op == "=="):
            return False
    up = [k for k in rule if k[0] in PARENT_KEYS]
    if not up:
        return True
    return any(
        all(
            matches(pattern, device.value(PARENT_KEYS[key], attr)) == (op == "==")
            for key, attr, op, pattern in up
        )
        for device in chain
    )


def evaluate(chain: list[Device]) -> dict[str, list[str] | str]:
    """What the rules file gives this device: its links, group and mode."""
    result: dict[str, list[str] | str] = {"SYMLINK": []}
    for rule in parse(RULES.read_text()):
        if not applies(rule, chain):
            continue
        for key, _attr, op, value in rule:
            if key == "SYMLINK" and op == "+=":
                links = result["SYMLINK"]
                assert isinstance(links, list)
                links.append(value)
            elif key in ("GROUP", "MODE", "OWNER") and op in ("=", ":="):
                result[key] = value
    return result


def usb(product: str, interface_driver: str) -> list[Device]:
    """A Pico's USB interface and device, as the parents of what it shows."""
    return [
        Device("usb", "1-1:1.0", interface_driver, {"bInterfaceNumber": "00"}),
        Device("usb", "1-1", "usb", {"idVendor": "2e8a", "idProduct": product}),
        Device("usb", "usb1", "usb", {"idVendor": "1d6b", "idProduct": "0002"}),
    ]


FTDI = {"idVendor": "0403", "idProduct": "6001"}


def test_the_micropython_pico_becomes_kiothi_io() -> None:
    tty = [Device("tty", "ttyACM0"), *usb("0005", "cdc_acm")]
    assert evaluate(tty) == {"SYMLINK": ["kiothi-io"], "GROUP": "dialout", "MODE": "0660"}


@pytest.mark.parametrize(
    ("what", "chain"),
    [
        ("BOOTSEL: the USB device", usb("0003", "usb-storage")[1:]),
        ("BOOTSEL: the RPI-RP2 drive", [Device("block", "sda"), *usb("0003", "usb-storage")]),
        ("the Pico SDK's own USB serial", [Device("tty", "ttyACM0"), *usb("000a", "cdc_acm")]),
        (
            "another USB serial adapter",
            [
                Device("tty", "ttyUSB0"),
                *usb("0005", "ftdi_sio")[:1],
                Device("usb", "1-2", "usb", FTDI),
            ],
        ),
    ],
)
def test_other_devices_get_no_link(what: str, chain: list[Device]) -> None:
    assert evaluate(chain)["SYMLINK"] == [], what


def gpiochip(number: int, driver: str) -> list[Device]:
    return [
        Device("gpio", f"gpiochip{number}"),
        Device("platform", "1f000d0000.gpio", driver),
    ]


@pytest.mark.parametrize(
    ("chip", "driver", "links"),
    [
        (0, "pinctrl-rp1", ["gpiochip4"]),  # Linux 6.6.45 and later
        (2, "pinctrl-rp1", ["gpiochip4"]),  # the RP1's chip under another number
        (4, "pinctrl-rp1", []),  # before 6.6.45 it is gpiochip4 itself
        (10, "brcmstb-gpio", []),  # the BCM2712's own chips
        (0, "pinctrl-bcm2835", []),  # a Pi 4's header chip
    ],
)
def test_the_pi5_link_goes_to_the_rp1_chip(chip: int, driver: str, links: list[str]) -> None:
    result = evaluate(gpiochip(chip, driver))
    assert result == {"SYMLINK": links, "GROUP": "gpio", "MODE": "0660"}


def test_spi_belongs_to_the_spi_group() -> None:
    assert evaluate([Device("spidev", "spidev0.0")]) == {
        "SYMLINK": [],
        "GROUP": "spi",
        "MODE": "0660",
    }
