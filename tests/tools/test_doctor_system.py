"""The doctor's checks of the Pi's setup (I2C, the Pi 5's gpiochip, the service's store), each
on a fake `/` tree laid out as a Pi lays it out."""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kiothi_board.clock import FakeClock
from kiothi_board.config import validate
from kiothi_board.hardware.pinmap import load_map
from kiothi_board.hardware.registry import map_from_config
from kiothi_board.store.sqlite import SqliteStore
from kiothi_board.tools import doctor, doctor_system
from kiothi_board.tools.doctor import Doctor, report
from kiothi_board.tools.doctor_checks import package_version
from tests.tools.pi_roots import (
    BRCMSTB,
    boot_config,
    gpio_chip,
    i2c_on_in_device_tree,
    pi5_root,
)

REPO = Path(__file__).resolve().parents[2]
DIRECT = map_from_config(validate({})["board"], validate({})["leds"])[0]


def pi4_root(root: Path) -> Path:
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\x00")
    (root / "dev").mkdir()
    return root


# ------------------------------------------------------------------------------------ I2C
def _dev_node(root: Path) -> None:
    (root / "dev/i2c-1").touch()


def _driver_bound(root: Path) -> None:
    (root / "sys/bus/platform/drivers/i2c-bcm2835/fe804000.i2c").mkdir(parents=True)


def _device_tree(root: Path) -> None:
    i2c_on_in_device_tree(root)


def _boot(root: Path) -> None:
    boot_config(root, "[all]\n#dtparam=i2c_arm=on\ndtparam=i2c_arm=on\ndtparam=spi=on\n")


@pytest.mark.parametrize(
    ("show", "evidence"),
    [
        (_device_tree, "the device tree's /soc/i2c@7e804000 is okay"),
        (_dev_node, "/dev/i2c-1 exists"),
        (_driver_bound, "the i2c-bcm2835 driver holds fe804000.i2c"),
        (_boot, "config.txt has 'dtparam=i2c_arm=on'"),
    ],
)
def test_i2c_on_fails_with_the_fix(
    tmp_path: Path, show: Callable[[Path], None], evidence: str
) -> None:
    root = pi4_root(tmp_path)
    assert doctor_system.i2c(DIRECT, root, "pi4").status == "ok"
    show(root)
    check = doctor_system.i2c(DIRECT, root, "pi4")
    assert check.status == "fail" and check.data["evidence"] == [evidence]
    assert "S1 (GPIO2, header pin 3, SDA1) and S2 (GPIO3, header pin 5, SCL1)" in check.detail
    if show is _boot:  # the line as it is written there
        fix = "Fix: in /boot/firmware/config.txt replace the line dtparam=i2c_arm=on by "
        fix += "dtparam=i2c_arm=off"
    else:  # no line turns it on: one that turns it off, for every model
        fix = "Fix: add the lines [all] and dtparam=i2c_arm=off at the end of "
        fix += "/boot/firmware/config.txt"
    assert check.detail.endswith(f"{fix}, then reboot")


@pytest.mark.parametrize(
    ("name", "written", "fixed"),
    [
        ("boot/firmware/config.txt", "dtparam=i2c_arm", "dtparam=i2c_arm=off"),
        ("boot/firmware/config.txt", "dtparam=i2c_arm=on,spi=on", "dtparam=i2c_arm=off,spi=on"),
        ("boot/firmware/config.txt", "dtparam=audio=on,i2c=on", "dtparam=audio=on,i2c=off"),
        ("boot/config.txt", "dtparam = i2c1=on  # a sensor", "dtparam=i2c1=off"),
    ],
)
def test_the_i2c_fix_names_the_line_as_written(
    tmp_path: Path, name: str, written: str, fixed: str
) -> None:
    """Issue 30 item 14: the fix said `replace dtparam=i2c_arm=on` whatever the file had."""
    root = pi4_root(tmp_path)
    (root / name).parent.mkdir(parents=True)
    (root / name).write_text(f"[all]\n{written}\n")
    check = doctor_system.i2c(DIRECT, root, "pi4")
    line = written.split("#")[0].strip()
    assert f"Fix: in /{name} replace the line {line} by {fixed}, then reboot" in check.detail


