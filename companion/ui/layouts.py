"""The screens' layouts (.kv files), each read when the first widget that needs it is
built: the first frame pays only for the layouts it shows.

Kivy compiles every expression of a .kv file when the file is read; reading all of them
before the first frame cost a tenth of a second. A widget whose rules are in a layout
names it (``layouts``, with the layouts its rules use from other files first) and
inherits ``Layout`` first, so its layouts are read before Kivy applies its rules.

A layout is named by its file in the shared ``kv/`` folder (``"common.kv"``), or, for a
game kind's own, as ``"package:file"`` (``kind_layout``): the file in the ``kv/`` folder
of that package, which ships inside it (package data, found beside the package's files).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from kivy.lang import Builder

from companion.resources import shared_folder

KV_DIR = shared_folder("kv")
COMMON = ("common.kv",)  # the buttons and labels every layout uses, read at the start
_read: set[str] = set()  # every layout read (a language change forgets them all)


def kind_layout(package: str, name: str) -> str:
    """The name of a layout a kind's package ships in its own ``kv/`` folder."""
    return f"{package}:{name}"


def layout_path(name: str) -> Path:
    """Where a layout's file is: the shared folder's, or its package's ``kv/`` folder."""
    package, colon, file = name.rpartition(":")
    if not colon:
        return KV_DIR / name
    module = sys.modules.get(package)
    if module is None:
        import importlib

        module = importlib.import_module(package)
    folders = getattr(module, "__path__", None)
    if folders:  # a package imported from its files (pip installs them unpacked)
        return Path(next(iter(folders))) / "kv" / file
    from importlib import resources

    found = resources.files(package).joinpath("kv", file)
    if not isinstance(found, Path):
        raise RuntimeError(f"{package} is not installed as files: {found}")
    return found


def load_layouts(names: tuple[str, ...]) -> None:
    """Read the layouts not read yet (rules read twice would apply twice)."""
    for name in names:
        path = str(layout_path(name))
        if path not in Builder.files:
            Builder.load_file(path)
            _read.add(path)


def unload_layouts() -> None:
    """Forget every layout read (a language change: they are read again as needed)."""
    for path in list(Builder.files):
        if path in _read or path.startswith(str(KV_DIR)):
            Builder.unload_file(path)
    _read.clear()


class Layout:
    """Inherited first by a widget whose rules are in ``layouts``."""

    layouts: tuple[str, ...] = ()

    def __init__(self, **kwargs: Any) -> None:
        load_layouts(COMMON + self.layouts)
        super().__init__(**kwargs)
