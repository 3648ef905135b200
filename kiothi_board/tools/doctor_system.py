"""The doctor's checks of the Pi's own setup, read from files under a root (`/` on the Pi, a
fake tree in the tests): I2C off on the pins S1/S2 use, the gpiochip gpiozero opens on a
Pi 5, and where the service keeps its game store."""

from __future__ import annotations

import errno
import os
import re
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from kiothi_board.config import Config, default_state_dir
from kiothi_board.hardware.pinmap import PIT_NAMES, PinMap
from kiothi_board.store.sqlite_rescue import read_settings, scan_games
from kiothi_board.tools.doctor_checks import Check

__all__ = ["SERVICE_CONFIG", "SERVICE_STATE_DIR", "gpiochip", "i2c", "store", "store_dir"]

SERVICE_CONFIG = "/etc/kiothi-board/config.toml"
"""The config scripts/install.sh installs and the unit's ExecStart= reads."""
SERVICE_STATE_DIR = "/var/lib/kiothi-board"
"""systemd/kiothi-board.service's StateDirectory=kiothi-board: the service's game store."""
BOOT_CONFIGS = ("boot/firmware/config.txt", "boot/config.txt")  # Bookworm, then older
I2C1 = {2: "SDA1", 3: "SCL1"}  # the header's I2C bus (dtparam i2c_arm), pins 3 and 5
I2C_PARAMS = ("i2c_arm", "i2c", "i2c1")  # config.txt names of that bus
# config.txt model filters, and those that apply to each model the doctor detects.
MODEL_FILTERS = {"pi0", "pi0w", "pi02", "pi1", "pi2", "pi3", "pi3+", "pi4", "pi400", "cm4"}
MODEL_FILTERS |= {"cm4s", "pi5", "pi500", "cm5"}
FILTERS_OF = {
    "pi3": {"pi3", "pi3+"},
    "zero2w": {"pi02"},
    "pi4": {"pi4", "pi400", "cm4", "cm4s"},
    "pi5": {"pi5", "pi500", "cm5"},
}
PI5_TYPE = 0x17  # revision-code board type of a Pi 5 Model B, as gpiozero tests it
RP1_GPIO = "raspberrypi,rp1-gpio"  # device-tree compatible of the Pi 5 header's GPIO chip
SUDO = ": run the doctor with sudo"


# -------------------------------------------------------------------------------- I2C
def i2c(pin_map: PinMap, root: Path, model: str | None) -> Check:
    """Fail when I2C1 is on while inputs are wired to its pins (GPIO2/GPIO3)."""
    if pin_map.board != "pi":
        return Check("i2c", "skip", "the inputs are on the co-processor, not the Pi's GPIO")
    if model is None:  # a laptop's /dev/i2c-1 is some SMBus, not the header's pins
        return Check("i2c", "skip", "not a Raspberry Pi (no /proc/device-tree/model)")
    names = [*PIT_NAMES, *(f"control {i}" for i in range(len(pin_map.controls)))]
    header = pin_map.header.header
    wired = [
        f"{name} (GPIO{gpio}, header pin {header[gpio]}, {I2C1[gpio]})"
        for name, gpio in zip(names, (*pin_map.pits, *pin_map.controls), strict=False)
        if gpio in I2C1
    ]
    if not wired:
        return Check("i2c", "skip", "no input on GPIO2/GPIO3")
    found = i2c_evidence(root, model)
    if not found:
        return Check("i2c", "ok", f"I2C off: {', '.join(wired)} read as plain inputs")
    return Check(
        "i2c",
        "fail",
        f"I2C is on ({'; '.join(found)}), but {' and '.join(wired)} are its pins. "
        f"{i2c_fix(root, model)}, then reboot",
        {"evidence": found},
    )


def i2c_fix(root: Path, model: str | None) -> str:
    """The config.txt edit that turns I2C1 off: the line as it is written there, and the same
    line with only its I2C parameter set to off (a bare `dtparam=i2c_arm`, or one of
    several parameters on one line, stays recognisable)."""
    found = boot_i2c(root, model)
    if found is None:
        name = next((n for n in BOOT_CONFIGS if (root / n).exists()), BOOT_CONFIGS[0])
        return f"Fix: add the lines [all] and dtparam=i2c_arm=off at the end of /{name}"
    name, line = found
    params = []
    for param in line.split("=", 1)[1].split(","):
        key = param.partition("=")[0].strip()
        params.append(f"{key}=off" if key in I2C_PARAMS else param.strip())
    return f"Fix: in /{name} replace the line {line} by dtparam={','.join(params)}"