@pytest.mark.parametrize(
    ("text", "model", "on"),
    [
        (
            "# Uncomment some or all of these to enable the optional hardware interfaces\n"
            "#dtparam=i2c_arm=on\n#dtparam=i2s=on\ndtparam=spi=on\n",
            "pi4",
            False,
        ),  # Pi OS's
        ("dtparam=i2c_arm=on\ndtparam=i2c_arm=off\n", "pi4", False),  # the last one wins
        ("dtparam=audio=on,i2c=on\n", "pi4", True),  # i2c: an alias, in a list
        ("dtparam=i2c_arm\n", "pi4", True),  # no value: on
        ("dtparam = i2c1=on  # for a sensor\n", "pi4", True),
        ("[pi4]\ndtparam=i2c_arm=on\n[all]\n", "pi5", False),  # another model's section
        ("[pi4]\ndtparam=i2c_arm=on\n[all]\n", "pi4", True),
        ("[pi400]\ndtparam=i2c_arm=on\n", "pi4", True),
        ("[pi5]\ndtparam=i2c_arm=on\n", "pi5", True),
        ("[none]\ndtparam=i2c_arm=on\n[all]\n", "pi4", False),
        ("[pi4]\n[HDMI:0]\ndtparam=i2c_arm=on\n", "pi3", False),  # HDMI keeps the model filter
    ],
)
def test_config_txt_is_read_as_the_firmware_reads_it(
    tmp_path: Path, text: str, model: str, on: bool
) -> None:
    boot_config(tmp_path, text)
    assert (doctor_system.boot_i2c_line(tmp_path, model) is not None) is on


def test_a_disabled_device_tree_node_and_other_wirings_pass(tmp_path: Path) -> None:
    root = pi4_root(tmp_path)
    i2c_on_in_device_tree(root, status="disabled")
    assert doctor_system.i2c(DIRECT, root, "pi4").status == "ok"
    _dev_node(root)  # I2C on, but nothing of ours on its pins:
    assert doctor_system.i2c(load_map("coprocessor"), root, "pi4").status == "skip"
    pins = [4, 17, 27, 22, 5, 6, 13, 19, 26, 23, 24, 25, 8, 7, 12, 16, 20, 21, 9, 11]
    config = validate({"board": {"input": "gpio", "pins": pins}, "leds": {"output": "sim"}})
    moved = map_from_config(config["board"], config["leds"])[0]
    assert doctor_system.i2c(moved, root, "pi4").detail == "no input on GPIO2/GPIO3"
    assert doctor_system.i2c(DIRECT, root, None).status == "skip"  # a laptop's SMBus


def test_the_doctor_fails_a_pi_with_i2c_on(
    tmp_path: Path, clock: FakeClock, mock_factory: Any
) -> None:
    root = pi5_root(tmp_path / "root")
    boot_config(root, "dtparam=spi=on\ndtparam=i2c_arm=on\n")
    config = validate({"board": {"input": "gpio"}, "leds": {"output": "sim"}})
    checks = Doctor(
        config, clock=clock, prompt=lambda _: None, root=root, state_dir=str(tmp_path),
        pin_factory=mock_factory,
    ).run(leds=False, press=False)  # fmt: skip
    by_name = {c.name: c for c in checks}
    assert by_name["i2c"].status == "fail" and "dtparam=i2c_arm=off" in by_name["i2c"].detail
    assert report(checks).endswith("FAILED: i2c")


# ------------------------------------------------------------------------------- gpiochip
@pytest.mark.parametrize(
    ("kernel", "link", "version", "status", "detail"),
    [
        ("6.6.51", True, "2.0.1", "ok", "opens /dev/gpiochip4 (→ gpiochip0), the header's RP1"),
        (
            "6.6.51",
            False,
            "2.0.1",
            "fail",
            "gpiozero 2.0.1 opens /dev/gpiochip4 on a Pi 5, and there is none",
        ),
        ("6.6.51", False, "2.0", "fail", "gpiozero 2.0 opens /dev/gpiochip4"),
        ("6.6.51", False, "2.0.1.post3", "ok", "opens /dev/gpiochip0, the header's RP1"),
        ("6.6.51", True, "2.0.1.post3", "ok", "opens /dev/gpiochip4 (→ gpiochip0)"),
        ("6.6.20", False, "2.0.1", "ok", "opens /dev/gpiochip4, the header's RP1"),  # old kernel
        ("6.6.20", False, "2.0.1.post3", "ok", "opens /dev/gpiochip4, the header's RP1"),
    ],
)
def test_the_pi5_gpiochip_gpiozero_opens(
    tmp_path: Path, kernel: str, link: bool, version: str, status: str, detail: str
) -> None:
    root = pi5_root(tmp_path, kernel=kernel, link=link)
    check = doctor_system.gpiochip(root, "pi5", version)
    assert check.status == status and detail in check.detail
    if status == "fail":
        assert "sudo scripts/install.sh" in check.detail and "gpiochip0 here" in check.detail
        assert "pip install 'gpiozero>=2.0.1.post3'" in check.detail


