#!/usr/bin/env bash
# One-command install of kiothi-board on Raspberry Pi OS (Bookworm), from a clone:
#
#     sudo scripts/install.sh              install or upgrade (run it again: nothing changes)
#     sudo scripts/install.sh --uninstall  remove everything but the game store
#     sudo scripts/install.sh --purge      remove everything, the game store too
#
# What it installs (and --uninstall removes; the Debian packages it needs stay):
#   /opt/kiothi-board/venv                   the package with its `pi` extra, in a venv
#   /etc/systemd/system/kiothi-board.service the hardened unit (enabled, started)
#   /etc/udev/rules.d/99-kiothi-board.rules  /dev/kiothi-io for the co-processor; device groups;
#                                            a Pi 5's /dev/gpiochip4 link (gpiozero 2.0.1)
#   /etc/sysusers.d/kiothi-board.conf        the `kiothi` system user in gpio, spi, dialout
#   /etc/kiothi-board/config.toml            from docs/config.example.toml; kept on upgrade
#   espeak-ng, alsa-utils (Debian)           only when the config's [voice] is enabled, with
#   .../kiothi-board.service.d/voice.conf    the unit's drop-in for ALSA's devices; uninstall
#                                            removes the packages this script installed
#   /boot/firmware/config.txt                SPI on, no chip-select pin, core clock fixed (a
#                                            marked block; backed up first; only if it exists)
#   /boot/firmware/cmdline.txt               spidev.bufsiz=32768, or what the configured rings
#                                            need (likewise; a smaller one is raised)
# --uninstall keeps the Debian packages it installed (apt-get), which other software may use,
# but for the voice's (recorded in /opt/kiothi-board/voice-packages): they are the board's.
# The game store, /var/lib/kiothi-board (systemd's StateDirectory), is kept unless --purge.
#
# --root DIR installs into DIR as if it were / (tests, image staging): no apt-get, no running
# systemd or udev is touched, users and groups are written to DIR/etc by systemd-sysusers.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: scripts/install.sh [--root DIR] [--uninstall | --purge] [--wheel FILE] [--no-deps]
                          [--venv-without-pip] [--no-apt]
  --root DIR          install into DIR instead of / (tests, image staging)
  --uninstall         remove the installation; keep the game store
  --purge             remove the installation and the game store
  --wheel FILE        install this kiothi-board wheel instead of building the checkout
  --no-deps           install kiothi-board alone, offline (tests: such a venv cannot run
                      the board, its dependencies are missing)
  --venv-without-pip  create the venv without pip and fill it with the system's pip
                      (tests: saves the slow pip bootstrap)
  --no-apt            do not apt-get install the Debian prerequisites
EOF
}

ROOT=""
MODE=install
WHEEL=""
NO_DEPS=0
VENV_PIP=1
APT=1
while [ $# -gt 0 ]; do
    case "$1" in
        --root) ROOT="${2:?--root needs a directory}"; shift ;;
        --root=*) ROOT="${1#--root=}" ;;
        --uninstall) MODE=uninstall ;;
        --purge) MODE=purge ;;
        --wheel) WHEEL="${2:?--wheel needs a file}"; shift ;;
        --wheel=*) WHEEL="${1#--wheel=}" ;;
        --no-deps) NO_DEPS=1 ;;
        --venv-without-pip) VENV_PIP=0 ;;
        --no-apt) APT=0 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON=/usr/bin/python3
NAME=kiothi-board
USER_NAME=kiothi
PREFIX=/opt/kiothi-board
VENV=$PREFIX/venv
STAMP=$PREFIX/installed-from
ETC=/etc/kiothi-board
CONFIG=$ETC/config.toml
UNIT=/etc/systemd/system/$NAME.service
DROPINS=/etc/systemd/system/$NAME.service.d
UDEV=/etc/udev/rules.d/99-kiothi-board.rules
SYSUSERS=/etc/sysusers.d/$NAME.conf
STORE=/var/lib/kiothi-board
BOOTCFG=/boot/firmware/config.txt
# What the wheel is built from (pyproject.toml names the firmware as data files).
SOURCES="pyproject.toml setup.py README.md kiothi_board firmware/kiothi_io"
BOOT_BEGIN="# >>> kiothi-board: LEDs on SPI0 MOSI (GPIO10), no chip-select pin"
BOOT_END="# <<< kiothi-board"
CMDLINE=/boot/firmware/cmdline.txt
BUFSIZ=spidev.bufsiz=32768
VOICE_PACKAGES="espeak-ng alsa-utils"
VOICE_DROPIN=$DROPINS/voice.conf

