"""The doctor says which device it found for the co-processor (issue 30 item 11): the USB id
and path behind /dev/kiothi-io, or, without it, the Picos on USB and what to do (a Pico in
BOOTSEL mode, MicroPython without the udev rule, another firmware), on fake /dev and /sys
trees laid out as a Pi 5 lays them out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.errors import LinkError
from kiothi_board.tools.doctor import Doctor
from tests.tools.pi_roots import pi5_root, pico_on_usb


def link_check(root: Path, clock: FakeClock) -> Any:
    config = validate({"board": {"input": "coprocessor"}, "leds": {"output": "sim"}})

    def no_link(port: str) -> Any:  # the real port is not there: only the tree is faked
        raise LinkError(f"cannot open co-processor port {port!r}: no such device")

    doctor = Doctor(config, clock=clock, prompt=lambda _: None, root=root, link_factory=no_link)
    return doctor.link_check()


def test_the_device_behind_the_port_is_named(tmp_path: Path, clock: FakeClock) -> None:
    root = pico_on_usb(pi5_root(tmp_path), "0005", tty="ttyACM0")
    check = link_check(root, clock)
    said = "/dev/kiothi-io → /dev/ttyACM0: USB 2e8a:0005 (MicroPython) at USB path 1-1"
    assert said in check.detail
    assert check.data == {"tty": "ttyACM0", "usb_id": "2e8a:0005", "usb_path": "1-1"}


def test_a_pico_in_bootsel_mode_is_said(tmp_path: Path, clock: FakeClock) -> None:
    root = pico_on_usb(pi5_root(tmp_path), "0003")
    check = link_check(root, clock)
    assert check.status == "fail"
    assert "no /dev/kiothi-io; found USB 2e8a:0003 (BOOTSEL mode (RP2040)) at USB path 1-1" in (
        check.detail
    )
    assert "RPI-RP2 (BOOTSEL held at reset): copy MicroPython's UF2 onto it" in check.detail


def test_micropython_without_the_rule_names_its_tty(tmp_path: Path, clock: FakeClock) -> None:
    root = pico_on_usb(pi5_root(tmp_path), "0005", tty="ttyACM0", link=False)
    check = link_check(root, clock)
    assert "USB 2e8a:0005 (MicroPython) at USB path 1-1, /dev/ttyACM0" in check.detail
    assert "install the udev rule (sudo scripts/install.sh)" in check.detail


def test_another_firmware_and_no_pico(tmp_path: Path, clock: FakeClock) -> None:
    root = pico_on_usb(pi5_root(tmp_path / "sdk"), "000a", tty="ttyACM0", link=False)
    assert "not MicroPython's id 2e8a:0005" in link_check(root, clock).detail
    check = link_check(pi5_root(tmp_path / "none"), clock)
    assert "no /dev/kiothi-io, and no Raspberry Pi device (USB 2e8a:*) on USB" in check.detail
