"""The tag registry: binding, re-binding, bulk enrollment, CSV sharing."""

from __future__ import annotations

import io

import pytest

from companion.store import GameStore
from companion.store.tags import (
    BulkEnrollment,
    Component,
    TagError,
    TagRegistry,
    components,
    resolve,
)


@pytest.fixture
def registry(tmp_path):
    store = GameStore(tmp_path / "games.db")
    yield TagRegistry(store.db)
    store.close()


def test_bind_lookup_and_rebind(registry):
    kobold = resolve("card", "clank", "kobold")
    assert kobold == Component("card", "clank", "Kobold")
    registry.bind("04:a2:24:b2:c3:5e:80", kobold)
    assert registry.lookup("04A224B2C35E80") == kobold
    registry.bind("04A224B2C35E80", kobold)  # the same binding again is fine
    egg = resolve("minor_secret", "clank", "Dragon Egg")
    with pytest.raises(TagError, match="already card Kobold \\(clank\\); re-bind"):
        registry.bind("04A224B2C35E80", egg)
    registry.bind("04A224B2C35E80", egg, rebind=True)
    assert str(registry.lookup("04A224B2C35E80")) == "minor secret dragon egg (clank)"
    assert registry.unbind("04A224B2C35E80") and registry.lookup("04A224B2C35E80") is None


@pytest.mark.parametrize(
    ("kind", "edition", "name", "reason"),
    [
        ("card", "clank", "Skeleton", "no card 'Skeleton' in Clank!"),
        ("prisoner", "clank", "monk", "no prisoner 'monk'"),
        ("card", "monopoly", "Go", "unknown edition"),
        ("sleeve", "clank", "x", "unknown kind"),
        ("badge", None, "Black", "player colour"),
    ],
)
def test_unknown_components_are_refused(kind, edition, name, reason):
    with pytest.raises(TagError, match=reason):
        resolve(kind, edition, name)


def test_bulk_enrollment_walks_every_copy(registry):
    targets = components("clank", kinds=("special",))
    names = [str(c) for c in targets]
    assert names.count("special monkey idol (clank)") == 3
    walk = BulkEnrollment(registry, targets)
    assert str(walk.progress()).startswith(f"1 of {len(targets)}: scan special")
    walk.scanned("01020304")
    with pytest.raises(TagError, match="just enrolled"):
        walk.scanned("01020304")
    walk.skip()
    while not walk.done:
        walk.scanned(f"0A0B{walk.position:04X}")
    assert str(walk.progress()) == f"all {len(targets)} done"
    assert len(registry.bindings()) == len(targets) - 1


def test_csv_export_and_import_share_a_tag_set(registry, tmp_path):
    registry.bind("01020304", resolve("card", "clank", "Ruby"))
    registry.bind("0A0B0C0D", resolve("badge", None, "red"))
    out = io.StringIO()
    assert registry.export_csv(out) == 2
    text = out.getvalue()
    assert text.splitlines()[0] == "uid,kind,edition,name"
    other = GameStore(tmp_path / "other.db")
    theirs = TagRegistry(other.db)
    assert theirs.import_csv(text) == 2
    assert theirs.lookup("0A0B0C0D") == Component("badge", None, "red")
    other.close()


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        ("uid,kind,name\n", "line 1: the header"),
        ("uid,kind,edition,name\nzz,card,clank,Ruby\n", "line 2: not a UID"),
        (
            "uid,kind,edition,name\n01020304,card,clank,Ruby\n01020304,card,clank,Ruby\n",
            "line 3: tag 01020304 is listed twice",
        ),
        (
            "uid,kind,edition,name\n01020304,card,clank,Ruby\n05060708,card,clank,Rubyy\n",
            "line 3: no card 'Rubyy'",
        ),
    ],
)
def test_a_bad_import_names_the_line_and_imports_nothing(registry, rows, reason):
    with pytest.raises(TagError, match=reason):
        registry.import_csv(rows)
    assert registry.bindings() == []


def test_import_does_not_silently_rebind(registry):
    registry.bind("01020304", resolve("card", "clank", "Ruby"))
    rows = "uid,kind,edition,name\n01020304,card,clank,Emerald\n"
    with pytest.raises(TagError, match="import with re-bind"):
        registry.import_csv(rows)
    assert registry.import_csv(rows, rebind=True) == 1
    assert registry.lookup("01020304").name == "Emerald"


# Rows a tags table edited by hand can hold, which the companion never writes.
DAMAGED = [
    ("AA01", "weird", "clank", "Kobold"),  # an unknown kind
    ("AA02", "card", "nowhere", "Kobold"),  # an unknown edition
    ("AA03", "card", "clank", b"\x07"),  # a name that is not text (a blob)
    (b"\xaa\x04", "card", "clank", "Kobold"),  # a uid that is not text
    (None, "card", "clank", "Kobold"),  # no uid at all (SQLite lets a TEXT key be NULL)
]
SHOWN = ["AA01", "AA02", "AA03", "x'AA04'", "None"]


