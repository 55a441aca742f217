"""The bodies of the game log's records, as the log writes them (``GameLog``, and the
session's ``new`` record). The verifiers read the same shapes from an export
(``companion.verify_log``, docs/proof.md); every body is JSON, hashed as canonical JSON.

A kind's own parts (its set-up, its actions, events and draws) are JSON the kind writes
and reads back: the log keeps them as they are."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

JSON = dict[str, Any]

RecordKind = Literal["new", "action", "reveal", "end", "abandon", "close"]


class NewBody(TypedDict, total=False):
    """Record 1: the game's set-up (``format``: the log's schema version)."""

    format: int
    setup: JSON  # the options that make the game again (the kind's)
    seats: list[str]
    commitment: str  # to the server seed ("" without a dragon bag)
    client_seed: str
    seed_origin: str  # "companion" (drawn by it: provably fair) or "given"
    created_at: str
    unconfirmed: list[str]  # a kind's numbers no rulebook prints


class ActionBody(TypedDict):
    """An accepted action with what it did (undos included)."""

    action: JSON
    events: list[JSON]
    draws: list[JSON]


class RevealBody(TypedDict):
    """A game with a dragon bag ends: its server seed revealed."""

    server_seed: str
    reason: str
    ended_at: str


class EndBody(TypedDict):
    """A game without a bag ends."""

    reason: str
    ended_at: str


class AbandonBody(TypedDict):
    """The game is given up (``server_seed`` None: lost with its key, or none)."""

    server_seed: str | None
    reason: str
    ended_at: str


class CloseBody(TypedDict):
    """The table closed the scored game: nothing follows."""

    reason: str


class Ending(TypedDict, total=False):
    """What ends (or rescores) a game, as a table tells its log (``ActionLog.record``):
    ``server_seed``, ``reason`` and ``ranking`` when a game with a bag ends; ``reason`` and
    ``ranking`` when one without a bag ends; ``ranking`` alone when a score changes after
    the end."""

    server_seed: str
    reason: str
    ranking: list[JSON]


Body = NewBody | ActionBody | RevealBody | EndBody | AbandonBody | CloseBody
