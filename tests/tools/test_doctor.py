"""`kiothi-board doctor` through gpiozero's MockFactory and the co-processor simulator."""

from __future__ import annotations

import json
import os
import sys
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from gpiozero.pins.mock import MockPin  # type: ignore[import-untyped]

from kiothi_board.cli import main as cli_main
from kiothi_board.clock import FakeClock, SystemClock
from kiothi_board.config import SCHEMA, validate
from kiothi_board.hardware.link import CoprocessorLink
from kiothi_board.hardware.link_sim import SimulatedCoprocessor
from kiothi_board.hardware.pinmap import PIT_NAMES
from kiothi_board.store.sqlite import SqliteStore
from kiothi_board.tools.doctor import Doctor, report
from kiothi_board.tools.doctor_io import RawInputs
from tests.tools.pi_roots import pi5_root

PINS: list[int] = list(SCHEMA["board"]["pins"].default)
STUCK, DEAD, CROSSED, ANSWERS = "S3", "N1", "S5", "N6"  # pressing S5 makes N6's input answer
WAIT = 30.0


class RecordingPixels:
    """neopixel_spi.NeoPixel_SPI, recorded."""

    instances: list[RecordingPixels] = []  # noqa: RUF012

    def __init__(self, spi: object, n: int, **kwargs: Any) -> None:
        self.spi, self.n, self.kwargs = spi, n, kwargs
        self.buffer = [(0, 0, 0)] * n
        self.shown: list[list[tuple[int, int, int]]] = []
        self.instances.append(self)

    def __setitem__(self, i: int, colour: tuple[int, int, int]) -> None:
        self.buffer[i] = colour

    def show(self) -> None:
        self.shown.append(list(self.buffer))


class ShortedPin(MockPin):  # type: ignore[misc]
    """A pin shorted to ground (a jammed button): the pull-up cannot lift it."""

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        self.drive_low()


@pytest.fixture
def pi_root(tmp_path: Path) -> Path:
    """A fake / of a Pi 5 (a current kernel, Raspberry Pi OS's gpiochip4 link) with SPI
    enabled and spidev.bufsiz=32768 (the installer's)."""
    return pi5_root(tmp_path / "root")


