"""The rules give codes and values; words are chosen at the edges. Importing the rules
(Clank! and Tschak!) loads no translation machinery."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "modules", ["companion.rules, companion.rules.odds", "companion.tschak", "companion.catalog"]
)
def test_the_rules_import_no_translations(modules):
    code = f"import sys, {modules}; print(sorted(m for m in sys.modules if 'i18n' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_message_from_the_rules_is_still_shown_in_the_tables_language():
    from companion import i18n
    from companion.rules import RuleError, make_setup

    with pytest.raises(RuleError) as refused:
        make_setup({"edition": "clank", "players": ["red"]})
    assert str(refused.value).startswith("new: ")
    i18n.set_language("ru")
    try:
        assert refused.value.localized() != str(refused.value).removeprefix("new: ")
    finally:
        i18n.set_language("en")


def test_the_store_does_not_import_the_audit():
    code = "import sys, companion.store; print(sorted(m for m in sys.modules if 'audit' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_layouts_and_examples_come_from_the_checkout_or_the_install_prefix(tmp_path, monkeypatch):
    """A wheel installs kv/ and examples/ under <prefix>/share/clank-companion (checked by
    hand: a wheel built from this checkout, installed in a fresh virtual environment,
    runs `demo`, `replay` of an example and the app)."""
    import tomllib

    from companion import resources

    assert resources.shared_folder("kv") == resources.CHECKOUT / "kv"
    assert (resources.shared_folder("examples") / "clank-4-players.jsonl").is_file()
    monkeypatch.setattr(resources, "CHECKOUT", tmp_path)  # an install, not a checkout
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    installed = tmp_path / "venv" / "share" / "clank-companion"
    assert resources.shared_folder("examples") == installed / "examples"
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    data = project["tool"]["setuptools"]["data-files"]
    assert data["share/clank-companion/kv"] == ["kv/*.kv"]
    assert data["share/clank-companion/examples"] == ["examples/*.jsonl"]
