"""A game told as data: what the history screens chart, whatever the game's kind.

Pure dataclasses: the kinds tell their games in these (``GameKind.story``), the charts
and the statistics read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    """The table after one committed action (undone actions are not replayed: the points
    are what the game really was). ``step`` 0 is the table at set-up."""

    step: int  # 1, 2, ... in order
    turn: int  # the turn number after this action
    active: str  # whose turn
    clank: Mapping[str, int]  # each player's cubes in the Clank! area
    damage: Mapping[str, int]  # each player's damage taken so far
    rage: int  # rage track space, 1-based
    attack: tuple[str, ...] | None  # the cubes the dragon drew in this step (None: no draw)
    knocked_out: tuple[str, ...]  # players knocked out in this step


@dataclass(frozen=True)
class GameHistory:
    """One game, replayed from its log.

    ``points``: one per committed action up to the end of the game (the deck scans for
    scoring, after the end, change nothing on the table and make no point). ``scores``
    and the rest: once the game is over, per player, the score parts as the rules'
    ``Score.parts`` give them (also for a player who does not qualify, whose total is 0:
    ``qualifies`` says which); ``ranking`` best first, ``places`` the shared places."""

    game: int
    edition: str
    players: tuple[str, ...]  # in seat order
    status: str  # "playing", "over", "abandoned"
    points: tuple[Point, ...]
    scores: Mapping[str, Mapping[str, int]] | None
    totals: Mapping[str, int] | None
    ranking: tuple[tuple[str, int], ...] | None  # (player, score) best first
    qualifies: Mapping[str, bool] | None = None
    places: Mapping[str, int] | None = None  # 1-based; a tie shares its place
    start: Point | None = None  # the table at set-up (step 0)
    end_reason: str | None = None  # the rules' code for why the game ended
