"""A game told as data: what the history screens chart, whatever the game's kind.

Pure dataclasses: the kinds tell their games in these (``GameKind.story``), the charts
and the statistics read them. A point names no game: the kind that tells it says what
it measures (its tallies and levels, by name) and which steps are marked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Place:
    """One place of a finished game's ranking."""

    place: int
    player: str
    score: int


@dataclass(frozen=True)
class LoggedDraw:
    """One fair draw as a game's log records it (and its table shows it)."""

    nonce: int
    reason: str  # the kind's code for why it drew ("attack", "countdown", ...)
    count: int
    bag: tuple[tuple[str, int], ...]  # the bag before the draw, as the fair draw lays it out
    drawn: tuple[str, ...]
    undone: bool  # a later undo took it back (its nonce stays used)


@dataclass(frozen=True)
class Point:
    """The table after one committed action (undone actions are not replayed: the points
    are what the game really was). ``step`` 0 is the table at set-up.

    What is charted is named by the kind that tells the game: ``tallies`` holds each
    measure kept per player (by measure, then player), ``levels`` each measure of the
    whole table; ``marked`` is a step the charts mark along their axis. A kind keeps its
    own account of a step in a subclass of its own."""

    step: int  # 1, 2, ... in order
    turn: int  # the turn number after this action
    active: str  # whose turn
    tallies: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    levels: Mapping[str, int] = field(default_factory=dict)
    marked: bool = False

    def tally(self, measure: str, player: str) -> int:
        """One player's ``measure`` at this step (0: not kept)."""
        return self.tallies.get(measure, {}).get(player, 0)


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
