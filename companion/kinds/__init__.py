"""Game kinds: one package per box, registered by edition name.

A *game kind* is everything that knows one game: its rules, catalog, words, how its
table is set up and replayed, how its refusals read. Everything else (the session that
starts, resumes, closes and abandons games; the log, the seal and the verifiers; the
table script) names no game: it asks this registry for the kind of an edition, the way
``hardware.readers.READERS`` names the readers.

``KINDS`` maps each edition to the module that holds its kind (imported when first
asked for, so that a Clank! table never loads the Tschak! rules); the module's ``KIND``
is the kind. A new box is one package and one line here. Tests add kinds of their own
with ``register``.
"""

from __future__ import annotations

import importlib
from typing import Any

from companion.kinds.base import GameKind, GameTable

__all__ = [
    "DEFAULT",
    "KINDS",
    "GameKind",
    "GameTable",
    "editions",
    "kind_for",
    "kind_of",
    "register",
]

KINDS: dict[str, str] = {
    "clank": "companion.kinds.clank.kind",
    "catacombs": "companion.kinds.clank.kind",
    "tschak": "companion.kinds.tschak.kind",
}
# the edition of a ``new`` line that names none (or one no kind plays: its kind says so)
DEFAULT = "clank"

_registered: dict[str, GameKind] = {}


def register(edition: str, kind: GameKind | None) -> None:
    """Add (or, with None, remove) a kind made elsewhere: a test's own game."""
    if kind is None:
        _registered.pop(edition, None)
    else:
        _registered[edition] = kind


def kind_of(edition: str) -> GameKind:
    """The kind that plays ``edition``; the default kind for an edition nobody plays
    (its set-up refuses it, in its own words)."""
    if edition in _registered:
        return _registered[edition]
    module = importlib.import_module(KINDS.get(edition, KINDS[DEFAULT]))
    kind: GameKind = module.KIND
    return kind


def kind_for(options: Any) -> GameKind:
    """The kind of a ``new`` line's options (or of a logged set-up)."""
    edition = options.get("edition") if isinstance(options, dict) else None
    return kind_of(edition if isinstance(edition, str) else DEFAULT)


def editions() -> list[str]:
    """Every edition a kind plays: the registry's, then those registered since."""
    return [*KINDS, *(e for e in _registered if e not in KINDS)]