say() { echo "install.sh: $*"; }
die() { echo "install.sh: $*" >&2; exit 1; }
at() { printf '%s%s' "$ROOT" "$1"; } # a path of the target system, as seen from here
live() { [ -z "$ROOT" ] && [ -d /run/systemd/system ]; } # a running systemd to talk to
tmp=""
CHANGED=0 # set when the package or the unit changed: a running service is restarted

[ "$(id -u)" -eq 0 ] || die "run me as root (sudo scripts/install.sh)"
if [ -n "$ROOT" ]; then
    [ -d "$ROOT" ] || die "--root $ROOT: no such directory"
    ROOT="$(cd "$ROOT" && pwd)"
    [ "$ROOT" != / ] || ROOT=""
fi
[ -z "$WHEEL" ] || [ -f "$WHEEL" ] || die "--wheel $WHEEL: no such file"
# The old hand-typed install cloned the repository into /opt/kiothi-board itself: this
# script owns that directory (uninstall deletes it), so it must not be anybody's clone.
if [ -e "$(at "$PREFIX")/.git" ]; then
    die "$PREFIX is a git clone (the old manual install): move it elsewhere, then run me from there"
fi
case "$REPO/" in "$ROOT$PREFIX"/*) die "run me from a clone outside $PREFIX" ;; esac

# --------------------------------------------------------------------------- install steps
prerequisites() {
    # The venv, C extensions without wheels for the Pi (spidev, sysv_ipc, and kiothi-board's
    # own native core: Debian's gcc and python3-dev, no other toolchain), sysusers, systemctl.
    local wanted=(python3 python3-venv python3-pip python3-dev gcc libc6-dev systemd) missing=()
    local pkg
    for pkg in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
            missing+=("$pkg")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    say "apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

# Copy $1 to the target path $2 with mode $3, unless it is already there, identical.
place() {
    local target
    target="$(at "$2")"
    if [ -f "$target" ] && cmp -s "$1" "$target" &&
        [ "$(stat -c %a "$target")" = "$3" ]; then
        return 1
    fi
    install -D -m "$3" "$1" "$target"
    say "installed $2"
}

account() {
    place "$REPO/systemd/kiothi-board.sysusers" "$SYSUSERS" 644 || true
    systemd-sysusers ${ROOT:+--root="$ROOT"} "$(at "$SYSUSERS")"
}

source_id() {
    # What the venv was filled from: the wheel's hash, or a hash of the checkout's sources.
    if [ -n "$WHEEL" ]; then
        echo "wheel $(basename "$WHEEL") sha256:$(sha256sum <"$WHEEL" | cut -d' ' -f1)"
    else
        echo "checkout sha256:$(cd "$REPO" && find $SOURCES -type f ! -path '*/__pycache__/*' \
            ! -name '*.pyc' ! -name '*.so' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
    fi
}

pip_install() {
    if [ $VENV_PIP -eq 1 ]; then
        "$(at "$VENV")/bin/python" -m pip install -q --disable-pip-version-check "$@"
    else
        "$PYTHON" -m pip --python "$(at "$VENV")/bin/python" install -q \
            --disable-pip-version-check "$@"
    fi
}

package() {
    local venv id wheel
    venv="$(at "$VENV")"
    if [ ! -x "$venv/bin/python" ]; then
        say "creating the venv $VENV"
        if [ $VENV_PIP -eq 1 ]; then "$PYTHON" -m venv "$venv"; else
            "$PYTHON" -m venv --without-pip "$venv"; fi
    fi
    id="$(source_id)"
    # A checkout whose native core did not build (no gcc or python3-dev then) left a stamp
    # that does not match: a rerun builds again, and so gets the core once they are there.
    if [ -x "$venv/bin/$NAME" ] && [ "$(cat "$(at "$STAMP")" 2>/dev/null)" = "$id" ]; then
        return 0
    fi
    wheel="$WHEEL"
    if [ -z "$wheel" ]; then
        # Built from a copy: pip builds in the source tree, which is the user's clone.
        tmp="$(mktemp -d)"
        trap 'rm -rf "$tmp"' EXIT
        mkdir "$tmp/src"
        (cd "$REPO" && cp -r --parents $SOURCES "$tmp/src/")
        find "$tmp/src" -name __pycache__ -prune -exec rm -rf {} +
        find "$tmp/src" -name '*.so' -delete # a native core built in the clone: built anew
        say "building the kiothi-board wheel"
        "$PYTHON" -m pip wheel -q --disable-pip-version-check --no-deps -w "$tmp" "$tmp/src"
        wheel="$(ls "$tmp"/kiothi_board-*.whl)"
    fi
    say "installing $(basename "$wheel") into $VENV"
    if [ $NO_DEPS -eq 1 ]; then
        pip_install --no-deps --no-index --force-reinstall "$wheel"
    else
        pip_install --upgrade "$wheel[pi]"
        # Same version, other sources (a clone between releases): this wheel's files win.
        pip_install --no-deps --force-reinstall "$wheel"
    fi
    if [ -n "$ROOT" ]; then
        # pip wrote $ROOT into the scripts' #! lines and activate: the target system's paths.
        grep -rlF "$ROOT$VENV" "$venv/bin" | xargs -r sed -i "s#$ROOT$VENV#$VENV#g"
    fi
    CHANGED=1
    if native_core || [ -n "$WHEEL" ]; then
        echo "$id" >"$(at "$STAMP")"
    else
        echo "$id without the native core" >"$(at "$STAMP")"
    fi
}

venv_python() {
    # The installed package, asked in isolation (-I: neither the current directory, where a
    # clone's own kiothi_board may be, nor PYTHON* variables; the core chosen by itself).
    (cd / && env -u KIOTHI_CORE "$(at "$VENV")/bin/python" -I "$@")
}

native_core() {
    # The wheel builds the native core when gcc and python3-dev are there; without them it
    # installs all the same and runs on the Python path (slower): say which, and why, once.
    # Fails when the installed package runs on the Python path.
    local why
    why="$(venv_python -c 'import logging; logging.disable(logging.CRITICAL)
from kiothi_board import native; print(native.describe())' 2>&1)" || why="unknown: $why"
    say "the rules and the AI run on $why"
    case "$why" in
        "the native core"*) return 0 ;;
    esac
    if [ -n "$WHEEL" ]; then
        say "for the native core: a wheel built where gcc and python3-dev are installed"
    else
        say "for the native core: apt-get install gcc python3-dev, then run me again"
    fi
    return 1
}

config() {
    local gid
    gid="$(awk -F: -v g="$USER_NAME" '$1 == g { print $3 }' "$(at /etc/group)")"
    [ -n "$gid" ] || die "group $USER_NAME missing in $(at /etc/group) after systemd-sysusers"
    install -d -m 755 "$(at "$ETC")"
    # This release's defaults beside the config, so an upgrade's new defaults can be compared.
    place "$REPO/docs/config.example.toml" "$ETC/config.example.toml" 644 || true
    if [ -e "$(at "$CONFIG")" ]; then
        private_config "$gid"
        if cmp -s "$(at "$CONFIG")" "$(at "$ETC/config.example.toml")"; then
            say "kept $CONFIG"
        else
            say "kept $CONFIG (yours; this release's defaults: $ETC/config.example.toml)"
        fi
        return 0
    fi
    # Readable by the daemon's group only: it may hold the API token.
    install -m 640 -o 0 -g "$gid" "$REPO/docs/config.example.toml" "$(at "$CONFIG")"
    say "installed $CONFIG (edit it, then: systemctl restart $NAME)"
}

private_config() {
    # A kept config may hold api.token and api.staff_pin: readable by its owner and the
    # daemon's group only. One that others could read is fixed here, and said loudly:
    # whoever could read it may know the secrets.
    local file mode
    file="$(at "$CONFIG")"
    mode="$(stat -L -c %a "$file")"
    if [ $((8#$mode & 8#007)) -ne 0 ]; then
        chmod o-rwx "$file"
        chgrp "$1" "$file"
        chmod g+r "$file"
        say "WARNING: $CONFIG was readable by every user (mode $mode); now $(stat -L -c %a "$file") (group $USER_NAME): if it holds api.token or api.staff_pin, change them (kiothi-board token makes a new token)" >&2
    fi
}

units() {
    place "$REPO/systemd/99-kiothi-board.rules" "$UDEV" 644 || true
    if place "$REPO/systemd/kiothi-board.service" "$UNIT" 644; then CHANGED=1; fi
    if live; then
        systemctl daemon-reload
        udevadm control --reload-rules 2>/dev/null || true
        udevadm trigger --subsystem-match=tty --subsystem-match=spidev \
            --subsystem-match=gpio 2>/dev/null || true
        local was_active=0
        systemctl is-active -q "$NAME.service" && was_active=1
        systemctl enable --now -q "$NAME.service"
        # An upgrade of a running service takes effect now (a first start needs no restart).
        if [ $CHANGED -eq 1 ] && [ $was_active -eq 1 ]; then systemctl restart "$NAME.service"; fi
    elif [ ! -L "$(at /etc/systemd/system/multi-user.target.wants/$NAME.service)" ]; then
        systemctl ${ROOT:+--root="$ROOT"} enable -q "$NAME.service"
        say "enabled $NAME.service (it starts at the next boot)"
    fi
}

boot_config() {
    local file
    file="$(at "$BOOTCFG")"
    if [ ! -f "$file" ]; then
        say "no $BOOTCFG (not Raspberry Pi OS?): enable SPI0 yourself (docs/install.md)"
        return 0
    fi
    # The SPI clock is divided from the VPU core clock: fixed, so the WS2812 bits keep their
    # length (hardware/README.md). A Pi 5's RP1 SPI needs nothing. Back to [all] at the end.
    local block
    block="$(printf '%s\n' "$BOOT_BEGIN" "[all]" "dtparam=spi=on" "dtoverlay=spi0-0cs" \
        "[pi3]" "core_freq=250" "core_freq_min=250" "[pi02]" "core_freq=250" \
        "core_freq_min=250" "[pi4]" "core_freq=500" "core_freq_min=500" "[all]" "$BOOT_END")"
    if grep -qxF "$BOOT_BEGIN" "$file"; then
        [ "$(boot_block <"$file")" != "$block" ] || return 0
        strip_boot_block "$file" # an older release's block: replaced by this one
    fi
    [ -e "$file.kiothi-board.bak" ] || cp -p "$file" "$file.kiothi-board.bak"
    [ ! -s "$file" ] || [ -z "$(tail -c1 "$file")" ] || echo >>"$file"
    printf '%s\n' "$block" >>"$file"
    say "enabled SPI0 in $BOOTCFG (backup: $BOOTCFG.kiothi-board.bak); reboot once"
}

boot_block() { # our marked block, from stdin
    awk -v b="$BOOT_BEGIN" -v e="$BOOT_END" '$0 == b { on = 1 } on { print } $0 == e { on = 0 }'
}

strip_boot_block() {
    awk -v b="$BOOT_BEGIN" -v e="$BOOT_END" '$0 == b { skip = 1 } !skip { print }
        $0 == e { skip = 0 }' "$1" >"$1.kiothi-board.new"
    chmod --reference="$1" "$1.kiothi-board.new"
    mv "$1.kiothi-board.new" "$1"
}

bufsiz_needed() {
    # "BUFSIZ LEDS BYTES": the spidev.bufsiz one frame of the configured rings needs (0: the
    # default will do), their LEDs and SPI bytes, by the installed package's own sums.
    venv_python -c 'import sys
from kiothi_board.config import load
from kiothi_board.tools.bom import budget
b = budget(load(sys.argv[1]))
print(b.spidev_bufsiz, b.leds, b.spi_bytes)' "$(at "$CONFIG")" 2>/dev/null
}

kernel_cmdline() {
    # One frame in one SPI transfer: 320 LEDs are 7808 SPI bytes, spidev's default is 4096;
    # 24-LED rings need 11,648. A smaller bufsiz already there is raised (and said).
    local file want leds bytes current record old
    file="$(at "$CMDLINE")"
    [ -f "$file" ] || return 0
    read -r want leds bytes <<<"$(bufsiz_needed)" || true
    case "$want" in "" | *[!0-9]*)
        say "WARNING: could not read $CONFIG for the rings' size: spidev.bufsiz for the defaults" >&2
        want=0 leds="" ;;
    esac
    [ "$want" -ge "${BUFSIZ#*=}" ] || want="${BUFSIZ#*=}"
    current="$(grep -oE '(^| )spidev\.bufsiz=[^ ]*' "$file" | tail -n 1 | sed 's/.*=//')" || true
    record="$(at "$PREFIX")"
    if [ -z "$current" ]; then
        [ -e "$file.kiothi-board.bak" ] || cp -p "$file" "$file.kiothi-board.bak"
        sed -i "1s/\$/ spidev.bufsiz=$want/" "$file"
        echo "spidev.bufsiz=$want" >"$record/added-to-cmdline"
        say "added spidev.bufsiz=$want to $CMDLINE (backup: $CMDLINE.kiothi-board.bak)"
        return 0
    fi
    case "$current" in *[!0-9]* | "") ;; *) [ "$current" -lt "$want" ] || return 0 ;; esac
    [ -e "$file.kiothi-board.bak" ] || cp -p "$file" "$file.kiothi-board.bak"
    sed -i -E "1s/(^| )spidev\.bufsiz=[^ ]*/\1spidev.bufsiz=$want/g" "$file"
    if [ -f "$record/added-to-cmdline" ]; then
        echo "spidev.bufsiz=$want" >"$record/added-to-cmdline" # still ours alone
    else
        old="$current"
        [ ! -f "$record/raised-in-cmdline" ] || read -r old _ <"$record/raised-in-cmdline"
        echo "$old $want" >"$record/raised-in-cmdline" # uninstall puts the user's back
    fi
    say "raised spidev.bufsiz=$current to $want in $CMDLINE: ${leds:-the configured} LEDs are ${bytes:-more} SPI bytes a frame, one transfer (backup: $CMDLINE.kiothi-board.bak); reboot once"
}

