"""Fake `/` trees of Raspberry Pis for the doctor: the files it reads, as a Pi lays them out."""

from __future__ import annotations

from pathlib import Path

RP1 = "raspberrypi,rp1-gpio"  # the Pi 5 header's GPIO chip (RP1), as Blinka matches it
BRCMSTB = "brcm,brcmstb-gpio"  # the BCM2712's own GPIO chips


def pi5_root(
    root: Path,
    *,
    kernel: str = "6.6.51",
    link: bool = True,
    revision: int = 0xD04170,
    bufsiz: int = 32768,
) -> Path:
    """A Pi 5 with SPI on and spidev.bufsiz set. Since Linux 6.6.45 the header's RP1 chip is
    gpiochip0 and the BCM2712's are gpiochip10…13; `link` adds Raspberry Pi OS's
    /dev/gpiochip4 → gpiochip0. Before that RP1 was gpiochip4 and gpiochip0 the BCM2712's."""
    tree = root / "proc/device-tree"
    (tree / "system").mkdir(parents=True)
    (tree / "model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    (tree / "system/linux,revision").write_bytes(revision.to_bytes(4, "big"))
    (root / "dev").mkdir()
    (root / "dev/spidev0.0").touch()
    (root / "sys/module/spidev/parameters").mkdir(parents=True)
    (root / "sys/module/spidev/parameters/bufsiz").write_text(f"{bufsiz}\n")
    new = tuple(int(part) for part in kernel.split(".")) >= (6, 6, 45)
    chips = {0: RP1, 10: BRCMSTB, 11: BRCMSTB} if new else {0: BRCMSTB, 1: BRCMSTB, 4: RP1}
    for number, compatible in chips.items():
        gpio_chip(root, f"gpiochip{number}", compatible)
    if new and link:
        (root / "dev/gpiochip4").symlink_to("gpiochip0")
    return root


def gpio_chip(root: Path, name: str, compatible: str) -> None:
    """/dev/NAME and its sysfs node with the device tree's `compatible`."""
    (root / "dev" / name).touch()
    node = root / "sys/bus/gpio/devices" / name / "of_node"
    node.mkdir(parents=True)
    (node / "compatible").write_bytes(compatible.encode() + b"\x00")


def boot_config(root: Path, text: str) -> None:
    """/boot/firmware/config.txt."""
    (root / "boot/firmware").mkdir(parents=True, exist_ok=True)
    (root / "boot/firmware/config.txt").write_text(text)


def i2c_on_in_device_tree(root: Path, status: str = "okay") -> None:
    """The running device tree's i2c_arm node (a Pi 4's) with `status`."""
    tree = root / "proc/device-tree"
    (tree / "__symbols__").mkdir(parents=True, exist_ok=True)
    (tree / "__symbols__/i2c_arm").write_bytes(b"/soc/i2c@7e804000\x00")
    (tree / "soc/i2c@7e804000").mkdir(parents=True)
    (tree / "soc/i2c@7e804000/status").write_bytes(status.encode() + b"\x00")


def pico_on_usb(root: Path, product: str, *, tty: str | None = None, link: bool = True) -> Path:
    """A Pico at USB path 1-1 (a Pi 5's USB bus) with id 2e8a:`product`; `tty` gives it a
    USB serial interface (/dev/TTY, /sys/class/tty/TTY), `link` udev's /dev/kiothi-io."""
    bus = root / "sys/devices/platform/axi/1000120000.pcie/1f00200000.usb/xhci-hcd.0/usb1"
    device = bus / "1-1"
    device.mkdir(parents=True)
    (device / "idVendor").write_text("2e8a\n")
    (device / "idProduct").write_text(f"{product}\n")
    (root / "sys/bus/usb/devices").mkdir(parents=True, exist_ok=True)
    (root / "sys/bus/usb/devices/1-1").symlink_to(device)
    (root / "dev").mkdir(exist_ok=True)
    if tty is not None:
        interface = device / "1-1:1.0"
        (interface / "tty" / tty).mkdir(parents=True)
        (root / "sys/class/tty" / tty).mkdir(parents=True)
        (root / "sys/class/tty" / tty / "device").symlink_to(interface)
        (root / "dev" / tty).touch()
        if link:
            (root / "dev/kiothi-io").symlink_to(tty)
    return root