def i2c_evidence(root: Path, model: str | None) -> list[str]:
    """What shows I2C1 on: the running device tree, its bus device, its driver, config.txt."""
    found = []
    tree = root / "proc/device-tree"
    node = _dt_string(tree / "__symbols__/i2c_arm")
    if node and (tree / node.lstrip("/")).is_dir():
        status = _dt_string(tree / node.lstrip("/") / "status")
        if status in (None, "okay", "ok"):  # a node without status is enabled
            found.append(f"the device tree's {node} is {status or 'enabled'}")
    if (root / "dev/i2c-1").exists():
        found.append("/dev/i2c-1 exists")
    drivers = root / "sys/bus/platform/drivers/i2c-bcm2835"
    bound = sorted(p.name for p in drivers.glob("*804000.i2c"))  # BSC1, at …7e804000
    if bound:
        found.append(f"the i2c-bcm2835 driver holds {bound[0]}")
    line = boot_i2c_line(root, model)
    if line:
        found.append(f"config.txt has {line!r}")
    return found


def _dt_string(path: Path) -> str | None:
    try:
        return path.read_bytes().split(b"\x00")[0].decode(errors="replace").strip()
    except OSError:
        return None


def boot_i2c_line(root: Path, model: str | None) -> str | None:
    """The config.txt line that turns I2C1 on at the next boot (the last one that applies to
    `model` wins), or None."""
    found = boot_i2c(root, model)
    return None if found is None else found[1]


def boot_i2c(root: Path, model: str | None) -> tuple[str, str] | None:
    """(the config.txt read, as a path under root; the line that turns I2C1 on), or None."""
    for name in BOOT_CONFIGS:
        try:
            text = (root / name).read_text(errors="replace")
            break
        except OSError:
            continue
    else:
        return None
    applies, on = True, None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        section = re.fullmatch(r"\[([^\]]*)\]", line)
        if section:
            applies = _section_applies(section.group(1).strip().lower(), model, applies)
            continue
        match = re.fullmatch(r"dtparam\s*=\s*(.*)", line)
        if not applies or not match:
            continue
        for param in match.group(1).split(","):
            key, _, value = (part.strip() for part in param.partition("="))
            if key in I2C_PARAMS:
                on = line if value.lower() in ("", "on", "true", "yes", "okay") else None
    return None if on is None else (name, on)


def _section_applies(name: str, model: str | None, applies: bool) -> bool:
    if name == "all":
        return True
    if name == "none":
        return False
    if name in MODEL_FILTERS:
        return model is None or name in FILTERS_OF.get(model, set())
    return applies  # other filters (HDMI, EDID, serial…) are not the model's: left as they are


# -------------------------------------------------------------------------------- gpiochip
def gpiochip(root: Path, model: str | None, gpiozero_version: str | None) -> Check:
    """On a Pi 5: the /dev/gpiochip that gpiozero's lgpio factory opens exists and is RP1's.

    gpiozero 2.0 and 2.0.1 open gpiochip4 on a Pi 5 Model B whatever is there; since Linux
    6.6.45 the header's chip is gpiochip0 and gpiochip4 only a compatibility link, which
    plain Debian lacks (gpiozero#1166). 2.0.1.post3 opens gpiochip4 if it exists, else 0.
    """
    if model != "pi5":
        return Check("gpiochip", "skip", "not a Pi 5: gpiozero opens /dev/gpiochip0")
    if gpiozero_version is None:
        return Check("gpiochip", "skip", "gpiozero is not installed")
    board_type = _board_type(root)
    if board_type is not None and board_type != PI5_TYPE:
        return Check("gpiochip", "ok", f"gpiozero {gpiozero_version} opens /dev/gpiochip0 here")
    fixed = _release(gpiozero_version) >= (2, 0, 1, 3)
    dev = root / "dev"
    if not any(dev.glob("gpiochip*")):
        return Check(
            "gpiochip",
            "fail",
            "no /dev/gpiochip* at all: this kernel shows no GPIO chip (not a Pi 5 kernel, whose "
            "RP1 driver makes the header's chip, or a container without the host's /dev). Fix: "
            "boot Raspberry Pi OS's Pi 5 kernel (sudo apt install linux-image-rpi-2712, then "
            "reboot), or give the container /dev/gpiochip*",
        )
    chip = "gpiochip4" if not fixed or (dev / "gpiochip4").exists() else "gpiochip0"
    opens = f"gpiozero {gpiozero_version} opens /dev/{chip}"
    if not (dev / chip).exists():
        rp1 = _rp1_chip(root)
        where = f"{rp1} here" if rp1 else "whatever its number"
        return Check(
            "gpiochip",
            "fail",
            f"{opens} on a Pi 5, and there is none (since Linux 6.6.45 the header's GPIOs are "
            "gpiochip0, gpiozero#1166). Fix: run sudo scripts/install.sh again (its udev rule "
            f"links /dev/gpiochip4 to the RP1's chip, {where}), or "
            "sudo /opt/kiothi-board/venv/bin/pip install 'gpiozero>=2.0.1.post3'",
        )
    real = Path(os.path.realpath(dev / chip)).name
    via = f" (→ {real})" if real != chip else ""
    compatible = _dt_string(root / "sys/bus/gpio/devices" / real / "of_node/compatible")
    if compatible is not None and compatible != RP1_GPIO:
        return Check(
            "gpiochip",
            "fail",
            f"{opens}{via}, which is {compatible}, not the header's RP1 ({RP1_GPIO}): the "
            "pits would be read on the wrong chip. Fix: sudo /opt/kiothi-board/venv/bin/pip "
            "install 'gpiozero>=2.0.1.post3' and remove the wrong /dev/gpiochip4 rule",
        )
    what = ", the header's RP1" if compatible == RP1_GPIO else ""
    return Check("gpiochip", "ok", f"{opens}{via}{what}")


