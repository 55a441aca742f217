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
