"""Tschak! card notation, the shipped catalog, the table's corrections, the settings list."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from companion.kinds.tschak.rules import (
    FIXED,
    SETTINGS_INFO,
    Hero,
    Settings,
    TowerCard,
    TschakError,
    apply_corrections,
    load_catalog,
    parse_hero,
    parse_tower_card,
)
from companion.kinds.tschak.rules.settings import AMBIGUITY, CHOICES


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("M5s", Hero("mage", 5, "staff")),
        ("M4", Hero("mage", 4, "none")),
        ("Mc", Hero("mage", None)),
        ("M?", Hero("mage", None)),
        ("W6a", Hero("warrior", 6, "axe")),
        ("W3", Hero("warrior", 3, "none")),
        ("D4a", Hero("dwarf", 4, "axe")),
        ("D2x", Hero("dwarf", 2, "middle")),
        ("D1u", Hero("dwarf", 1, "unarmed")),
        ("A", Hero("artifact", None)),
        ("m5S", Hero("mage", 5, "staff")),
    ],
)
def test_adventurer_notation(text, card):
    assert parse_hero(text) == card
    assert parse_hero(card.notation) == card


@pytest.mark.parametrize("text", ["", "M", "M5a", "W6s", "D3", "D3s", "A1", "X5", "M0", "Wc", 5])
def test_bad_adventurer_notation(text):
    with pytest.raises(TschakError) as info:
        parse_hero(text)
    assert info.value.code == "bad_card"


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("monster:3", TowerCard("monster", skulls=3)),
        ("troglodyte", TowerCard("troglodyte")),
        ("chest:4", TowerCard("chest", gold=4)),
        ("cursed:2", TowerCard("cursed_chest", skulls=2)),
        ("ring", TowerCard("ring")),
        ("elixir", TowerCard("elixir")),
        ("war_trophy", TowerCard("war_trophy")),
    ],
)
def test_tower_notation(text, card):
    assert parse_tower_card(text) == card
    assert card.notation == text


@pytest.mark.parametrize("text", ["monster", "monster:0", "chest:x", "golem", "cursed:", "ring:2"])
def test_bad_tower_notation(text):
    with pytest.raises(TschakError):
        parse_tower_card(text)


def test_shipped_catalog_is_the_box_and_unconfirmed():
    catalog = load_catalog()
    assert len(catalog.heroes) == 40 and len(catalog.tower_cards) == 28
    colours = Counter(r.card.colour for r in catalog.heroes)
    assert colours == {"mage": 12, "warrior": 12, "dwarf": 12, "artifact": 4}
    kinds = Counter(r.card.kind for r in catalog.tower_cards)
    assert kinds == {
        "monster": 8,
        "troglodyte": 6,
        "chest": 4,
        "cursed_chest": 2,
        "war_trophy": 1,
        "ring": 6,
        "elixir": 1,
    }
    assert len(catalog.unconfirmed) == 68
    # H1: every (colour, value, weapon) of a numbered card is unique; four chameleons
    assert catalog.hero_counts["Mc"] == 4 and catalog.hero_counts["A"] == 4
    assert all(n == 1 for c, n in catalog.hero_counts.items() if c not in ("Mc", "A"))
    assert catalog.hero("warrior_01") == Hero("warrior", 1, "axe")
    assert catalog.tower_card("ELIXIR") == TowerCard("elixir")


def test_corrections_change_faces_and_confirm():
    catalog = apply_corrections(
        load_catalog(),
        {
            "mage_01": "M6s",
            "monster_8": {"skulls": 7},
            "dwarf_02": {"weapon": "axe", "value": 2},
            "ring_1": True,
        },
    )
    assert catalog.hero("mage_01") == Hero("mage", 6, "staff")
    assert catalog.tower_card("monster_8") == TowerCard("monster", skulls=7)
    assert catalog.hero("dwarf_02") == Hero("dwarf", 2, "axe")
    assert len(catalog.unconfirmed) == 64
    assert catalog.hero_counts["M6s"] == 1 and "M2s" not in catalog.hero_counts
    assert load_catalog().hero("mage_01") == Hero("mage", 2, "staff")  # the shipped one stays
    assert apply_corrections(load_catalog(), {"*": True}).unconfirmed == ()


@pytest.mark.parametrize(
    "fix",
    [
        {"mage_01": "W3"},  # a thirteenth warrior
        {"mage_01": {"colour": "dwarf", "weapon": "axe"}},
        {"mage_01": {"weapon": "axe"}},
        {"mage_01": {"value": "big"}},
        {"mage_01": {"skulls": 2}},
        {"monster_1": "ring"},
        {"monster_1": {"gold": 3}},
        {"nobody": True},
        {"*": False},
        {"mage_01": 5},
    ],
)
def test_bad_corrections_are_refused(fix):
    with pytest.raises(TschakError) as info:
        apply_corrections(load_catalog(), fix)
    assert info.value.code in ("bad_correction", "bad_catalog")


def test_a_refused_correction_names_the_card_and_gives_codes_not_sentences():
    """The table reads which card and why, in its language: the card id and the values
    are params, the reason is the marked template (no English sentence as a param)."""
    with pytest.raises(TschakError) as info:
        apply_corrections(load_catalog(), {"mage_01": {"weapon": "axe"}})
    e = info.value
    assert e.code == "bad_correction"
    assert e.template == "{card}: a {colour} has no weapon {weapon!r} (weapons: {weapons})"
    assert e.params == {
        "card": "mage_01",
        "colour": "mage",
        "weapon": "axe",
        "weapons": "staff, none",
    }
    assert str(e) == "mage_01: a mage has no weapon 'axe' (weapons: staff, none)"
    with pytest.raises(TschakError) as info:
        apply_corrections(load_catalog(), {"monster_1": "M5s"})
    assert info.value.params == {"card": "monster_1", "fix": "M5s"}
    assert str(info.value).startswith("monster_1: 'M5s' is not a tower card (monster:N, ")


def test_a_corrected_catalog_is_what_the_game_checks_against():
    from companion.kinds.tschak.rules import TschakGame

    game = TschakGame(["a", "b"], None, {"mage_07": "M6s"})
    game.apply(
        {
            "do": "tower",
            "monsters": ["monster:1", "monster:2", "monster:3"],
            "treasures": ["ring", "ring", "ring"],
        }
    )
    events = game.apply(
        {"do": "floor", "teams": {"a": ["M6s", "W1", "D1u"], "b": ["M2", "W2", "D2u"]}}
    )
    assert events[0]["strength"] == {"a": 8, "b": 6}
    with pytest.raises(TschakError) as info:
        game.apply({"do": "floor", "teams": {"a": ["M5s", "W3", "D3u"], "b": ["M3", "W4", "D4u"]}})
    assert info.value.code == "not_in_catalog"


def test_settings_cover_every_ambiguity_with_a_default_and_description():
    assert [k for k, _, _ in SETTINGS_INFO] == list(Settings().as_dict())
    for key, default, description in SETTINGS_INFO:
        assert getattr(Settings(), key) == default
        assert default == CHOICES[key][0]
        assert description and len(description) <= 100
    ids = {a for ids in AMBIGUITY.values() for a in ids} | {a for a, _ in FIXED}
    assert ids == {f"A{n}" for n in range(1, 22)}
    assert Settings.from_dict({"tie_values": "effective"}).changed() == {"tie_values": "effective"}


def test_the_package_imports_nothing_of_the_app():
    """Only companion.msg (standard library only: the N_ marker) besides itself, and the
    packages it sits in (the kinds' registry and its protocols, the kind's package)."""
    code = (
        "import sys, companion.kinds.tschak.rules\n"
        "around = ('companion.msg', 'companion.kinds', 'companion.kinds.base', "
        "'companion.kinds.tschak')\n"
        "bad = [m for m in sys.modules if m.startswith('companion.') "
        "and not m.startswith('companion.kinds.tschak.rules') and m not in around]\n"
        "bad += [m for m in sys.modules if m.split('.')[0] in ('kivy', 'sqlite_utils')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
