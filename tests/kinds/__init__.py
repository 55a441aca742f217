"""Kinds of the tests' own, each one a package as a box is: mounted under
``companion.kinds`` (this folder added to its search path) and registered by its one line
in ``KINDS``, exactly what a new box adds. Nothing else of the companion changes."""

from __future__ import annotations

from pathlib import Path

import companion.kinds

FOLDER = str(Path(__file__).resolve().parent)
# the line a box adds to the registry: its edition, and the module that holds its kind
LINES = {"pebbles": "companion.kinds.pebbles.kind"}


def mount() -> None:
    """The packages of this folder importable as ``companion.kinds.<name>``, and their
    lines in ``KINDS``."""
    if FOLDER not in companion.kinds.__path__:
        companion.kinds.__path__.append(FOLDER)
    companion.kinds.KINDS.update(LINES)


def unmount() -> None:
    """Their lines taken out of ``KINDS`` again (the registry as the companion ships it)."""
    for edition in LINES:
        companion.kinds.KINDS.pop(edition, None)


# pebbles again under another edition, from a variant of its kind without a phones part:
# a box the phones cannot show
UNSHOWN = "pebbles-unshown"


def register_unshown() -> None:
    """The variant registered as ``UNSHOWN`` (``companion.kinds.register``; the box
    mounted first). ``companion.kinds.register(UNSHOWN, None)`` takes it away."""
    mount()
    from companion.kinds.pebbles.kind import PebbleKind

    from companion.kinds.base import PhoneFace

    class Unshown(PebbleKind):
        titles = {UNSHOWN: "Pebbles"}

        def phone_face(self) -> PhoneFace | None:
            return None

    companion.kinds.register(UNSHOWN, Unshown())