def test_a_pi5_without_any_gpiochip_gets_its_cause(tmp_path: Path) -> None:
    """Issue 30 item 14: no /dev/gpiochip* at all was blamed on the missing gpiochip4 link."""
    root = pi5_root(tmp_path, link=False)
    for chip in (root / "dev").glob("gpiochip*"):
        chip.unlink()
    check = doctor_system.gpiochip(root, "pi5", "2.0.1")
    assert check.status == "fail" and check.detail.startswith("no /dev/gpiochip* at all")
    assert "linux-image-rpi-2712" in check.detail and "install.sh" not in check.detail


def test_the_link_fix_names_the_rp1_chip_it_finds(tmp_path: Path) -> None:
    root = pi5_root(tmp_path, link=False)
    (root / "dev/gpiochip0").rename(root / "dev/gpiochip2")  # another numbering
    (root / "sys/bus/gpio/devices/gpiochip0").rename(root / "sys/bus/gpio/devices/gpiochip2")
    check = doctor_system.gpiochip(root, "pi5", "2.0.1")
    assert "links /dev/gpiochip4 to the RP1's chip, gpiochip2 here" in check.detail


def test_a_gpiochip4_that_is_not_rp1_fails(tmp_path: Path) -> None:
    root = pi5_root(tmp_path, link=False)
    gpio_chip(root, "gpiochip4", BRCMSTB)  # a kernel that numbered the SoC's chips 1…4
    check = doctor_system.gpiochip(root, "pi5", "2.0.1")
    assert check.status == "fail" and f"which is {BRCMSTB}, not the header's RP1" in check.detail


def test_other_boards_need_no_link(tmp_path: Path) -> None:
    pi500 = pi5_root(tmp_path / "pi500", link=False, revision=0xD04190)  # board type 0x19
    assert doctor_system.gpiochip(pi500, "pi5", "2.0.1").status == "ok"  # gpiozero: chip 0
    assert doctor_system.gpiochip(pi4_root(tmp_path / "pi4"), "pi4", "2.0.1").status == "skip"
    assert doctor_system.gpiochip(pi500, "pi5", None).status == "skip"


def test_the_version_rule_is_what_the_installed_gpiozero_does() -> None:
    """2.0.1 opens chip 4 on a Pi 5 unconditionally; 2.0.1.post3 only if /dev/gpiochip4 is
    there. The doctor decides by version: the installed source must say the same."""
    version = package_version("gpiozero")
    assert version is not None
    spec = importlib.util.find_spec("gpiozero.pins.lgpio")
    assert spec is not None and spec.origin is not None
    source = Path(spec.origin).read_text()
    chooser = re.search(r"chip = 4 if \(self\._get_revision\(\) & 0xff0\) >> 4 == 0x17(.*)", source)
    assert chooser is not None
    falls_back = "os.path.exists('/dev/gpiochip4')" in chooser.group(1)
    assert falls_back == (doctor_system._release(version) >= (2, 0, 1, 3))
    assert not falls_back or re.search(r"^import os$", source, re.MULTILINE)  # post1's bug


def test_the_installer_makes_the_link_the_fix_names() -> None:
    rules = (REPO / "systemd/99-kiothi-board.rules").read_text()
    rule = [line for line in rules.splitlines() if 'SYMLINK+="gpiochip4"' in line]
    # Which chips it links is tests/test_udev_rules.py's: the RP1's, whatever its number.
    assert len(rule) == 1 and 'DRIVERS=="pinctrl-rp1"' in rule[0]


def test_the_doctor_checks_the_gpiochip_on_a_pi5(tmp_path: Path, clock: FakeClock) -> None:
    root = pi5_root(tmp_path / "root", link=False)
    config = validate({"board": {"input": "gpio"}, "leds": {"output": "sim"}})
    check = {c.name: c for c in Doctor(
        config, clock=clock, prompt=lambda _: None, root=root, state_dir=str(tmp_path)
    ).run(leds=False, press=False)}["gpiochip"]  # fmt: skip
    installed = package_version("gpiozero")
    assert check.detail.startswith(f"gpiozero {installed} opens /dev/gpiochip")
    coprocessor = validate({"board": {"input": "coprocessor"}, "leds": {"output": "sim"}})
    names = [c.name for c in Doctor(
        coprocessor, clock=clock, prompt=lambda _: None, root=root, state_dir=str(tmp_path),
        link_factory=_no_link,
    ).run(leds=False, press=False)]  # fmt: skip
    assert "gpiochip" not in names and "i2c" not in names  # the Pi's GPIO is not used


