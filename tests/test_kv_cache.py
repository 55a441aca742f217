"""Layout files read from what their last reading made (companion.ui.kv_cache): the
rules are those a parse makes, a changed or damaged reading is parsed again, and the
layout's directives are carried out either way."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.ui import kv_cache

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def parser(tmp_path, monkeypatch):
    """Kivy's parser, its readings kept in a folder of the test's own."""
    from kivy.lang.parser import Parser

    kv_cache.install()  # Kivy's parser patched (once), whatever folder was asked before
    monkeypatch.setattr(kv_cache, "_folder", tmp_path / "kept")
    monkeypatch.setattr(kv_cache, "stats", {"kept": 0, "parsed": 0})
    return Parser


def canon(value, parser):
    """What a parse made, as plain values to compare: each rule, property and selector
    as its class and its fields (the parser it points at as "parser"), each compiled
    expression as what it is made of."""
    if value is parser:
        return "parser"
    if isinstance(value, type(canon.__code__)):
        return ("code", value.co_code, canon(value.co_consts, parser), value.co_names,
                value.co_varnames, value.co_filename, value.co_firstlineno)  # fmt: skip
    if isinstance(value, dict):
        return (type(value).__name__, [(canon(k, parser), canon(v, parser))
                                       for k, v in value.items()])  # fmt: skip
    if isinstance(value, list | tuple):
        return (type(value).__name__, [canon(v, parser) for v in value])
    if type(value).__module__ == "kivy.lang.parser":
        fields = [n for cls in type(value).__mro__ for n in getattr(cls, "__slots__", ())]
        fields += sorted(getattr(value, "__dict__", {}))
        return (
            type(value).__name__,
            [(n, canon(getattr(value, n), parser)) for n in fields if hasattr(value, n)],
        )
    return value


def state(p):
    return canon({name: getattr(p, name) for name in kv_cache.STATE}, p)


LAYOUTS = sorted(p for p in [*(ROOT / "kv").glob("*.kv"), *(ROOT / "companion").rglob("*.kv")])


@pytest.mark.parametrize("path", LAYOUTS, ids=lambda p: p.name)
def test_a_layout_read_again_is_the_layout_parsed(parser, path):
    text = path.read_text(encoding="utf-8")
    parsed = parser(content=text, filename=str(path))
    assert kv_cache.stats["kept"] == 0 and kv_cache.stats["parsed"] >= 1
    before = dict(kv_cache.stats)
    kept = parser(content=text, filename=str(path))
    assert kv_cache.stats["kept"] == 1 and kv_cache.stats["parsed"] == before["parsed"]
    assert state(kept) == state(parsed)
    assert kept.rules and all(rule.ctx is kept for _selector, rule in kept.rules)


KV = textwrap.dedent(
    """
    #:import kv_cache_test_path os.path
    #:set kv_cache_test_gap 12
    <KvCacheProbe@Label>:
        text: "probe " + str(kv_cache_test_gap)
        width: kv_cache_test_path.join("a", "b").count("/") * 10
    """
)


def test_the_directives_are_carried_out_when_a_reading_is_kept(parser):
    from kivy.lang.parser import global_idmap

    parser(content=KV, filename="probe.kv")
    for name in ("kv_cache_test_path", "kv_cache_test_gap"):
        del global_idmap[name]
    kept = parser(content=KV, filename="probe.kv")
    assert kv_cache.stats["kept"] == 1
    assert global_idmap["kv_cache_test_gap"] == 12
    assert global_idmap["kv_cache_test_path"] is os.path
    assert kept.dynamic_classes == {"KvCacheProbe": "Label"}


def test_a_changed_layout_is_parsed_again(parser):
    parser(content=KV, filename="probe.kv")
    changed = parser(content=KV.replace("12", "14"), filename="probe.kv")
    assert kv_cache.stats == {"kept": 0, "parsed": 2}
    assert "kv_cache_test_gap 14" in [cmd for _ln, cmd in changed.directives][1]


@pytest.mark.parametrize("damage", [b"", b"not a reading", b"\x80\x05K\x01."])
def test_a_damaged_reading_is_parsed_again_and_kept_anew(parser, damage):
    first = parser(content=KV, filename="probe.kv")
    (reading,) = list(kv_cache._folder.iterdir())
    reading.write_bytes(damage)
    again = parser(content=KV, filename="probe.kv")
    assert kv_cache.stats == {"kept": 0, "parsed": 2}
    assert state(again) == state(first)
    parser(content=KV, filename="probe.kv")
    assert kv_cache.stats["kept"] == 1


@pytest.mark.parametrize(
    "forged",
    [
        pickle.dumps({"rules": os.system}),
        # a function the parser's module imported, reached through it: it would import
        # a module no test imports
        b"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00\x8c\x10kivy.lang.parser"
        b"\x94\x8c\x17importlib.import_module\x94\x93\x94\x8c\x08tabnanny\x94\x85\x94R"
        b"\x94.",
    ],
    ids=["os.system", "through the parser's module"],
)
def test_a_reading_that_would_run_other_code_is_refused(parser, forged):
    assert "tabnanny" not in sys.modules
    parser(content=KV, filename="probe.kv")
    (reading,) = list(kv_cache._folder.iterdir())
    reading.write_bytes(forged)
    parser(content=KV, filename="probe.kv")
    assert kv_cache.stats == {"kept": 0, "parsed": 2}
    assert "tabnanny" not in sys.modules  # nothing of it was called


def test_a_value_computed_as_it_was_parsed_is_not_kept(parser):
    """A constant of the layout is kept as it is; a value made of the moment (an object
    an expression built as Kivy parsed it) is not: that file is parsed at every start."""
    text = '<KvCacheMoment@Label>:\n    text: "now"\n    data: {"a": 1}\n'
    parser(content=text, filename="moment.kv")
    assert list(kv_cache._folder.iterdir())
    odd = "<KvCacheOdd@Label>:\n    data: {1, 2}\n"  # a set: made as it was parsed
    parser(content=odd, filename="odd.kv")
    assert len(list(kv_cache._folder.iterdir())) == 1


def test_a_folder_that_cannot_be_written_leaves_the_layouts_parsed(parser, tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setattr(kv_cache, "_folder", blocked / "kept")  # cannot be made
    p = parser(content=KV, filename="probe.kv")
    again = parser(content=KV, filename="probe.kv")
    assert p.rules and again.rules and kv_cache.stats == {"kept": 0, "parsed": 2}


def test_kivy_reads_its_own_rules_from_the_kept_reading_at_the_next_start(tmp_path):
    """As ``clank-companion app`` starts Kivy: its style.kv parsed at the first start,
    read from the kept reading at the next, and a Button drawn by those rules."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from companion.ui import kv_cache
        kv_cache.install(Path({str(tmp_path / "kept")!r}))
        from kivy.lang import Builder
        from kivy.uix.button import Button
        button = Button(text="x")
        print(kv_cache.stats["kept"], kv_cache.stats["parsed"], len(Builder.rules),
              type(button.canvas.children[1]).__name__)
        """
    )
    env = {**os.environ, "KIVY_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout.split()  # fmt: skip
        for _ in range(2)
    ]
    (kept1, parsed1, rules1, drawn1), (kept2, parsed2, rules2, drawn2) = runs
    assert (kept1, kept2) == ("0", parsed1) and parsed2 == "0" and int(parsed1) >= 1
    assert rules1 == rules2 and drawn1 == drawn2
