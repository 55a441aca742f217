"""The catalog's data files: the schema check, confidence flags, and bad files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from companion.kinds.clank.catalog import UNTAGGED, CatalogError, load_catalog
from companion.kinds.clank.catalog.load import DATA_DIR, _load_all


def test_shipped_catalog_passes_the_schema_check():
    for edition in ("clank", "catacombs"):
        catalog = load_catalog(edition)
        assert catalog.cards and catalog.tokens


def test_base_game_deck_and_flags():
    catalog = load_catalog("clank")
    dungeon = [c for c in catalog.cards.values() if c.set == "dungeon"]
    assert sum(c.count for c in dungeon) == 100
    assert all(c.verified for c in catalog.cards.values())
    assert catalog.card("kobold").danger and catalog.card("Kobold").dragon_attack
    assert catalog.card("Watcher").arrive == ("clank_each", 1)
    assert catalog.card("Wizard").vp_rule is not None
    assert [t.name for t in catalog.tokens_of("artifact", party=False)] == [
        "5",
        "7",
        "10",
        "15",
        "20",
        "25",
        "30",
    ]


def test_catacombs_cards_are_marked_unverified():
    catalog = load_catalog("catacombs")
    assert not any(c.verified for c in catalog.cards.values() if c.set != "untagged")
    assert {t.name for t in catalog.tokens_of("prisoner")} >= {
        "adventurer",
        "haunted",
        "priest",
        "warrior",
        "discount coupon",
    }


@pytest.mark.parametrize("edition", ["clank", "catacombs"])
def test_a_card_without_a_tag_is_known_only_by_its_dragon_symbol(edition):
    catalog = load_catalog(edition)
    plain, dragon = catalog.card(UNTAGGED[False]), catalog.card(UNTAGGED[True])
    assert plain.in_dungeon_deck and dragon.in_dungeon_deck
    assert not plain.dragon_attack and dragon.dragon_attack
    assert plain.count == dragon.count == 0 and plain.arrive is None and not dragon.danger


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(DATA_DIR, folder)
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("file", "old", "new", "reason"),
    [
        (
            "cards.csv",
            "clank,Kobold,dungeon,3,monster",
            "clank,Kobold,dungeon,3,dragon",
            "type must be one of",
        ),
        ("cards.csv", "clank,Kobold,dungeon,3,", "clank,Kobold,dungeon,three,", "count"),
        ("cards.csv", "2 per card:Secret Tome", "2 per card:Secret Scroll", "unknown card"),
        ("cards.csv", "2 per card:Secret Tome", "two per tome", "expected 'N per"),
        ("cards.csv", "clank_each:1", "clank_all:1", "unknown arrive code"),
        ("cards.csv", "edition,name,set", "edition,title,set", "the header must be"),
        ("tokens.csv", "rage:1;kept", "rage:fast;kept", "whole number"),
        ("tokens.csv", "crowns:10,9,8", "crowns:10,9", "crowns lists 2 values"),
        ("editions.toml", "health = 10", "health = 0", "health must be positive"),
        ("editions.toml", "row_size = 6", "row_size = six", "editions.toml"),
        ("editions.toml", '"rage_start.5", "rage', '"rage_strat.5", "rage', "'rage_strat.5'"),
        ("editions.toml", '"rage_start.5", "rage', '"rage_start.five", "rage', "'rage_start.five'"),
    ],
)
def test_schema_check_names_the_problem(tmp_path, monkeypatch, file, old, new, reason):
    folder = _copy(tmp_path)
    _edit(folder / file, old, new)
    monkeypatch.setenv("CLANK_CATALOG_DIR", str(folder))
    with pytest.raises(CatalogError, match=reason):
        load_catalog("clank")
    _load_all.cache_clear()


def test_a_table_corrects_the_catalog(tmp_path, monkeypatch):
    folder = _copy(tmp_path)
    _edit(
        folder / "editions.toml",
        "rage_track = [2, 2, 3, 3, 4, 4, 5]\nrage_start = { 2 = 3, 3 = 2, "
        "4 = 1, 5 = 1, 6 = 1 }\nhealth = 10\nstarting_clank = [3, 2, 1, 0, 0, 0]\ncubes_per_player"
        " = 30\nblack_cubes = 24\nghost_cubes = 5",
        "rage_track = [2, 3, 3, 4, 4, 5, 5]\nrage_start = { 2 = 3, 3 = 2, 4 = 1, 5 = 1, 6 = 1 }\n"
        "health = 9\nstarting_clank = [3, 2, 1, 0, 0, 0]\ncubes_per_player = 30\nblack_cubes = 24"
        "\nghost_cubes = 5",
    )
    monkeypatch.setenv("CLANK_CATALOG_DIR", str(folder))
    catalog = load_catalog("catacombs")
    assert catalog.edition.health == 9 and catalog.edition.rage_track[1] == 3
    _load_all.cache_clear()


def test_unknown_edition():
    with pytest.raises(CatalogError, match="unknown edition"):
        load_catalog("tschak")


def test_the_guessed_catacombs_components_are_listed_as_unconfirmed():
    """Artifacts 7 and 17 and the minor secrets (18 known of 20) are guesses (tokens.csv,
    verified = N): the edition lists them as unconfirmed, and the set-up says so."""
    catacombs = load_catalog("catacombs")
    guessed = {t.name for t in catacombs.tokens_of("artifact", party=False) if not t.verified}
    assert guessed == {"7", "17"}
    minor = sum(t.count for t in catacombs.tokens_of("minor_secret"))
    assert minor == 18
    assert {"artifacts", "minor_secrets"} <= set(catacombs.edition.unconfirmed)
    base = load_catalog("clank").edition.unconfirmed
    assert {"rage_track.party", "artifacts.party", "cloaks.party", "master_key.party"} <= set(base)
