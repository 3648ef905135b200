"""scripts/install.sh into a temporary root: install, re-run, upgrade, uninstall, purge.

The root starts as a small Raspberry Pi OS: account files with the gpio, spi and dialout
groups, the OS's systemd units (copied from this machine, so `systemd-analyze --root` finds
sysinit.target and friends), and a /boot/firmware/config.txt. The package is installed from
wheels built once per module (offline, no dependencies), into a venv without pip: the real
install (`sudo scripts/install.sh`) builds the checkout and installs the `pi` extra.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import kiothi_board

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "scripts" / "install.sh"
UNIT = "kiothi-board.service"
EXPOSURE_LIMIT = 2.5
# shadow-utils and systemd-sysusers leave these behind on every account change (a real
# system has them too); they are the only files outside the store uninstall may leave.
ACCOUNT_BACKUPS = {"etc/passwd-", "etc/group-", "etc/shadow-", "etc/gshadow-", "etc/.pwd.lock"}
BOOT_CONFIG = "[all]\ndtparam=audio=on\n\n[pi4]\narm_boost=1\n"
CMDLINE = "console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootwait\n"

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the installer runs as root"),
    pytest.mark.skipif(
        not all(
            shutil.which(tool)
            for tool in ("systemd-analyze", "systemd-sysusers", "systemctl", "userdel")
        ),
        reason="scripts/setup-system.sh installs systemd and passwd",
    ),
]

Snapshot = dict[str, tuple[str, int, int, int, str, int]]


def build_wheel(out: Path) -> Path:
    """A kiothi-board wheel from a copy of the checkout, by setuptools' PEP 517 backend
    (what `pip wheel` calls, without its start-up and isolation costs)."""
    source = out / "src"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO / "kiothi_board", source / "kiothi_board", ignore=ignore)
    for name in ("README.md", "pyproject.toml"):
        shutil.copy(REPO / name, source)
    # The firmware ships as data files (`kiothi-board firmware install` from the venv).
    shutil.copytree(REPO / "firmware/kiothi_io", source / "firmware/kiothi_io", ignore=ignore)
    build = "import sys; from setuptools import build_meta; build_meta.build_wheel(sys.argv[1])"
    subprocess.run(
        [sys.executable, "-c", build, str(out)], cwd=source, check=True, capture_output=True
    )
    (wheel,) = out.glob("kiothi_board-*.whl")
    return wheel


def release_as(wheel: Path, version: str, out: Path) -> Path:
    """The same wheel as another version: dist-info, METADATA, __version__ and RECORD."""
    old = wheel.name.split("-")[1]
    target = out / wheel.name.replace(f"-{old}-", f"-{version}-")
    records: list[str] = []
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            name = item.filename.replace(
                f"kiothi_board-{old}.dist-info", f"kiothi_board-{version}.dist-info"
            )
            data = src.read(item)
            if name.endswith(("METADATA", "kiothi_board/__init__.py")):
                data = data.replace(old.encode(), version.encode())
            if name.endswith(".dist-info/RECORD"):
                record_name = name
                continue
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            records.append(f"{name},sha256={digest.decode()},{len(data)}")
            entry = zipfile.ZipInfo(name, item.date_time)
            entry.external_attr = item.external_attr
            dst.writestr(entry, data)
        records.append(f"{record_name},,")
        dst.writestr(record_name, "\n".join(records) + "\n")
    return target


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The checkout's wheel ("new") and the same code released as 0.0.1 ("old")."""
    new = build_wheel(tmp_path_factory.mktemp("new"))
    return {"new": new, "old": release_as(new, "0.0.1", tmp_path_factory.mktemp("old"))}


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    """A fresh target root, shaped like Raspberry Pi OS where the installer looks."""
    top = tmp_path / "root"
    for folder in ("etc/systemd/system", "etc/udev/rules.d", "opt", "var/lib", "boot/firmware"):
        (top / folder).mkdir(parents=True)
    (top / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (top / "etc/group").write_text("root:x:0:\ndialout:x:20:\ngpio:x:993:\nspi:x:994:\n")
    (top / "etc/shadow").write_text("root:*:20000:0:99999:7:::\n")
    (top / "etc/gshadow").write_text("root:*::\ndialout:*::\ngpio:!::\nspi:!::\n")
    for name in ("shadow", "gshadow"):
        (top / "etc" / name).chmod(0o640)
    (top / "boot/firmware/config.txt").write_text(BOOT_CONFIG)
    (top / "boot/firmware/cmdline.txt").write_text(CMDLINE)
    units = Path("/usr/lib/systemd/system")
    shutil.copytree(units, top / "usr/lib/systemd/system", symlinks=True)
    yield top


def run_installer(
    root: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(INSTALL), "--root", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=cwd,
        env=env,
    )


def install(root: Path, wheel: Path, *args: str) -> str:
    done = run_installer(root, "--wheel", str(wheel), "--no-deps", "--venv-without-pip", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def snapshot(root: Path, *, times: bool = False) -> Snapshot:
    """Every path under root: kind, mode, owner, group, content hash or link target, and
    (with `times`) the modification time: a file rewritten with the same bytes shows."""
    found: Snapshot = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            kind, digest = "link", os.readlink(path)
        elif stat.S_ISDIR(info.st_mode):
            kind, digest = "dir", ""
        else:
            kind, digest = "file", hashlib.sha256(path.read_bytes()).hexdigest()
        mode = stat.S_IMODE(info.st_mode)
        mtime = info.st_mtime_ns if times and kind != "dir" else 0
        found[str(path.relative_to(root))] = (kind, mode, info.st_uid, info.st_gid, digest, mtime)
    return found


def differences(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def account(root: Path, name: str) -> tuple[list[str], list[str]]:
    """The passwd entry of `name` and the groups that list it as a member."""
    passwd = [
        line for line in (root / "etc/passwd").read_text().splitlines() if line.startswith(name)
    ]
    groups = [
        line.split(":")[0]
        for line in (root / "etc/group").read_text().splitlines()
        if name in line.split(":")[3].split(",")
    ]
    return passwd, groups


def analyze(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["systemd-analyze", *args, f"--root={root}", UNIT],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def exposure(root: Path) -> float:
    done = analyze(root, "security", "--offline=yes")
    assert done.returncode == 0, done.stderr
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout)
    assert match, done.stdout
    return float(match.group(1))


def installed_version(root: Path) -> str:
    venv = root / "opt/kiothi-board/venv/bin"
    # The scripts' #! names the target system's path, so run them with the venv's python.
    assert (venv / "kiothi-board").read_text().startswith("#!/opt/kiothi-board/venv/bin/python")
    done = subprocess.run(
        [str(venv / "python"), str(venv / "kiothi-board"), "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_install_rerun_upgrade_and_uninstall(root: Path, wheels: dict[str, Path]) -> None:
    seed = snapshot(root)

    # An older release first.
    out = install(root, wheels["old"])
    assert installed_version(root) == "kiothi-board 0.0.1"
    passwd, groups = account(root, "kiothi")
    assert len(passwd) == 1 and passwd[0].endswith(":/var/lib/kiothi-board:/usr/sbin/nologin")
    assert sorted(groups) == ["dialout", "gpio", "spi"], "the device groups, nothing else"
    config = root / "etc/kiothi-board/config.toml"
    assert config.read_bytes() == (REPO / "docs/config.example.toml").read_bytes()
    kiothi_gid = int(passwd[0].split(":")[3])
    assert (stat.S_IMODE(config.stat().st_mode), config.stat().st_gid) == (0o640, kiothi_gid)
    boot = root / "boot/firmware/config.txt"
    assert boot.read_text().startswith(BOOT_CONFIG)
    added = boot.read_text()[len(BOOT_CONFIG) :]
    assert re.search(r"\[all\]\ndtparam=spi=on\ndtoverlay=spi0-0cs\n", added)
    assert "[pi4]\ncore_freq=500\ncore_freq_min=500\n[all]\n" in added, "SPI clock fixed"
    assert (root / "boot/firmware/config.txt.kiothi-board.bak").read_text() == BOOT_CONFIG
    cmdline = root / "boot/firmware/cmdline.txt"
    assert cmdline.read_text() == CMDLINE.rstrip("\n") + " spidev.bufsiz=32768\n"
    wants = root / "etc/systemd/system/multi-user.target.wants" / UNIT
    assert os.readlink(wants) == f"/etc/systemd/system/{UNIT}"
    assert "reboot once" in out

    # The board ran: the operator edited the config, the daemon wrote its store.
    config.write_text(config.read_text() + "\n# tuned for the museum\n[game]\nlevel = 4\n")
    store = root / "var/lib/kiothi-board"
    store.mkdir()
    (store / "games.sqlite3").write_bytes(b"SQLite format 3\x00 museum games")
    kiothi_uid = int(passwd[0].split(":")[2])
    for path in (store, store / "games.sqlite3"):
        os.chown(path, kiothi_uid, kiothi_gid)  # as systemd's StateDirectory= leaves them
    kept = {p: p.read_bytes() for p in (config, store / "games.sqlite3")}
    # An older release wrote a shorter SPI block (no core clock): the upgrade replaces it.
    marker, end = added.splitlines()[0], added.splitlines()[-1]
    boot.write_text(f"{BOOT_CONFIG}{marker}\n[all]\ndtparam=spi=on\n{end}\n")

    # Upgrade: the new package, same config, same store.
    out = install(root, wheels["new"])
    assert installed_version(root) == f"kiothi-board {kiothi_board.__version__}"
    firmware = root / "opt/kiothi-board/venv/share/kiothi-board/firmware/kiothi_io"
    shipped = sorted(p.name for p in (REPO / "firmware/kiothi_io").glob("*.py"))
    assert sorted(p.name for p in firmware.glob("*.py")) == shipped
    assert {p: p.read_bytes() for p in kept} == kept
    assert "kept /etc/kiothi-board/config.toml (yours; " in out
    example = root / "etc/kiothi-board/config.example.toml"
    assert example.read_bytes() == (REPO / "docs/config.example.toml").read_bytes()
    assert boot.read_text() == BOOT_CONFIG + added

    # The same install again changes nothing at all: not a byte, not a mode, not a mtime.
    installed = snapshot(root, times=True)
    install(root, wheels["new"])
    assert differences(installed, snapshot(root, times=True)) == []

    # Uninstall: only the store is left (and the account files' backups).
    done = run_installer(root, "--uninstall")
    assert done.returncode == 0, done.stderr
    assert (store / "games.sqlite3").read_bytes() == kept[store / "games.sqlite3"]
    left = differences(seed, snapshot(root))
    assert set(left) - ACCOUNT_BACKUPS == {
        "var/lib/kiothi-board",
        "var/lib/kiothi-board/games.sqlite3",
    }
    owners = {(p.stat().st_uid, p.stat().st_gid) for p in (store, store / "games.sqlite3")}
    assert owners == {(0, 0)}, "the uid is free again: no future account inherits the games"


def test_unit_is_hardened_and_verifies_on_the_installed_tree(
    root: Path, wheels: dict[str, Path]
) -> None:
    seed = snapshot(root)
    install(root, wheels["new"])
    score = exposure(root)
    print(f"systemd-analyze security exposure: {score}")
    assert score <= EXPOSURE_LIMIT
    done = analyze(root, "verify")
    assert (done.returncode, done.stdout + done.stderr) == (0, "")

    # The PWM drop-in (not installed by default) loads cleanly too.
    dropins = root / "etc/systemd/system/kiothi-board.service.d"
    dropins.mkdir()
    shutil.copy(REPO / "systemd/kiothi-board-pwm-leds.conf", dropins)
    done = analyze(root, "verify")
    assert (done.returncode, done.stdout + done.stderr) == (0, "")

    # The checks look at the installed tree: without the daemon's binary, verify objects.
    binary = root / "opt/kiothi-board/venv/bin/kiothi-board"
    binary.rename(binary.with_suffix(".moved"))
    done = analyze(root, "verify")
    assert "kiothi-board is not executable" in done.stderr
    binary.with_suffix(".moved").rename(binary)

    # Purge: nothing is left but the account files' backups.
    store = root / "var/lib/kiothi-board"
    store.mkdir()
    (store / "games.sqlite3").write_bytes(b"SQLite format 3\x00")
    done = run_installer(root, "--purge")
    assert done.returncode == 0, done.stderr
    assert set(differences(seed, snapshot(root))) <= ACCOUNT_BACKUPS
    assert (root / "boot/firmware/config.txt").read_text() == BOOT_CONFIG
    assert (root / "boot/firmware/cmdline.txt").read_text() == CMDLINE


def test_unit_settings_each_say_why() -> None:
    lines = (REPO / "systemd" / UNIT).read_text().splitlines()
    settings = [i for i, line in enumerate(lines) if re.match(r"^[A-Za-z]+=", line)]
    assert len(settings) > 40
    silent = [lines[i] for i in settings if not lines[i - 1].startswith("#")]
    assert silent == [], "every setting has a comment line above it"
    values = dict(lines[i].split("=", 1) for i in settings if not lines[i].startswith("Sys"))
    run, stop = values["ExecStart"].split(), values["ExecStopPost"].split()
    assert stop[0] == run[0] and stop[1:3] == ["leds", "off"] and stop[3:] == run[2:]
    assert values["CapabilityBoundingSet"] == "" and values["LimitNOFILE"] == "4096"


def test_bad_arguments_change_nothing(root: Path, tmp_path: Path) -> None:
    seed = snapshot(root)
    done = run_installer(root, "--frobnicate")
    assert done.returncode == 2 and "--frobnicate" in done.stderr
    missing = tmp_path / "no.whl"
    done = run_installer(root, "--wheel", str(missing))
    assert done.returncode == 1 and str(missing) in done.stderr
    done = run_installer(root / "nowhere")
    assert done.returncode == 1 and "nowhere" in done.stderr
    assert differences(seed, snapshot(root)) == []
    # The old manual install was a clone in /opt/kiothi-board: never install over (or delete) it.
    (root / "opt/kiothi-board/.git").mkdir(parents=True)
    seed = snapshot(root)
    for args in ((), ("--uninstall",)):
        done = run_installer(root, *args)
        assert done.returncode == 1 and "git clone" in done.stderr
    assert differences(seed, snapshot(root)) == []


def test_a_world_readable_config_is_made_private(root: Path, wheels: dict[str, Path]) -> None:
    """Issue 21: the installer silently kept a config every user could read (its token)."""
    install(root, wheels["new"])
    config = root / "etc/kiothi-board/config.toml"
    config.write_text(config.read_text() + '\n[api]\ntoken = "museum-token-0123456789"\n')
    config.chmod(0o644)
    os.chown(config, 0, 0)
    done = run_installer(root, "--wheel", str(wheels["new"]), "--no-deps", "--venv-without-pip")
    assert done.returncode == 0, done.stdout + done.stderr
    passwd, _ = account(root, "kiothi")
    info = config.stat()
    assert (stat.S_IMODE(info.st_mode), info.st_gid) == (0o640, int(passwd[0].split(":")[3]))
    assert "was readable by every user (mode 644); now 640" in done.stderr
    assert "museum-token" not in done.stdout + done.stderr
    again = run_installer(root, "--wheel", str(wheels["new"]), "--no-deps", "--venv-without-pip")
    assert again.returncode == 0 and "readable by every user" not in again.stderr


def test_the_voice_is_installed_only_when_the_config_turns_it_on(
    root: Path, wheels: dict[str, Path]
) -> None:
    """Issue 35: espeak-ng and alsa-utils, and the unit's ALSA drop-in, with `[voice]`
    enabled only; off again, the drop-in goes; uninstall leaves nothing of it."""
    dropin = root / "etc/systemd/system/kiothi-board.service.d/voice.conf"
    out = install(root, wheels["new"])
    assert not dropin.exists() and "espeak-ng" not in out
    config = root / "etc/kiothi-board/config.toml"
    off = config.read_text()
    on = re.sub(r"(?m)^(\[voice\].*\n)enabled = false", r"\1enabled = true", off)
    assert on != off
    config.write_text(on)
    out = install(root, wheels["new"])
    # --root never runs apt-get: it says what the board needs (its own dpkg database).
    assert "[voice] is on: install espeak-ng alsa-utils on the board" in out
    assert dropin.read_text() == (REPO / "systemd/kiothi-board-voice.conf").read_text()
    assert analyze(root, "verify").returncode == 0
    assert exposure(root) <= EXPOSURE_LIMIT
    assert not (root / "opt/kiothi-board/voice-packages").exists(), "nothing installed"
    config.write_text(off)
    out = install(root, wheels["new"])
    assert not dropin.exists() and "removed /etc/systemd/system/kiothi-board.service.d" in out
    config.write_text(on)
    install(root, wheels["new"])
    done = run_installer(root, "--uninstall")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not dropin.parent.exists()


CORE_LINE = "install.sh: the rules and the AI run on "


def test_the_core_check_asks_the_installed_package_once(
    root: Path, wheels: dict[str, Path]
) -> None:
    """Issue 30 item 12: run from the clone, as install.md says, the check imported the
    clone's package (here one with a native core built in place), not the installed one (a
    wheel without it), and said what the clone runs."""
    assert list((REPO / "kiothi_board/native").glob("_core*.so")), "make setup builds it here"
    done = run_installer(
        root, "--wheel", str(wheels["new"]), "--no-deps", "--venv-without-pip", cwd=REPO
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith(CORE_LINE)]
    assert len(said) == 1, done.stdout
    assert said[0].startswith(f"{CORE_LINE}the Python path: the native core is not built")
    assert str(REPO) not in done.stdout + done.stderr


def test_a_rerun_after_installing_gcc_builds_the_native_core(root: Path) -> None:
    """Issue 30 item 12: built from the checkout without a working compiler, the package
    runs on the Python path and the installer says to install gcc and run it again; that
    rerun skipped the build (the stamp matched). CC names a compiler that is not there."""
    broken = {**os.environ, "CC": "/nonexistent/gcc"}
    first = run_installer(root, "--no-deps", "--venv-without-pip", env=broken)
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"{CORE_LINE}the Python path" in first.stdout
    assert "apt-get install gcc python3-dev, then run me again" in first.stdout
    again = run_installer(root, "--no-deps", "--venv-without-pip")
    assert again.returncode == 0, again.stdout + again.stderr
    said = [line for line in again.stdout.splitlines() if line.startswith(CORE_LINE)]
    venv = root / "opt/kiothi-board/venv"
    assert len(said) == 1 and said[0].startswith(f"{CORE_LINE}the native core ({venv}/"), said
    # And once built, a third run has nothing to do.
    third = run_installer(root, "--no-deps", "--venv-without-pip")
    assert third.returncode == 0 and CORE_LINE not in third.stdout, third.stdout


def test_a_smaller_spidev_bufsiz_is_raised_and_put_back(
    root: Path, wheels: dict[str, Path]
) -> None:
    """Issue 30 item 13: a bufsiz of 8192 already in cmdline.txt was kept without a word,
    and 24-LED rings (11,648 SPI bytes a frame) were refused at start."""
    cmdline = root / "boot/firmware/cmdline.txt"
    before = CMDLINE.replace(" rootwait", " spidev.bufsiz=8192 rootwait")
    cmdline.write_text(before)
    config = root / "etc/kiothi-board/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[leds]\nleds_per_ring = 24\n")
    config.chmod(0o640)
    out = install(root, wheels["new"])
    assert cmdline.read_text() == CMDLINE.replace(" rootwait", " spidev.bufsiz=32768 rootwait")
    assert (
        "raised spidev.bufsiz=8192 to 32768 in /boot/firmware/cmdline.txt: 480 LEDs are "
        "11648 SPI bytes a frame, one transfer"
    ) in out
    assert "spidev.bufsiz" not in install(root, wheels["new"]), "a rerun keeps it, silently"
    done = run_installer(root, "--uninstall")
    assert done.returncode == 0, done.stderr
    assert cmdline.read_text() == before, "the user's own value is back"
    assert not (root / "boot/firmware/cmdline.txt.kiothi-board.bak").exists()