def _damage(registry) -> None:
    registry.bind("0102", resolve("card", "clank", "kobold"))
    for uid, kind, edition, name in DAMAGED:
        registry.db.execute(
            "INSERT INTO tags (uid, kind, edition, name, enrolled_at) VALUES (?, ?, ?, ?, '')",
            [uid, kind, edition, name],
        )


def test_damaged_rows_are_skipped_and_named(registry):
    _damage(registry)
    skipped: list[str] = []
    bindings = registry.bindings(skipped=skipped.append)
    assert [b.uid for b in bindings] == ["0102"]
    assert sorted(skipped) == sorted(SHOWN)
    assert [b.uid for b in registry.bindings("clank")] == ["0102"]  # silently, if not asked
    out = io.StringIO()
    assert registry.export_csv(out) == 1
    assert out.getvalue().splitlines() == ["uid,kind,edition,name", "0102,card,clank,Kobold"]


@pytest.mark.parametrize("uid", ["AA01", "AA02", "AA03"])
def test_a_damaged_row_is_an_unknown_tag(registry, uid):
    _damage(registry)
    assert registry.lookup(uid) is None
    kobold = resolve("card", "clank", "kobold")
    registry.bind(uid, kobold)  # enrolling the tag again mends its row
    assert registry.lookup(uid) == kobold


@pytest.mark.parametrize("digits", [34, 64, 1000])
def test_an_import_refuses_a_uid_longer_than_32_digits(registry, digits):
    text = f"uid,kind,edition,name\n{'A' * digits},card,clank,Kobold\n"
    with pytest.raises(TagError, match=rf"^line 2: a tag UID of {digits} hexadecimal digits"):
        registry.import_csv(text)
    assert registry.bindings() == []


def test_an_import_takes_a_uid_of_32_digits(registry):
    assert registry.import_csv(f"uid,kind,edition,name\n{'ab' * 16},card,clank,Kobold\n") == 1
    assert registry.lookup("AB" * 16) == Component("card", "clank", "Kobold")


def test_an_import_refuses_a_line_over_1_mib(registry):
    text = "uid,kind,edition,name\n0102,card,clank,Kobold\n0304,card,clank," + "x" * 2**20 + "\n"
    with pytest.raises(TagError, match=r"^line 3: longer than 1 MiB"):
        registry.import_csv(text)
    assert registry.bindings() == []


def test_bulk_enrollment_skips_many_at_once(registry):
    walk = BulkEnrollment(registry, components("clank", ["special"]))
    walk.skip(3)
    assert walk.position == 3
    walk.skip(10**12)  # no further than the end, and no loop
    assert walk.done and walk.position == len(walk.targets)


class Stones:
    """A box of the tests' own with tags: three stones, two of them in the "bag" set
    that its bulk enrollment walks (what the kind says, not what the registry knows)."""

    titles = {"stones": "Stones"}
    bulk_sets = ("bag",)
    bulk_label = "Bulk: the stones in the bag"
    SETS = {"white": "bag", "black": "bag", "grey": "shelf"}

    def components(self, edition, kinds, sets, party):
        wanted = set(sets) or set(self.SETS.values())
        return [Component("card", edition, n) for n, s in self.SETS.items() if s in wanted]

    def component_words(self, name):
        return f"the {name} stone"


@pytest.fixture
def stones():
    from companion.kinds import register

    register("stones", Stones())
    yield
    register("stones", None)


@pytest.mark.parametrize(
    ("edition", "first", "count"),
    [("clank", "card Kobold (clank)", None), ("tschak", "card mage_01 (tschak)", 68)],
)
def test_a_bulk_enrollment_walks_what_the_kind_says(registry, edition, first, count):
    """Clank!'s walks its dungeon deck (no starter), Tschak!'s every card."""
    walk = registry.bulk_enrollment(edition)
    names = [c.name for c in walk.targets]
    if count is not None:
        assert len(names) == count
    expected = components(edition, ("card",), ("dungeon",) if edition == "clank" else ())
    assert walk.targets == expected
    assert "Burgle" not in names and "Stumble" not in names
    assert any(str(c) == first for c in walk.targets)


def test_a_new_kinds_tags_are_enrolled_in_bulk(registry, stones):
    walk = registry.bulk_enrollment("stones")
    assert [c.name for c in walk.targets] == ["white", "black"]  # the bag, not the shelf
    walk.scanned("04000000000001")
    assert registry.lookup("04000000000001") == Component("card", "stones", "white")
    assert registry.count() == 1
