"""A table from a ``new`` line's options: the one way a game starts, recorded or not.

The session (which records the game) and the table script (which replays it without a
database) both start their tables here, so a script plays the same with and without a
database, and a kind with a dragon bag gets the same seed either way: the ``server_seed``
the options give (checked here, for every kind alike), else a fresh one from the
operating system's CSPRNG. Where the seed came from is part of the record: only a seed
the companion drew itself makes the draws provably fair; one given by a script (tests,
examples) makes them reproducible, and whoever chose it could have chosen the draws.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.draw import new_server_seed
from companion.kinds import GameKind, GameTable, kind_for
from companion.msg import N_, Refusal
from companion.verify_log import DRAWN, GIVEN

_HEX64 = re.compile(r"[0-9a-f]{64}")


class SeedError(Refusal):
    """A ``server_seed`` that is not 64 lowercase hexadecimal characters."""


@dataclass(frozen=True)
class Started:
    """A table just set up (not recorded), with what its record keeps of its seed."""

    kind: GameKind
    table: GameTable
    server_seed: str  # "" for a kind without a bag
    seed_origin: str | None  # GIVEN or DRAWN; None for a kind without a bag


def given_seed(options: Any) -> str | None:
    """The ``server_seed`` of a ``new`` line's options (None: none given); SeedError
    when it is not 64 lowercase hexadecimal characters."""
    seed = options.get("server_seed") if isinstance(options, dict) else None
    if seed is None:
        return None
    if not isinstance(seed, str) or not _HEX64.fullmatch(seed):
        raise SeedError(
            N_('"server_seed" must be 64 lowercase hexadecimal characters'), during="new"
        )
    return seed


def start_table(options: Any, fresh: Callable[[], str] = new_server_seed) -> Started:
    """The table of a ``new`` line's options, made by the kind they name; a kind with a
    bag is given the options' ``server_seed`` (checked) or a fresh one from ``fresh``.
    SeedError for a bad seed, the kind's refusal for options it refuses."""
    kind = kind_for(options)
    if not kind.has_bag:
        return Started(kind, kind.new_table(options), "", None)
    given = given_seed(options)
    seed = fresh() if given is None else given
    table = kind.new_table(options, seed)
    return Started(kind, table, seed, DRAWN if given is None else GIVEN)
