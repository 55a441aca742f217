"""The configuration file: locations, defaults, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import pin
from companion.config import Config, ConfigError, load_config, parse_config, save_config

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
    monkeypatch.delenv("CLANK_CONFIG", raising=False)
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


# ------------------------------------------------------------------ numbers, text, the PIN
@pytest.mark.parametrize("key", ["gone_after", "window"])
@pytest.mark.parametrize("value", ["nan", "inf", "+inf", "-inf", "-nan", "1e400", "9" * 400])
def test_seconds_that_are_not_a_finite_number_are_refused(key, value):
    with pytest.raises(ConfigError, match=rf"^test\.toml \[reader\]\.{key}: expected a finite"):
        parse_config(f"[reader]\n{key} = {value}", "test.toml")


def test_a_file_that_is_not_utf8_is_refused_with_its_name(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes('[app]\nlanguage = "es"\n# año\n'.encode("latin-1"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: line 3 is not UTF-8 text (byte 0xf1)"


def test_a_command_survives_a_config_file_that_is_not_utf8(tmp_path, monkeypatch, capsys):
    """Every command read the configuration for its language and died of it."""
    from companion.cli import main
    from companion.store import GameStore

    GameStore(tmp_path / "games.db").close()
    path = tmp_path / "config.toml"
    path.write_bytes(b'[app]\nlanguage = "\xff"\n')
    monkeypatch.setenv("CLANK_CONFIG", str(path))
    assert main(["games", "--db", str(tmp_path / "games.db")]) == 0
    monkeypatch.setenv("CLANK_READER", "")
    assert main(["scan", "--db", str(tmp_path / "games.db")]) == 2  # it needs the file
    assert "line 2 is not UTF-8 text" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "shown"),
    [('""', "''"), ('"12a4"', "'12a4'"), ('"123456789"', "'123456789'"), ("1234", None)],
)
def test_an_admin_pin_that_is_not_one_to_eight_digits_is_refused(value, shown):
    with pytest.raises(ConfigError) as caught:
        parse_config(f"[app]\nadmin_pin = {value}", "test.toml")
    message = str(caught.value)
    assert message.startswith("test.toml [app].admin_pin: ")
    if shown is not None:
        assert message.endswith(f": the admin PIN must be 1 to 8 digits, got {shown}")


@pytest.mark.parametrize("value", ['""', '"2468"', '"scrypt$16384$8$1$00$00"', "7"])
def test_an_admin_pin_hash_that_is_not_one_is_refused(value):
    with pytest.raises(ConfigError, match=r"^test\.toml \[app\]\.admin_pin_hash: "):
        parse_config(f"[app]\nadmin_pin_hash = {value}", "test.toml")


def test_the_admin_pin_is_kept_as_a_hash_and_an_old_plain_pin_still_works(tmp_path):
    assert Config().app.pin_matches("2468")  # no PIN in any file: the default
    path = tmp_path / "config.toml"
    path.write_text('[app]\nadmin_pin = "97531"\nlanguage = "es"\n')
    old = load_config(path)
    assert old.app.pin_matches("97531") and not old.app.pin_matches("2468")
    save_config(old)  # the next save writes the hash instead
    text = path.read_text()
    assert "97531" not in text and "admin_pin =" not in text
    new = load_config(path)
    assert new.app.admin_pin == "" and pin.is_pin_hash(new.app.admin_pin_hash)
    assert new.app.pin_matches("97531") and not new.app.pin_matches("2468")
    assert new.app.language == "es"
    save_config(new)
    assert load_config(path) == new  # the hash is kept as it is, not made again
    defaults = tmp_path / "defaults.toml"
    save_config(Config(), defaults)
    assert load_config(defaults).app.pin_matches("2468")


# ------------------------------------------------------------------ fuzzing
KEYS = ("spec", "window", "gone_after", "language", "database", "fullscreen", "admin_pin",
        "admin_pin_hash", "end_turn", "undo", "buzzer", '"k\\u2028"', "x")  # fmt: skip
VALUES = ("nan", "-inf", "1e400", "0", "-1", "0.5", "27", "28", "true", '""', '"2468"',
          '"fake"', '"mfrc522:0.0"', '"x\\ny"', "[1, 2]", "{a = 1}", "0x" + "f" * 4000,
          "9" * 5000, "1979-05-27", '"12345678"', "'123456789'")  # fmt: skip
HEADS = ("[reader]", "[gpio]", "[app]", "[app.x]", "[[app]]", '["a\\nb"]', "[\u2028]")
PIECES = (*KEYS, *VALUES, *HEADS, *"[]{}=\"'.,#\n \t-+_:0123456789aefinx", "\u2028", "\x85",
          "\r", "\x00", "é", "\ud800")  # fmt: skip
# TOML-ish: lines of known sections, keys and values, or a soup of their pieces
LINE = st.builds("{} = {}".format, st.sampled_from(KEYS), st.sampled_from(VALUES))
LINES = st.lists(st.sampled_from(HEADS) | LINE, max_size=8).map("\n".join)
SOUP = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
TEXTS = st.one_of(LINES, SOUP, st.text(max_size=80))
FIXTURE_HEALTH = HealthCheck.function_scoped_fixture  # tmp_path: each example rewrites the file
FILES = st.one_of(st.binary(max_size=200), TEXTS.map(lambda t: t.encode("utf-8", "surrogatepass")))


def _one_config_or_a_one_line_error(load) -> None:
    try:
        result = load()
    except ConfigError as e:
        for message in (str(e), e.localized()):
            assert message and message.splitlines() == [message], message
        return
    assert isinstance(result, Config)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_fuzz_text_gives_a_config_or_a_one_line_config_error(text):
    _one_config_or_a_one_line_error(lambda: parse_config(text, "fuzz.toml"))


@settings(max_examples=200, deadline=None, suppress_health_check=[FIXTURE_HEALTH])
@given(FILES)
def test_fuzz_files_give_a_config_or_a_one_line_config_error(tmp_path, data):
    path = tmp_path / "fuzz.toml"
    path.write_bytes(data)
    _one_config_or_a_one_line_error(lambda: load_config(path))


# ------------------------------------------------------------------ CLANK_CONFIG, a BOM
def test_clank_config_naming_a_missing_file_is_an_error(monkeypatch, tmp_path):
    missing = tmp_path / "absent.toml"
    monkeypatch.setenv("CLANK_CONFIG", str(missing))
    with pytest.raises(ConfigError) as caught:
        load_config()
    assert str(caught.value) == f"CLANK_CONFIG names {missing}, which does not exist"


def test_clank_config_naming_a_folder_is_an_error(monkeypatch, tmp_path):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path))
    with pytest.raises(ConfigError, match=r"^CLANK_CONFIG names .*, which is a folder"):
        load_config()


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_clank_config_is_no_file(monkeypatch, tmp_path, blank):
    monkeypatch.setenv("CLANK_CONFIG", blank)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setattr("companion.config.SYSTEM_FILE", tmp_path / "etc.toml")
    assert load_config() == Config()


def test_a_command_says_when_clank_config_names_nothing(monkeypatch, tmp_path, capsys):
    from companion.cli import main

    monkeypatch.setattr("companion.cli.tags._run_reader", lambda *a, **k: 0)  # never waits
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "absent.toml"))
    assert main(["scan", "--db", str(tmp_path / "games.db")]) == 2
    err = capsys.readouterr().err
    assert err == f"CLANK_CONFIG names {tmp_path / 'absent.toml'}, which does not exist\n"


def test_a_file_saved_with_a_bom_is_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b'\xef\xbb\xbf[app]\nlanguage = "es"\n')
    assert load_config(path).app.language == "es"


# ------------------------------------------------------------------ the database
@pytest.fixture
def no_files(monkeypatch, tmp_path):
    """No configuration file and no $CLANK_DB; the data folder under tmp_path."""
    monkeypatch.delenv("CLANK_CONFIG", raising=False)
    monkeypatch.delenv("CLANK_DB", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr("companion.config.SYSTEM_FILE", tmp_path / "etc.toml")
    return tmp_path


def test_clank_db_with_a_tilde_means_the_home_folder(no_files, monkeypatch):
    from companion.cli import default_db

    monkeypatch.setenv("HOME", str(no_files / "home"))
    monkeypatch.setenv("CLANK_DB", "~/x.db")
    assert default_db() == no_files / "home" / "x.db"
    assert Config().database == no_files / "home" / "x.db"


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_a_blank_clank_db_is_ignored(no_files, monkeypatch, blank):
    from companion.cli import default_db

    monkeypatch.setenv("CLANK_DB", blank)
    expected = no_files / "data" / "clank-companion" / "games.db"
    assert default_db() == expected and Config().database == expected


def test_clank_db_then_the_configuration_then_the_data_folder(no_files, monkeypatch):
    from companion.cli import default_db

    config = no_files / "config" / "clank-companion" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[app]\ndatabase = "~/table.db"\n', encoding="utf-8")
    monkeypatch.setenv("HOME", str(no_files / "home"))
    assert default_db() == no_files / "home" / "table.db"
    assert load_config().database == no_files / "home" / "table.db"
    monkeypatch.setenv("CLANK_DB", str(no_files / "override.db"))  # an explicit override
    assert default_db() == no_files / "override.db"
    assert load_config().database == no_files / "override.db"
    monkeypatch.delenv("CLANK_DB")
    config.write_text('[app]\ndatabase = ""\n', encoding="utf-8")
    assert default_db() == no_files / "data" / "clank-companion" / "games.db"
