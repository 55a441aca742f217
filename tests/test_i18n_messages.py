"""Messages made in one place and read in another: the engine's refusals, the tag
registry, the store, the conditional VP and the command line say English to scripts and
logs (``str()``) and the table's language on screen (``localized()``)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from companion import i18n
from companion.cli import main
from companion.i18n import NN_, Msg, Name
from companion.kinds.clank.rules import Game, RuleError
from companion.store import GameStore, StoreError
from companion.store.tags import BulkEnrollment, TagError, TagRegistry, components, resolve
from tests.helpers import new_game

ROOT = Path(__file__).resolve().parent.parent
CYRILLIC = re.compile(r"[а-яіїєґ]", re.IGNORECASE)


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


# ---------------------------------------------------------------- marked at the source
MESSAGE_CLASSES = {"RuleError", "TagError", "StoreError", "ConfigError", "Refusal", "Msg"}


def test_every_refusal_and_message_is_made_from_a_marked_template():
    """An f-string or a bare literal would escape the catalogs (extraction reads only
    N_, EN_ and NN_): the template of every such call is a marked string or a name."""
    unmarked = []
    for path in sorted((ROOT / "companion").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in MESSAGE_CLASSES or not node.args:
                continue
            template = node.args[0]
            literal = isinstance(template, ast.JoinedStr | ast.Constant)
            marked = (
                isinstance(template, ast.Call)
                and isinstance(template.func, ast.Name)
                and template.func.id in ("N_", "EN_", "NN_")
            )
            if literal or (isinstance(template, ast.Call) and not marked):
                unmarked.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not unmarked, unmarked


# ---------------------------------------------------------------- the engine
def game(edition: str = "clank") -> Game:
    return new_game(edition)


def refusal(g: Game, action: dict) -> RuleError:
    with pytest.raises(RuleError) as caught:
        g.apply(action)
    return caught.value


BAD_ACTIONS = [
    {"do": "take", "card": "Excalibur"},
    {"do": "take", "card": "Sneak"},
    {"do": "clank", "player": "pink", "n": 1},
    {"do": "clank", "player": "red", "n": 0},
    {"do": "escape", "player": "red"},
    {"do": "gold", "player": "red", "n": -3},
    {"do": "buy", "player": "red", "item": "backpack"},
    {"do": "secret", "player": "red", "name": "ruby"},
    {"do": "ghost"},
    {"do": "undo"},
    {"do": "fly"},
    {"do": "clank", "player": "red", "n": "2"},
]


@pytest.mark.parametrize("lang", ["ru", "uk", "es"])
def test_the_engine_refuses_in_the_tables_language_and_in_english_for_scripts(lang):
    english = [str(refusal(game(), a)) for a in BAD_ACTIONS]
    i18n.set_language(lang)
    for action, before in zip(BAD_ACTIONS, english, strict=True):
        e = refusal(game(), action)
        assert str(e) == before  # scripts, logs and the replay's errors stay English
        shown = e.localized("clank")
        assert shown and shown != before and "{" not in shown, (action, shown)
        if lang != "es":
            assert CYRILLIC.search(shown), (action, shown)
    e = refusal(game(), {"do": "take", "card": "Excalibur"})
    assert "'Excalibur'" in e.localized()  # the card's name is the catalog's


def test_the_action_word_starts_the_english_and_not_the_screen():
    e = refusal(game(), {"do": "escape", "player": "red"})
    assert str(e) == "escape: red carries no artifact"
    assert e.during == "escape" and e.localized() == "red carries no artifact"
    i18n.set_language("ru")
    assert "красный" in e.localized() and not e.localized().startswith("escape")


def test_refusals_use_the_editions_words():
    def in_the_depths(edition: str) -> RuleError:
        g = game(edition)
        g.apply({"do": "depths", "player": "red", "in": True})
        g.apply({"do": "artifact", "player": "red", "value": 20})
        return refusal(g, {"do": "escape", "player": "red"})

    base, catacombs = in_the_depths("clank"), in_the_depths("catacombs")
    assert str(base) == str(catacombs)
    i18n.set_language("ru")
    assert "Глубин" in base.localized("clank")  # clank-base.ru.txt 394-396
    assert "недр" in catacombs.localized("catacombs")  # clank-catacombs.ru.txt 42


@pytest.mark.parametrize(
    ("lang", "forms"),
    [
        ("ru", {1: "карт", 2: "карты", 5: "карт", 11: "карт", 21: "карт", 22: "карты"}),
        ("uk", {1: "карт", 2: "карти", 5: "карт", 11: "карт", 21: "карт", 22: "карти"}),
    ],
)
def test_plural_refusals_take_the_form_of_their_number(lang, forms):
    i18n.set_language(lang)
    template = NN_("the dungeon row holds {n} card", "the dungeon row holds {n} cards")
    shown = {n: Msg(template, n=n).localized() for n in forms}
    for n, stem in forms.items():
        assert f"{n} {stem}" in shown[n], shown[n]
    assert shown[1] != shown[2] != shown[5]  # three forms
    assert shown[1].replace("1", "21") == shown[21]
    assert shown[2].replace("2", "22") == shown[22]
    assert shown[5].replace("5", "11") == shown[11]
    assert str(Msg(template, n=1)) == "the dungeon row holds 1 card"
    assert str(Msg(template, n=22)) == "the dungeon row holds 22 cards"


def test_a_plural_message_needs_its_number():
    with pytest.raises(TypeError):
        Msg(NN_("{n} cube", "{n} cubes"))


def test_player_names_inside_messages_are_the_colour_words():
    msg = Msg(i18n.N_("{player} carries no artifact"), player=Name("blue"))
    assert str(msg) == "blue carries no artifact"
    i18n.set_language("es")
    assert "azul" in msg.localized()


# ---------------------------------------------------------------- tags and store
def test_tag_messages_and_components_in_the_tables_language(tmp_path):
    store = GameStore(tmp_path / "games.db")
    try:
        registry = TagRegistry(store.db)
        egg = resolve("minor_secret", "catacombs", "dragon egg")
        registry.bind("04AA", egg)
        with pytest.raises(TagError) as caught:
            registry.bind("04AA", resolve("card", "catacombs", "Secret Tome"))
        english = str(caught.value)
        assert english.startswith("tag 04AA is already minor secret dragon egg (catacombs)")
        walk = BulkEnrollment(registry, components("clank", ("card",), ("dungeon",)))
        i18n.set_language("ru")
        assert str(caught.value) == english
        shown = caught.value.localized()
        assert "04AA" in shown and "dragon egg" in shown and CYRILLIC.search(shown)
        assert "Катакомбы" in egg.localized() and "маленьк" in egg.localized()
        progress = walk.progress().localized()
        assert progress.startswith("1 ") and CYRILLIC.search(progress)
        assert str(walk.progress()).startswith("1 of ")
    finally:
        store.close()


def test_store_refusals_in_the_tables_language(tmp_path):
    folder = tmp_path / "a folder"
    folder.mkdir()
    with pytest.raises(StoreError) as caught:
        GameStore(folder)
    assert str(caught.value) == f"{folder} is a folder, not a database file"
    i18n.set_language("uk")
    shown = caught.value.localized()
    assert str(folder) in shown and CYRILLIC.search(shown)


# ---------------------------------------------------------------- conditional VP
def test_conditional_vp_is_explained_in_the_tables_language():
    g = game()
    g.apply({"do": "artifact", "player": "red", "value": 20})
    g.apply({"do": "gold", "player": "red", "n": 11})
    g.apply({"do": "escape", "player": "red"})
    g.apply({"do": "cards", "player": "red", "cards": ["The Duke", "Dragon's Eye"]})
    score = g.scores()["red"]
    assert score.notes == ["The Duke: 1 per 5 gold = 2", "Dragon's Eye: 10 if mastery >= 1 = 10"]
    assert [c.localized("clank") for c in score.conditional] == [
        "The Duke: 1 VP per 5 gold = 2",
        "Dragon's Eye: 10 VP if mastery token at least 1 = 10",
    ]
    i18n.set_language("ru")
    shown = [c.localized("clank") for c in score.conditional]
    assert shown[0].startswith("The Duke: ") and shown[0].endswith(" = 2")
    assert all(CYRILLIC.search(line) for line in shown), shown


# ---------------------------------------------------------------- the command line
def cli(capsys, monkeypatch, lang: str, *args: str) -> tuple[int, str, str]:
    monkeypatch.setenv("LANG", {"en": "C.UTF-8", "ru": "ru_RU.UTF-8", "uk": "uk_UA.UTF-8",
                                "es": "es_ES.UTF-8"}[lang])  # fmt: skip
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_command_line_speaks_the_system_language(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "absent.toml"))
    script = tmp_path / "game.jsonl"
    script.write_text(
        json.dumps({"new": {"edition": "catacombs", "players": ["red", "blue"]}})
        + "\n"
        + json.dumps({"do": "escape", "player": "red"})
        + "\n"
    )
    code, out, err = cli(capsys, monkeypatch, "en", "replay", str(script))
    assert code == 2 and err == "line 2: escape: red carries no artifact\n"
    code, out, err = cli(capsys, monkeypatch, "ru", "replay", str(script))
    assert code == 2 and "escape: " in err and "красный" in err and CYRILLIC.search(err)
    assert "line 2" not in err

    code, out, err = cli(capsys, monkeypatch, "uk", "replay", str(script), "--keep-going")
    assert code == 0 and CYRILLIC.search(out)
    code, out, err = cli(capsys, monkeypatch, "uk", "replay", str(script), "--keep-going", "--json")
    state = json.loads(out)  # the machine's output is the contract's, in any language
    assert state["errors"] == [{"line": 2, "reason": "escape: red carries no artifact"}]

    db = tmp_path / "games.db"
    GameStore(db).close()  # `games` only reads: it creates no database
    code, out, err = cli(capsys, monkeypatch, "es", "games", "--db", str(db))
    assert code == 0 and str(db) in out and "no games" not in out


def test_the_configured_language_wins_over_the_system(tmp_path, capsys, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('[app]\nlanguage = "ru"\n')
    monkeypatch.setenv("CLANK_CONFIG", str(config))
    GameStore(tmp_path / "g.db").close()
    code, out, err = cli(capsys, monkeypatch, "es", "games", "--db", str(tmp_path / "g.db"))
    assert code == 0 and CYRILLIC.search(out)
    with pytest.raises(SystemExit):
        cli(capsys, monkeypatch, "es", "--help")
    help_text = capsys.readouterr().out
    assert CYRILLIC.search(help_text) and "clank-companion" in help_text


def test_argparse_speaks_the_language_too(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "absent.toml"))
    with pytest.raises(SystemExit) as stopped:
        cli(capsys, monkeypatch, "ru", "games", "--bogus")
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "неизвестные аргументы: --bogus" in err and "использование:" in err
    with pytest.raises(SystemExit):
        cli(capsys, monkeypatch, "en", "games", "--bogus")
    err = capsys.readouterr().err
    assert "unrecognized arguments: --bogus" in err and "usage:" in err
