"""The screens' layouts (kv/ files), each read when the first widget that needs it is
built: the first frame pays only for the layouts it shows.

Kivy compiles every expression of a .kv file when the file is read; reading all of them
before the first frame cost a tenth of a second. A widget whose rules are in a layout
names it (``layouts``, with the layouts its rules use from other files first) and
inherits ``Layout`` first, so its layouts are read before Kivy applies its rules.
"""

from __future__ import annotations

from typing import Any

from kivy.lang import Builder

from companion.resources import shared_folder

KV_DIR = shared_folder("kv")
COMMON = ("common.kv",)  # the buttons and labels every layout uses, read at the start


def load_layouts(names: tuple[str, ...]) -> None:
    """Read the layouts not read yet (rules read twice would apply twice)."""
    for name in names:
        path = str(KV_DIR / name)
        if path not in Builder.files:
            Builder.load_file(path)


def unload_layouts() -> None:
    """Forget every layout read (a language change: they are read again as needed)."""
    for path in list(Builder.files):
        if path.startswith(str(KV_DIR)):
            Builder.unload_file(path)


class Layout:
    """Inherited first by a widget whose rules are in ``layouts``."""

    layouts: tuple[str, ...] = ()

    def __init__(self, **kwargs: Any) -> None:
        load_layouts(COMMON + self.layouts)
        super().__init__(**kwargs)
