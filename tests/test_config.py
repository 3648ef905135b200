"""The daemon's TOML configuration: defaults, validation errors naming file, key and reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kiothi_board.config import SCHEMA, default_state_dir, load, validate
from kiothi_board.errors import ConfigError
from tests.refusals import refused_at_start


def test_defaults_cover_every_key() -> None:
    config = load(None)
    for section, keys in SCHEMA.items():
        assert set(config[section]) == set(keys)
    assert config["game"]["level"] == 2 and config["api"]["host"] == "127.0.0.1"


def test_the_adaptive_level_is_a_level(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[game]\nlevel = "adaptive"\n')
    assert load(path)["game"]["level"] == "adaptive"


def test_a_file_overrides_defaults(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[game]\nlevel = 5\npace = "flow"\n[api]\ntoken = "s3cret-s3cret-s3cret"\n')
    config = load(path)
    assert config["game"]["level"] == 5 and config["game"]["pace"] == "flow"
    assert config["board"]["pull_up"] is True
    assert config.as_dict()["api"]["token"] == "***", "the token is never shown"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[game]\nlevel = 10\n", 'game.level = 10: must be an integer from 1 to 9 or "adaptive"'),
        ("[game]\nlevel = true\n", "game.level = True: must be int"),
        (
            '[game]\nlevel = "hard"\n',
            "game.level = 'hard': must be an integer from 1 to 9 or \"adaptive\"",
        ),
        ('[game]\npace = "fast"\n', "game.pace = 'fast': must be one of 'step', 'flow'"),
        ("[gmae]\nlevel = 1\n", "unknown section [gmae]"),
        ("[game]\nlevle = 1\n", "unknown key game.levle"),
        ("[board]\npins = [1, 2]\n", "must list exactly 20 pins, got 2"),
        ("game = 3\n", "[game] must be a table"),
        ("[game\n", "not valid TOML"),
    ],
)
def test_bad_files_name_the_file_the_key_and_the_reason(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load(path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load(tmp_path / "none.toml")


def test_state_dir_follows_systemd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/kiothi-board")
    assert default_state_dir() == "/var/lib/kiothi-board"
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_STATE_HOME", "/tmp/xdg")
    assert default_state_dir() == "/tmp/xdg/kiothi-board"


def test_validate_accepts_an_empty_document() -> None:
    assert validate({})["store"]["backend"] == "sqlite"


def test_the_level_range_is_the_ai_s_and_reading_a_config_does_not_load_the_ai() -> None:
    """The config checks a level with `LevelChoice` (the one reader of "adaptive"), yet a
    tool that reads the config but never plays loads only the ladder: no search, no
    evaluation, no rules."""
    from kiothi_board import config
    from kiothi_board.ai.levels import MAX_LEVEL

    assert config.MAX_LEVEL == MAX_LEVEL  # the config's bound is the ladder's
    probe = (
        "import sys, kiothi_board.config as c; c.validate({'game': {'level': 'adaptive'},"
        " 'exhibit': {'level': 4}}); print(sorted(m for m in sys.modules"
        " if m.startswith('kiothi_board.ai.') or m.startswith('kiothi_board.rules')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['kiothi_board.ai.eyes', 'kiothi_board.ai.levels']"


def test_every_table_has_typed_settings_with_the_schemas_keys() -> None:
    """`config.board` … `config.exhibit`: one field per key, the same defaults as the schema
    (issue 33: `[mqtt]` and `[exhibit]` were read by key name in the daemon and its rooms)."""
    from dataclasses import fields

    from kiothi_board.config import SCHEMA, validate

    config = validate({})
    for name in ("board", "leds", "game", "store", "daemon", "mqtt", "exhibit"):
        typed = getattr(config, name)
        assert [f.name for f in fields(typed)] == list(SCHEMA[name]), name
        for key, spec in SCHEMA[name].items():
            value = getattr(typed, key)
            want = tuple(spec.default) if isinstance(spec.default, list) else spec.default
            assert value == want, (name, key)
    assert validate({"game": {"level": "adaptive"}}).game.level == "adaptive"
    mqtt = validate({"mqtt": {"url": "mqtt://h", "password": "hunter2-secret",
                              "staff_users": ["ops"]}}).mqtt  # fmt: skip
    assert mqtt.url == "mqtt://h" and mqtt.staff_users == ("ops",)
    assert "hunter2-secret" not in repr(mqtt)
    exhibit = validate({"exhibit": {"opening_hours": ["daily 10:00-18:00"], "level": 3}}).exhibit
    assert exhibit.opening_hours == ("daily 10:00-18:00",) and exhibit.level == 3


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"mqtt": {"keepalive": "soon"}}, "mqtt.keepalive"),
        ({"mqtt": {"staff_users": ["a/b"]}}, "mqtt.staff_users"),
        ({"exhibit": {"idle_s": 1}}, "exhibit.idle_s"),
        ({"exhibit": {"pace": "fast"}}, "exhibit.pace"),
    ],
)
def test_typed_mqtt_and_exhibit_errors_still_name_the_key(
    table: dict[str, dict[str, object]], said: str
) -> None:
    from kiothi_board.config import validate

    with pytest.raises(ConfigError, match=said.replace(".", r"\.")):
        validate(table)


@pytest.mark.parametrize(
    "nested", ["a = " + "[" * 50_000 + "]" * 50_000, "a = " + "{b = " * 5_000 + "1" + "}" * 5_000]
)
def test_a_deeply_nested_config_is_a_one_line_error(tmp_path: Path, nested: str) -> None:
    """Issue 21: the old code printed a RecursionError traceback."""
    path = tmp_path / "deep.toml"
    path.write_text(nested + "\n")
    with pytest.raises(ConfigError, match=r"deep.toml: not a config: values nested too deeply"):
        load(path)
    assert "nested too deeply" in refused_at_start(path, tmp_path / "state")