def _no_link(port: str) -> Any:
    from kiothi_board.errors import LinkError

    raise LinkError(f"cannot open co-processor port {port!r}: no such device")


# ---------------------------------------------------------------------------------- store
@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed board's root (the config, the service's state directory) and a user's
    own healthy store where `kiothi-board run` alone would look."""
    root = tmp_path / "root"
    (root / "etc/kiothi-board").mkdir(parents=True)
    (root / "etc/kiothi-board/config.toml").write_text(
        '[board]\ninput = "sim"\n[leds]\noutput = "sim"\n'
    )
    home = tmp_path / "home-state"
    (home / "kiothi-board").mkdir(parents=True)
    SqliteStore(home / "kiothi-board/games.sqlite3").close()
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    return root


def corrupt(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)


def test_the_service_store_is_checked_by_default(installed: Path, capsys: Any) -> None:
    live = installed / "var/lib/kiothi-board/games.sqlite3"
    corrupt(live)
    assert doctor.main(["--json", "--no-leds", "--no-press"], root=installed) == 1
    out = capsys.readouterr().out
    store = next(c for c in json.loads(out)["checks"] if c["name"] == "store")
    assert store["status"] == "fail"
    assert store["detail"].startswith(f"{live} (the service's StateDirectory): ")
    assert "file is not a database" in store["detail"]


def test_the_installed_config_alone_means_the_service_store(installed: Path) -> None:
    config_path = installed / "etc/kiothi-board/config.toml"
    from kiothi_board.config import load

    check = doctor_system.store(load(config_path), installed)
    service = installed / "var/lib/kiothi-board/games.sqlite3"
    assert check.status == "skip" and check.detail.startswith(f"{service} (the service's")
    assert "no store yet" in check.detail


def test_state_dir_overrides_and_a_plain_checkout_uses_the_users(
    installed: Path, tmp_path: Path, capsys: Any
) -> None:
    corrupt(installed / "var/lib/kiothi-board/games.sqlite3")
    mine = tmp_path / "mine"
    mine.mkdir()
    SqliteStore(mine / "games.sqlite3").close()
    argv = ["--no-leds", "--no-press", "--state-dir", str(mine)]
    assert doctor.main(argv, root=installed) == 0
    assert f"{mine / 'games.sqlite3'} (--state-dir): integrity ok" in capsys.readouterr().out
    laptop = tmp_path / "laptop"
    laptop.mkdir()
    check = doctor_system.store(validate({}), laptop)
    home = tmp_path / "home-state/kiothi-board/games.sqlite3"
    assert check.status == "ok" and check.detail.startswith(f"{home} (kiothi-board run's")


def test_a_store_that_cannot_be_looked_at_fails(tmp_path: Path) -> None:
    check = doctor_system.store(validate({}), tmp_path, str(tmp_path / ("x" * 300)))
    assert check.status == "fail" and "cannot look: File name too long" in check.detail


def test_doctor_and_service_agree_on_the_state_directory() -> None:
    unit = (REPO / "systemd/kiothi-board.service").read_text()
    installer = (REPO / "scripts/install.sh").read_text()
    state = re.findall(r"^StateDirectory=(\S+)$", unit, re.MULTILINE)
    assert [f"/var/lib/{s}" for s in state] == [doctor_system.SERVICE_STATE_DIR]
    assert f"STORE={doctor_system.SERVICE_STATE_DIR}\n" in installer
    config = doctor_system.SERVICE_CONFIG
    assert f"run --config {config}\n" in unit
    assert "ETC=/etc/kiothi-board\n" in installer and "CONFIG=$ETC/config.toml\n" in installer
    assert config == "/etc/kiothi-board/config.toml"


def test_an_unreadable_installed_config_is_exit_2(installed: Path, capsys: Any) -> None:
    (installed / "etc/kiothi-board/config.toml").write_text("[board\n")
    assert doctor.main(["--no-leds", "--no-press"], root=installed) == 2
    err = capsys.readouterr().err
    assert "etc/kiothi-board/config.toml: not valid TOML" in err


def test_sqlite_store_is_read_only(installed: Path) -> None:
    live = installed / "var/lib/kiothi-board/games.sqlite3"
    live.parent.mkdir(parents=True)
    SqliteStore(live).close()
    before = live.read_bytes()
    config = validate({"board": {"input": "sim"}}, str(installed / "etc/kiothi-board/config.toml"))
    assert doctor_system.store(config, installed).status == "ok"
    assert live.read_bytes() == before
    assert not live.with_name("games.sqlite3-journal").exists()
