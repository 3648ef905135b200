"""The documents hold to what ships: the rules they cite are in docs/rules.md, and
install.md's way onto the board over the network names the real config keys and defaults."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from kiothi_board.config import SCHEMA, validate

ROOT = Path(__file__).parent.parent
RULES = ROOT / "docs" / "rules.md"
INSTALL = ROOT / "docs" / "install.md"
DOCS = [
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "README.md",
    ROOT / "hardware" / "README.md",
    ROOT / "firmware" / "README.md",
]
RULE_ID = re.compile(r"\b([RV])(\d+)\b")
NETWORK_KEYS = {"web_host", "host_names", "token", "staff_pin"}


def defined_rules() -> set[str]:
    """The rule and variant ids docs/rules.md defines (`**R5.**`, `*V3:*`)."""
    text = RULES.read_text(encoding="utf-8")
    return {m.group(1) for m in re.finditer(r"(?:\*\*|\*)([RV]\d+)[.:]", text)}


def test_the_rules_are_shipped_whole() -> None:
    wanted = {f"R{k}" for k in range(1, 14)} | {f"V{k}" for k in range(1, 9)}
    assert defined_rules() == wanted


def test_every_rule_a_doc_cites_is_in_the_shipped_rules() -> None:
    defined = defined_rules()
    missing = []
    for doc in DOCS:
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in RULE_ID.finditer(line):
                if m.group(0) not in defined:
                    missing.append(f"{doc.relative_to(ROOT)}:{n}: {m.group(0)}")
    assert not missing, missing


def test_every_doc_links_the_shipped_rules_and_none_a_path_outside() -> None:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        name = doc.relative_to(ROOT)
        assert "RULES.md" not in text, f"{name} cites RULES.md, which is not in the repository"
        if doc != RULES and RULE_ID.search(text):
            assert re.search(r"\]\((?:\.\./)*(?:docs/)?rules\.md(?:#[\w-]+)?\)", text), (
                f"{name} cites rules without linking docs/rules.md"
            )


def network_section() -> str:
    text = INSTALL.read_text(encoding="utf-8")
    found = re.search(r"^## \d+\. Reaching the board .*?(?=^## )", text, re.M | re.S)
    assert found, "install.md has a step that reaches the board over the network"
    return found.group(0)


def test_install_names_the_real_network_keys_with_their_defaults() -> None:
    section = network_section()
    documented = dict(re.findall(r"`api\.(\w+)` \(default `([^`]*)`", section))
    assert set(documented) >= NETWORK_KEYS, f"install.md names {sorted(documented)}"
    for key, shown in documented.items():
        assert key in SCHEMA["api"], f"install.md names api.{key}, which the config lacks"
        default = tomllib.loads(f"v = {shown}")["v"]
        assert default == SCHEMA["api"][key].default, f"api.{key}: doc {shown}"


def test_install_example_is_a_valid_config_and_says_where_the_code_is_kept() -> None:
    section = network_section()
    block = re.search(r"```toml\n(.*?)```", section, re.S)
    assert block, "install.md shows the [api] table to write"
    table = tomllib.loads(block.group(1))
    assert set(table["api"]) >= NETWORK_KEYS
    validate(table, "install.md")  # raises ConfigError naming the key if it is wrong
    assert "Where the access code is kept" in section
    assert "/etc/kiothi-board/config.toml" in section


def test_every_doctor_line_names_the_config() -> None:
    for doc in (ROOT / "README.md", INSTALL):
        for line in doc.read_text(encoding="utf-8").splitlines():
            if re.search(r"kiothi-board doctor(?! --help)\b", line):
                assert "--config" in line, f"{doc.name}: {line.strip()}"


def test_hardware_readme_names_the_config_keys_not_the_python_parameters() -> None:
    """Issue 31 item 16: the wiring prose named `debounce`, `hold_time`, `stuck_time` (the
    driver's parameters) where a builder sets `board.debounce_ms`, `board.hold_s`, …"""
    import inspect

    from kiothi_board.hardware.gpio import GpioPitInput

    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)  # code blocks are Python
    params = set(inspect.signature(GpioPitInput.__init__).parameters) - {"self", "clock"}
    named = {m.split("=")[0].strip() for m in re.findall(r"`([a-z_]+\s*=?[^`]*)`", prose)}
    assert not named & params, f"hardware/README.md names parameters {sorted(named & params)}"
    found = re.findall(r"`board\.(\w+)`[^`]*?default (\d+(?:\.\d+)?) (?:ms|s)\b", prose)
    keys = dict(found)
    assert {"debounce_ms", "hold_s", "stuck_s"} <= set(keys), keys
    for key in re.findall(r"`board\.(\w+)", prose):
        assert key in SCHEMA["board"], f"hardware/README.md names board.{key}: no such key"
    for key, shown in keys.items():
        assert float(shown) == float(SCHEMA["board"][key].default), f"board.{key}: {shown}"