voice_enabled() {
    # Whether the installed config turns the board's voice on ([voice] enabled).
    venv_python -c 'import sys
from kiothi_board.config import load
sys.exit(0 if load(sys.argv[1]).voice.enabled else 1)' "$(at "$CONFIG")" 2>/dev/null
}

voice() {
    # The voice's Debian packages and the unit's ALSA drop-in, only with [voice] enabled.
    local pkg missing=() record
    record="$(at "$PREFIX")/voice-packages"
    if ! voice_enabled; then
        if [ -e "$(at "$VOICE_DROPIN")" ]; then
            rm -f "$(at "$VOICE_DROPIN")"
            say "removed $VOICE_DROPIN ([voice] is off)"
            CHANGED=1
        fi
        return 0
    fi
    if place "$REPO/systemd/kiothi-board-voice.conf" "$VOICE_DROPIN" 644; then CHANGED=1; fi
    for pkg in $VOICE_PACKAGES; do # the target's own package database, in --root too
        dpkg-query ${ROOT:+--admindir="$ROOT/var/lib/dpkg"} -W -f='${Status}' "$pkg" \
            2>/dev/null | grep -q "ok installed" ||
            missing+=("$pkg")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    if [ -n "$ROOT" ] || [ $APT -eq 0 ] || ! command -v apt-get >/dev/null; then
        say "[voice] is on: install ${missing[*]} on the board (apt-get install ${missing[*]})"
        return 0
    fi
    say "apt-get install ${missing[*]} ([voice] is on)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
    printf '%s\n' "${missing[@]}" >>"$record" # uninstall removes these, and only these
}