def _rp1_chip(root: Path) -> str | None:
    """The name of the RP1's GPIO chip (the header's on a Pi 5) in sysfs, or None."""
    for node in sorted((root / "sys/bus/gpio/devices").glob("gpiochip*")):
        if _dt_string(node / "of_node/compatible") == RP1_GPIO:
            return node.name
    return None


def _board_type(root: Path) -> int | None:
    """The revision code's board type, read as gpiozero reads it (None when unreadable)."""
    try:
        raw = (root / "proc/device-tree/system/linux,revision").read_bytes()
        return int.from_bytes(raw[:4], "big") >> 4 & 0xFF
    except (OSError, ValueError):
        return None


def _release(version: str) -> tuple[int, int, int, int]:
    """(major, minor, micro, post) of a release string such as 2.0.1.post3."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?(?:\.post(\d+))?", version)
    if match is None:
        return (0, 0, 0, 0)
    major, minor, micro, post = (int(g or 0) for g in match.groups())
    return (major, minor, micro, post)


# -------------------------------------------------------------------------------- store
def store_dir(
    config_source: str,
    root: Path,
    override: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> tuple[Path, str]:
    """The state directory of the daemon that uses this config, and why it is that one.

    `--state-dir` first; then systemd's $STATE_DIRECTORY; then, on an installed board (the
    service's config, or its state directory exists), the service's own; else the user's.
    """
    if override:
        return Path(override), "--state-dir"
    if environ.get("STATE_DIRECTORY"):
        return Path(environ["STATE_DIRECTORY"].split(":")[0]), "$STATE_DIRECTORY"
    service = root / SERVICE_STATE_DIR.lstrip("/")
    config = root / SERVICE_CONFIG.lstrip("/")
    installed = service.is_dir() or (
        config_source not in ("", "<defaults>") and _same(Path(config_source), config)
    )
    if installed:
        return service, "the service's StateDirectory"
    return Path(default_state_dir()), "kiothi-board run's default"


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def store(config: Config, root: Path, state_dir: str | None = None) -> Check:
    """`PRAGMA integrity_check` (read-only) on the store the daemon with this config opens:
    `store.path`, else games.sqlite3 in its state directory (`store_dir`)."""
    cfg = config["store"]
    if cfg["backend"] != "sqlite":
        return Check("store", "skip", f"{cfg['backend']} store: not checked here")
    if cfg["path"]:
        path, why = Path(cfg["path"]), "store.path"
    else:
        state, why = store_dir(config.source, root, state_dir)
        path = state / "games.sqlite3"
    where = f"{path} ({why})"
    try:
        present = path.exists()
    except OSError as exc:  # e.g. a state directory (0750, the service's) this user may not enter
        hint = SUDO if exc.errno in (errno.EACCES, errno.EPERM) else ""
        return Check("store", "fail", f"{where}: cannot look: {exc.strerror}{hint}")
    if not present:
        return Check("store", "skip", f"{where}: no store yet (made on the first run)")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return Check("store", "fail", f"{where}: cannot open: {exc}")
    try:
        rows = [r[0] for r in db.execute("PRAGMA integrity_check")]
        tables = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
        count = tables.fetchone()[0]
        # integrity_check does not read values: a bad byte in one is found only here.
        bad = scan_games(db) if rows == ["ok"] else {}
        settings = read_settings(db)[1] if rows == ["ok"] else None
    except sqlite3.Error as exc:
        return Check("store", "fail", f"{where}: {exc}")
    except ValueError as exc:  # a bad byte in the schema: Python cannot decode SQLite's words
        return Check("store", "fail", f"{where}: damaged, cannot be read ({exc})")
    finally:
        db.close()
    if rows != ["ok"]:
        return Check("store", "fail", f"{where}: integrity_check: " + "; ".join(rows[:3]))
    if bad or settings:
        games = "; ".join(f"game {gid}: {why}" for gid, why in sorted(bad.items())[:10])
        detail = games + (f"; settings: {settings}" if settings else "")
        return Check(
            "store",
            "warn",
            f"{where}: {len(bad)} game(s) unreadable, quarantined by the daemon ({detail})",
            {"quarantined": sorted(bad)},
        )
    return Check("store", "ok", f"{where}: integrity ok ({count} tables)")
