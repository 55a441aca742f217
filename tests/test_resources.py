"""Where the program finds its files that are not Python (companion/resources.py): package
data through importlib.resources, except the layouts and the example games of a checkout,
read from its top-level kv/ and examples/. The installs themselves (a wheel in a virtual
environment, with --target and --user, an editable install) are in test_wheel_install.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import resources

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"


def test_the_checkout_reads_its_top_level_layouts_and_examples():
    assert resources.in_checkout("kv") and resources.in_checkout("examples")
    assert resources.shared_folder("kv") == ROOT / "kv"
    assert (resources.shared_folder("kv") / "common.kv").is_file()
    assert (resources.shared_folder("examples") / "clank-4-players.jsonl").is_file()
    # no copies in the package of a checkout: the build makes them in its build folder
    assert not (PACKAGE / "kv").exists() and not (PACKAGE / "examples").exists()


def test_the_package_data_is_found_through_importlib_resources():
    from companion import i18n
    from companion.kinds.clank.catalog import load

    assert resources.package_path() == PACKAGE
    assert resources.package_path("locale") == i18n.LOCALE_DIR == PACKAGE / "locale"
    assert resources.package_path("kinds", "clank", "catalog", "data") == load.DATA_DIR
    assert (load.DATA_DIR / "cards.csv").is_file()
    assert resources.package_path("kinds", "tschak", "rules", "data", "tschak_cards.csv").is_file()
    assert (i18n.LOCALE_DIR / "ru" / "LC_MESSAGES" / "companion.po").is_file()


def test_an_install_reads_the_layouts_and_examples_from_its_package(tmp_path, monkeypatch):
    """Away from a checkout (site-packages, a --target folder) the package's own copies
    count, even beside a stray kv/ or examples/ folder."""
    (tmp_path / "kv").mkdir()
    (tmp_path / "examples").mkdir()
    monkeypatch.setattr(resources, "CHECKOUT", tmp_path)  # no pyproject.toml there
    assert not resources.in_checkout("kv")
    assert resources.shared_folder("kv") == PACKAGE / "kv"
    assert resources.shared_folder("examples") == PACKAGE / "examples"


def test_a_checkout_without_the_folder_reads_the_package(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "kv").mkdir()
    monkeypatch.setattr(resources, "CHECKOUT", tmp_path)
    assert resources.shared_folder("kv") == tmp_path / "kv"
    assert resources.shared_folder("examples") == PACKAGE / "examples"


def test_only_the_top_level_folders_are_shared():
    with pytest.raises(ValueError, match="locale"):
        resources.shared_folder("locale")


def test_the_build_copies_the_top_level_folders_the_program_reads():
    """setup.py copies into the package what resources.py reads from the top level, and
    the sdist carries them (MANIFEST.in)."""
    import ast

    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    copied = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "TOP_LEVEL" for t in node.targets)
    )
    assert tuple(folder for folder, _pattern in copied) == resources.TOP_LEVEL
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    for folder, pattern in copied:
        suffix = pattern.rsplit(".", 1)[1]
        assert f"recursive-include {folder} *.{suffix}" in manifest
        # every file of its kind, in subfolders too (a game kind's layouts: kv/<kind>/)
        everything = sorted((ROOT / folder).rglob(f"*.{suffix}"))
        assert everything and sorted((ROOT / folder).glob(pattern)) == everything, folder