voice_uninstall() {
    # The voice's packages this script installed (none in --root: it never installs there).
    local record pkgs
    record="$(at "$PREFIX")/voice-packages"
    [ -f "$record" ] || return 0
    pkgs="$(sort -u "$record" | tr '\n' ' ')"
    if [ -z "$ROOT" ] && command -v apt-get >/dev/null; then
        say "apt-get remove $pkgs(installed for the voice)"
        # shellcheck disable=SC2086 # one word a package
        DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq $pkgs >/dev/null
    fi
}

install_all() {
    if [ -z "$ROOT" ] && [ $APT -eq 1 ] && command -v apt-get >/dev/null; then
        prerequisites
    fi
    account
    package
    config
    voice
    units
    boot_config
    kernel_cmdline
    say "done: $PREFIX, $UNIT, $CONFIG; next: $PREFIX/venv/bin/$NAME doctor"
}

# ------------------------------------------------------------------------- uninstall steps
uninstall_all() {
    local file added old new
    if live; then
        systemctl disable --now -q "$NAME.service" 2>/dev/null || true
    elif [ -e "$(at "$UNIT")" ]; then
        systemctl ${ROOT:+--root="$ROOT"} disable -q "$NAME.service" || true
    fi
    file="$(at "$CMDLINE")"
    if [ -f "$(at "$PREFIX")/added-to-cmdline" ] && [ -f "$file" ]; then
        # Only what this script added (a bufsiz the user had set stays).
        added="$(cat "$(at "$PREFIX")/added-to-cmdline")"
        sed -i "1s/ $added\$//" "$file"
        say "removed $added from $CMDLINE"
    elif [ -f "$(at "$PREFIX")/raised-in-cmdline" ] && [ -f "$file" ]; then
        # A bufsiz this script raised goes back to the user's value.
        read -r old new <"$(at "$PREFIX")/raised-in-cmdline"
        sed -i -E "1s/(^| )spidev\.bufsiz=$new( |\$)/\1spidev.bufsiz=$old\2/" "$file"
        say "put spidev.bufsiz=$old back in $CMDLINE"
    fi
    if [ -f "$file.kiothi-board.bak" ] && cmp -s "$file" "$file.kiothi-board.bak"; then
        rm -f "$file.kiothi-board.bak"
    fi
    voice_uninstall
    rm -rf "$(at "$PREFIX")" "$(at "$ETC")" "$(at "$DROPINS")"
    rm -f "$(at "$UNIT")" "$(at "$UDEV")" "$(at "$SYSUSERS")"
    rmdir "$(at "$(dirname "$SYSUSERS")")" 2>/dev/null || true # Debian has no /etc/sysusers.d
    file="$(at "$BOOTCFG")"
    if [ -f "$file" ] && grep -qxF "$BOOT_BEGIN" "$file"; then
        strip_boot_block "$file"
        say "removed the SPI block from $BOOTCFG"
    fi
    if [ -f "$file.kiothi-board.bak" ] && cmp -s "$file" "$file.kiothi-board.bak"; then
        rm -f "$file.kiothi-board.bak"
    fi
    if grep -q "^$USER_NAME:" "$(at /etc/passwd)" 2>/dev/null; then
        userdel ${ROOT:+--root "$ROOT"} "$USER_NAME"
        say "removed the user $USER_NAME"
    fi
    if grep -q "^$USER_NAME:" "$(at /etc/group)" 2>/dev/null; then
        groupdel ${ROOT:+--root "$ROOT"} "$USER_NAME"
    fi
    if [ -d "$(at "$STORE")" ]; then
        if [ "$MODE" = purge ]; then
            rm -rf "$(at "$STORE")"
            say "removed the game store $STORE"
        else
            # The uid is free now: no future account may inherit the games.
            chown -R 0:0 "$(at "$STORE")"
            say "kept the game store $STORE (--purge removes it)"
        fi
    fi
    if live; then
        systemctl daemon-reload
        udevadm control --reload-rules 2>/dev/null || true
    fi
    say "uninstalled"
}

case "$MODE" in
    install) install_all ;;
    uninstall | purge) uninstall_all ;;
esac
