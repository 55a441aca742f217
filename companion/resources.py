"""Where the files that are not Python live: the screen layouts (kv/), the example games
(examples/), the card catalogs (companion/kinds/clank/catalog/data,
companion/kinds/tschak/rules/data) and the translations (companion/locale). All of them
are package data, found through ``importlib.resources`` wherever the package is installed
(a virtual environment, ``pip install --user``, ``pip install --target DIR``).

The layouts and the examples are kept at the top level of the checkout; the build copies
them into the package of a wheel (``companion/kv``, ``companion/examples``: setup.py). Run
from the checkout (its editable install, ``./dev``), they are read from the checkout's
top-level folders, never from a copy."""

from __future__ import annotations

import sys
from importlib.machinery import SourceFileLoader, SourcelessFileLoader
from pathlib import Path
from typing import Any

PACKAGE = "companion"
CHECKOUT = Path(__file__).resolve().parent.parent
TOP_LEVEL = ("kv", "examples")  # kept beside the package in the checkout


def _package_files() -> Any:
    """What ``importlib.resources.files(PACKAGE)`` gives. For a package imported from its
    files (as pip installs it) that is the folder its loader read it from, taken here
    without loading importlib.resources: that costs the first frame a few milliseconds."""
    loader = getattr(sys.modules[PACKAGE].__spec__, "loader", None)
    if type(loader) is SourceFileLoader or type(loader) is SourcelessFileLoader:
        return Path(loader.path).parent
    from importlib import resources

    return resources.files(PACKAGE)


def package_path(*parts: str) -> Path:
    """A file or folder of the installed package, as a path on the file system (pip
    installs a wheel's files unpacked; a package imported from a zip file is not
    supported: Kivy and the tools read these files by their path)."""
    found = _package_files()
    for part in parts:
        found = found.joinpath(part)
    if not isinstance(found, Path):
        raise RuntimeError(f"{PACKAGE} is not installed as files: {found}")
    return found


def in_checkout(name: str) -> bool:
    """Whether the package runs from the checkout, with its top-level folder ``name``."""
    return (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / name).is_dir()


def shared_folder(name: str) -> Path:
    """The folder ``name`` ("kv", "examples"): the checkout's own, or the package's."""
    if name not in TOP_LEVEL:
        raise ValueError(f"not a top-level folder of the checkout: {name!r}")
    if in_checkout(name):
        return CHECKOUT / name
    return package_path(name)
