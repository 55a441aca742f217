"""The configuration file: locations, defaults, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import Config, ConfigError, load_config, parse_config

GOOD = """
[reader]
spec = "rdm6300:/dev/serial0"
window = 2

[gpio]
end_turn = 23

[app]
language = "uk"
database = "/var/lib/clank-companion/games.db"
"""


def test_defaults_run_the_simulated_table(monkeypatch, tmp_path):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setattr("companion.config.SYSTEM_FILE", tmp_path / "etc.toml")
    monkeypatch.setenv("CLANK_DB", str(tmp_path / "g.db"))
    config = load_config()
    assert config == Config()
    assert config.simulated and config.database == tmp_path / "g.db"


def test_a_full_file():
    config = parse_config(GOOD, "test.toml")
    assert config.reader.spec == "rdm6300:/dev/serial0" and config.reader.window == 2.0
    assert config.gpio.end_turn == 23 and config.gpio.undo == 6
    assert config.app.language == "uk" and not config.simulated
    assert config.database == Path("/var/lib/clank-companion/games.db")


def test_the_first_file_found_wins(monkeypatch, tmp_path):
    user = tmp_path / "clank-companion"
    user.mkdir()
    (user / "config.toml").write_text('[app]\nlanguage = "es"\n')
    monkeypatch.delenv("CLANK_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert load_config().app.language == "es"
    mine = tmp_path / "mine.toml"
    mine.write_text('[app]\nlanguage = "ru"\n')
    monkeypatch.setenv("CLANK_CONFIG", str(mine))
    assert load_config().source == str(mine)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[reader\nspec = 1", "test.toml: "),
        ("[screen]\nsize = 7", "unknown section \\[screen\\]"),
        ("[reader]\nkind = 'mfrc522'", "unknown key 'kind'"),
        ("[reader]\nwindow = 'long'", "reader\\].window: expected a number"),
        ("[gpio]\nundo = 6.5", "whole number"),
        ("[gpio]\nundo = 5", "distinct"),
        ("[gpio]\nbuzzer = 40", "0 to 27"),
        ("[app]\nlanguage = 'fr'", "language must be one of"),
        ("[reader]\ngone_after = 0", "gone_after must be positive"),
    ],
)
def test_bad_files_are_named_clearly(text, reason):
    with pytest.raises(ConfigError, match=reason):
        parse_config(text, "test.toml")


def test_an_unreadable_file(tmp_path):
    with pytest.raises(ConfigError, match="Is a directory"):
        load_config(tmp_path)
