#!/usr/bin/env bash
# Install the Debian packages the product and its tests need, when they are missing.
# Runs as root on the project's machines (CI included); elsewhere it says what to install.
set -euo pipefail
packages=()
command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
# The fleet tests start their own broker with users and an ACL (mosquitto, mosquitto_passwd).
command -v mosquitto_passwd >/dev/null 2>&1 || packages+=(mosquitto)
# The web twin's browser test drives Debian's Chromium through Playwright (no browser download).
[ -x /usr/bin/chromium ] || packages+=(chromium)
# The installer's tests: systemd-analyze, systemd-sysusers, systemctl; userdel, groupdel.
command -v systemd-analyze >/dev/null 2>&1 || packages+=(systemd)
command -v userdel >/dev/null 2>&1 || packages+=(passwd)
# ...and Debian's own Python with venv and pip, which the installer uses as on a Pi.
/usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1 || packages+=(python3-venv)
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
# The store's cost of a press (bench guide, tests/store/test_press_cost.py) counts fsyncs with strace.
command -v strace >/dev/null 2>&1 || packages+=(strace)
# The firmware tests run MicroPython (WebAssembly, from npm: firmware/wasm) under Node.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
# The board's voice (docs/install.md, "A voice"): its tests render speech to WAV with espeak-ng,
# and aplay (alsa-utils) is what plays it on a Pi.
command -v espeak-ng >/dev/null 2>&1 || packages+=(espeak-ng)
command -v aplay >/dev/null 2>&1 || packages+=(alsa-utils)
if [ ${#packages[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "setup-system: please install: ${packages[*]} (sudo apt-get install ${packages[*]})" >&2
    exit 1
fi
echo "setup-system: installing ${packages[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