@pytest.fixture
def fake_spi(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(sys.modules, "board", SimpleNamespace(SPI=lambda: "spi0"))
    monkeypatch.setitem(sys.modules, "neopixel_spi", SimpleNamespace(NeoPixel_SPI=RecordingPixels))
    RecordingPixels.instances.clear()
    yield


def gpio_prompt(factory: Any, asked: list[str]) -> Callable[[str], None]:
    """Plays the person at the board: presses (and releases) what the doctor asks for."""

    def prompt(text: str) -> None:
        name = text.removeprefix("press ")
        asked.append(name)
        if name == DEAD or name not in PIT_NAMES:
            return  # a broken wire: pressing N1 (or the control button) does nothing
        target = ANSWERS if name == CROSSED else name
        pin = factory.pin(PINS[PIT_NAMES.index(target)])
        pin.drive_low()
        pin.drive_high()

    return prompt


def test_doctor_finds_the_stuck_dead_and_crossed_pins_on_gpio(
    mock_factory: Any, clock: FakeClock, pi_root: Path, tmp_path: Path, fake_spi: None
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    SqliteStore(state / "games.sqlite3").close()
    mock_factory.pin(PINS[PIT_NAMES.index(STUCK)], pin_class=ShortedPin)  # jammed before the start
    config = validate({"board": {"input": "gpio"}, "leds": {"output": "neopixel"}})
    asked: list[str] = []
    pauses: list[float] = []
    doctor = Doctor(
        config,
        clock=clock,
        prompt=gpio_prompt(mock_factory, asked),
        wait=clock.advance,  # a dead pin's timeout passes at once
        pause=pauses.append,
        pin_factory=mock_factory,
        root=pi_root,
        state_dir=str(state),
        press_timeout=10.0,
    )
    start = clock.now()
    checks = {c.name: c for c in doctor.run()}
    assert checks["pits"].status == "fail"
    pits = checks["pits"].data["pits"]
    assert pits[STUCK] == "stuck" and pits[DEAD] == "dead" and pits[CROSSED] == f"crossed:{ANSWERS}"
    assert [n for n, r in pits.items() if r == "ok"] == [
        n for n in PIT_NAMES if n not in (STUCK, DEAD, CROSSED)
    ]
    assert STUCK not in asked and len(asked) == 19  # a stuck pit cannot be tested
    assert clock.now() - start == pytest.approx(10.0)  # only the dead pit waited its timeout
    detail = checks["pits"].detail
    assert (
        "17/20 inputs ok" in detail
        and "stuck (active at start): S3 (GPIO4, header pin 7)" in detail
    )
    assert "dead (never pressed): N1 (GPIO26, header pin 37)" in detail
    assert "S5 (GPIO27, header pin 13) (pressing it, N6 answered)" in detail
    # the other checks
    assert checks["pin map"].status == "ok" and "pi5" in checks["pin map"].detail
    assert checks["spi"].status == "ok" and "7808 SPI bytes" in checks["spi"].detail
    assert checks["store"].status == "ok" and "integrity ok" in checks["store"].detail
    assert checks["link"].status == "skip"
    assert checks["gpio"].detail == "pin factory MockFactory (injected)"
    assert checks["gpiochip"].detail.endswith("/dev/gpiochip4 (→ gpiochip0), the header's RP1")
    assert checks["i2c"].status == "ok" and "S1 (GPIO2, header pin 3, SDA1)" in checks["i2c"].detail
    # the LED walk: each ring alone, then all at the cap, then dark
    leds = checks["leds"]
    assert leds.status == "ok" and leds.data["all_ma"] == 9920 and leds.data["limited_ma"] <= 3000
    shown = RecordingPixels.instances[-1].shown
    assert len(shown) == 20 + 2 + 1  # 20 rings, all, dark, and the blanking close()
    for pit in range(20):
        lit = [i for i, c in enumerate(shown[pit]) if c != (0, 0, 0)]
        assert lit == list(range(16 * pit, 16 * pit + 16))
    assert RecordingPixels.instances[-1].kwargs["brightness"] == 0.5  # the cap
    assert pauses == [0.4] * 20 + [pytest.approx(1.2)]
    assert "FAILED: pits" in report(list(checks.values()))
    from gpiozero import DigitalInputDevice

    DigitalInputDevice(PINS[0], pull_up=True, pin_factory=mock_factory).close()  # released


def test_a_healthy_gpio_board_passes(mock_factory: Any, clock: FakeClock, pi_root: Path) -> None:
    (pi_root / "sys/module/spidev/parameters/bufsiz").write_text("32768\n")
    config = validate({"board": {"input": "gpio"}, "leds": {"output": "sim"}})
    asked: list[str] = []

    def prompt(text: str) -> None:
        asked.append(text)
        pin = mock_factory.pin(PINS[PIT_NAMES.index(text.removeprefix("press "))])
        pin.drive_low()
        pin.drive_high()

    checks = Doctor(
        config, clock=clock, prompt=prompt, wait=clock.advance, pin_factory=mock_factory,
        root=pi_root, state_dir=str(pi_root),
    ).run()  # fmt: skip
    statuses = {c.name: c.status for c in checks}
    assert statuses["pits"] == "ok" and statuses["leds"] == "skip" and statuses["spi"] == "skip"
    assert "fail" not in statuses.values() and len(asked) == 20 and clock.now() == 100.0


def until(inputs: RawInputs, predicate: Callable[[], bool]) -> None:
    """Wait (on the doctor's input events, never sleeping) until `predicate` holds."""
    for _ in range(1000):
        inputs.changed.clear()
        if predicate():
            return
        if not inputs.changed.wait(WAIT):
            break
    pytest.fail("the simulated press never reached the doctor")


@pytest.fixture
def simulator() -> Iterator[tuple[SimulatedCoprocessor, str]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    from kiothi_board.hardware.link_sim import FdPort

    device = SimulatedCoprocessor(FdPort(master), firmware=(0, 2, 0))
    try:
        yield device, os.ttyname(slave)
    finally:
        device.close()
        os.close(master)
        os.close(slave)


def test_doctor_over_the_coprocessor_simulator(
    simulator: tuple[SimulatedCoprocessor, str], clock: FakeClock, tmp_path: Path
) -> None:
    sim, port = simulator
    stuck_slot, dead_slot = PIT_NAMES.index(STUCK), PIT_NAMES.index(DEAD)
    sim.press(stuck_slot)  # held before the start: the first STATUS carries it
    config = validate({"board": {"input": "coprocessor", "port": port}, "leds": {"output": "sim"}})
    holder: list[Doctor] = []

    def prompt(text: str) -> None:
        name = text.removeprefix("press ")
        if name == DEAD:
            return
        if name.startswith("control "):
            slot = 20 + int(name.split()[1])
        else:
            slot = PIT_NAMES.index(ANSWERS if name == CROSSED else name)
        inputs = holder[0].inputs
        assert inputs is not None
        mark = inputs.mark()
        sim.press(slot)
        until(inputs, lambda: len(inputs.activations(mark)) > 0)
        sim.release(slot)
        until(inputs, lambda: not inputs.levels() >> slot & 1)

    doctor = Doctor(
        config,
        clock=clock,
        prompt=prompt,
        wait=clock.advance,
        pause=lambda _: None,
        link_factory=lambda p: CoprocessorLink(p, clock=SystemClock()),
        root=tmp_path,
        state_dir=str(tmp_path),
    )
    holder.append(doctor)
    checks = {c.name: c for c in doctor.run()}
    assert checks["link"].status == "ok"
    assert "firmware 0.2.0, protocol 1, 20 pits, 4 controls" in checks["link"].detail
    pits = checks["pits"].data["pits"]
    assert (pits[STUCK], pits[DEAD], pits[CROSSED]) == ("stuck", "dead", f"crossed:{ANSWERS}")
    assert sum(r == "ok" for r in pits.values()) == 21 and dead_slot == 10  # 17 pits, 4 controls
    assert "N1 (GP12, header pin 16)" in checks["pits"].detail
    assert checks["leds"].status == "skip" and checks["spi"].status == "skip"
    assert checks["store"].status == "skip"


def test_a_silent_coprocessor_fails_the_link_check(tmp_path: Path, clock: FakeClock) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        config = validate({"board": {"input": "coprocessor", "port": os.ttyname(slave)}})
        doctor = Doctor(
            config, clock=clock, prompt=lambda _: None, link_timeout=0.2,
            link_factory=lambda p: CoprocessorLink(p, clock=SystemClock()), root=tmp_path,
        )  # fmt: skip
        checks = {c.name: c for c in doctor.run(leds=False)}
        assert checks["link"].status == "fail" and "no answer" in checks["link"].detail
        assert checks["pits"].status == "fail"
    finally:
        os.close(master)
        os.close(slave)


def test_corrupt_store_fails(tmp_path: Path, clock: FakeClock) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)
    config = validate({"board": {"input": "sim"}, "leds": {"output": "sim"}})
    doctor = Doctor(config, clock=clock, prompt=lambda _: None, root=tmp_path,
                    state_dir=str(tmp_path))  # fmt: skip
    store = {c.name: c for c in doctor.run()}["store"]
    assert store.status == "fail" and "games.sqlite3" in store.detail


def test_cli_exit_codes_and_json(tmp_path: Path, capsys: Any) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[board]\ninput = "sim"\n[leds]\noutput = "sim"\n', encoding="utf-8")
    assert cli_main(["doctor", "--config", str(good), "--json", "--state-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and [c["name"] for c in out["checks"]][:3] == [
        "versions", "config", "pin map"
    ]  # fmt: skip
    pins = list(PINS)
    pins[4] = 10  # a pit on SPI0 MOSI: the LED data line
    bad = tmp_path / "bad.toml"
    bad.write_text(f'[board]\ninput = "sim"\npins = {pins}\n[leds]\noutput = "neopixel"\n')
    assert cli_main(["doctor", "--config", str(bad), "--no-press", "--no-leds"]) == 1
    text = capsys.readouterr().out
    assert (
        "board.pins[4] (S5): GPIO10 collides with SPI0 MOSI" in text and "FAILED: pin map" in text
    )
    assert cli_main(["doctor", "--config", str(tmp_path / "missing.toml")]) == 2


def test_pin_factory_check_wants_lgpio_on_a_pi5(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device

    from kiothi_board.tools.doctor_checks import pin_factory

    config = validate({"board": {"input": "gpio"}})
    LGPIOFactory = type("LGPIOFactory", (), {})
    RPiGPIOFactory = type("RPiGPIOFactory", (), {})
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(LGPIOFactory))
    assert pin_factory(config, "pi5", None).status == "ok"
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(RPiGPIOFactory))
    check = pin_factory(config, "pi5", None)
    assert check.status == "fail" and "RPiGPIOFactory on pi5" in check.detail
    assert pin_factory(config, "pi4", None).status == "ok"
    assert pin_factory(config, None, None).status == "skip"


def test_doctor_on_a_pi_without_the_bufsiz_fix_fails_with_the_fix(
    clock: FakeClock, pi_root: Path
) -> None:
    (pi_root / "sys/module/spidev/parameters/bufsiz").write_text("4096\n")
    config = validate({"board": {"input": "sim"}, "leds": {"output": "neopixel"}})
    doctor = Doctor(
        config, clock=clock, prompt=lambda _: None, root=pi_root, state_dir=str(pi_root)
    )
    checks = {c.name: c for c in doctor.run(press=False)}
    spi = checks["spi"]
    assert spi.status == "fail" and "7808 SPI bytes but spidev.bufsiz is 4096" in spi.detail
    assert "add spidev.bufsiz=32768" in spi.detail and "cmdline.txt" in spi.detail
    assert checks["leds"].status == "fail" and "spidev.bufsiz=32768" in checks["leds"].detail


@pytest.mark.parametrize(
    ("cmdline", "running", "fix"),
    [
        (
            "spidev.bufsiz=8192",
            8192,
            "/boot/firmware/cmdline.txt sets spidev.bufsiz=8192, too small: sudo "
            "scripts/install.sh raises it to 32768 (or change it to spidev.bufsiz=32768 "
            "yourself), then reboot",
        ),
        (
            "spidev.bufsiz=32768",
            4096,
            "/boot/firmware/cmdline.txt has spidev.bufsiz=32768, which the running kernel did "
            "not read: reboot",
        ),
        ("", 4096, "add spidev.bufsiz=32768 to the single line of /boot/firmware/cmdline.txt"),
    ],
)
def test_the_bufsiz_fix_says_what_the_installer_does(
    clock: FakeClock, pi_root: Path, cmdline: str, running: int, fix: str
) -> None:
    """Issue 30 item 13: with a smaller bufsiz in cmdline.txt the fix said to add one."""
    (pi_root / "sys/module/spidev/parameters/bufsiz").write_text(f"{running}\n")
    (pi_root / "boot/firmware").mkdir(parents=True)
    (pi_root / "boot/firmware/cmdline.txt").write_text(f"console=tty1 {cmdline} rootwait\n")
    config = validate(
        {"board": {"input": "sim"}, "leds": {"output": "neopixel", "leds_per_ring": 24}}
    )
    doctor = Doctor(
        config, clock=clock, prompt=lambda _: None, root=pi_root, state_dir=str(pi_root)
    )
    spi = {c.name: c for c in doctor.run(leds=False, press=False)}["spi"]
    assert spi.status == "fail" and f"11648 SPI bytes but spidev.bufsiz is {running}" in spi.detail
    assert spi.detail.endswith(fix) or f"{fix} and reboot" in spi.detail


@pytest.mark.parametrize("first", ["S7", "S8"])
def test_a_short_is_found_whichever_edge_comes_first(
    mock_factory: Any, clock: FakeClock, pi_root: Path, first: str
) -> None:
    config = validate({"board": {"input": "gpio", "control_pins": [18]}, "leds": {"output": "sim"}})
    shorted = ("S7", "S8")
    asked: list[str] = []

    def prompt(text: str) -> None:
        name = text.removeprefix("press ")
        asked.append(name)
        if name == "control 0":
            return  # a dead control button
        wires = [name] if name not in shorted else sorted(shorted, key=lambda n: n != first)
        pins = [mock_factory.pin(PINS[PIT_NAMES.index(w)]) for w in wires]
        for pin in pins:
            pin.drive_low()
        for pin in pins:
            pin.drive_high()

    checks = Doctor(
        config, clock=clock, prompt=prompt, wait=clock.advance, pin_factory=mock_factory,
        root=pi_root, state_dir=str(pi_root),
    ).run()  # fmt: skip
    pits = checks[-1]
    assert pits.status == "fail" and asked[-1] == "control 0"
    assert pits.data["pits"]["S7"] == "short:S8" and pits.data["pits"]["S8"] == "short:S7"
    assert pits.data["pits"]["control 0"] == "dead"
    assert (
        "shorted (active together): S7 (GPIO5, header pin 29) with S8 (GPIO6, header pin 31)"
        in pits.detail
    )
    assert "dead (never pressed): control 0 (GPIO18, header pin 12)" in pits.detail
    assert "18/21 inputs ok" in pits.detail  # S7, S8 and the control button fail


def test_help_is_for_the_person_at_the_keyboard(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        cli_main(["doctor", "--help"])
    text = capsys.readouterr().out
    assert "sudo systemctl stop kiothi-board" in text and "examples:" in text
    assert "stop the service first, run\nit with sudo" in text
    for option in ("--config FILE", "--no-leds", "--no-press", "--timeout S", "--state-dir DIR"):
        assert option in text
    for internal in ("MockFactory", "inject", "test", "fake", "simulator", "sleeping"):
        assert internal not in text.lower()


def test_doctor_off_a_pi_skips_the_pits_or_names_the_fix(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 item 18: off a Pi `doctor` said "pits fail … Unable to load any default pin
    factory!" with no fix; `auto` runs the simulator there (skip), `gpio` fails with the fix."""
    from gpiozero import Device

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "kiothi-no-such-factory")
    monkeypatch.setattr(Device, "pin_factory", None)
    found = {}
    for choice in ("auto", "gpio"):
        config = validate({"board": {"input": choice}, "leds": {"output": "sim"}})
        doctor = Doctor(config, clock=clock, prompt=lambda _: None, root=tmp_path,
                        state_dir=str(tmp_path))  # fmt: skip
        found[choice] = {c.name: c for c in doctor.run(leds=False)}["pits"]
    assert found["auto"].status == "skip" and "simulator" in found["auto"].detail
    assert found["gpio"].status == "fail", found["gpio"]
    assert "pin factory" not in found["gpio"].detail and "pip install lgpio" in found["gpio"].detail
