"""The archive: every game of the database, past and present, whatever its kind.

The past-games list, the audit, the charts and the statistics read the games through it:
each game's summary, its draws as its log records them, its story (told by its kind),
the record and the draws' fairness across games, its results, its chain head, its check
and its export. It only reads the store: the game on the table is its kind's controller's.

No Kivy, no words: the screens choose the words. The statistics, the audit and the
charts' story are imported when first asked for (the first frame needs none of them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from companion.store import GameStore
from companion.store.log import undone_actions
from companion.story import LoggedDraw, Place

if TYPE_CHECKING:
    from companion.audit.check import GameCheck
    from companion.history import Fairness, Record
    from companion.story import GameHistory


@dataclass(frozen=True)
class GameSummary:
    """One game of the database, as the past-games list and the audit show it."""

    id: int
    created_at: str | None
    edition: str | None
    players: tuple[str, ...]
    status: str | None
    commitment: str | None
    server_seed: str | None
    ranking: tuple[Place, ...] | None
    actions: int
    head: str | None
    damaged: tuple[str, ...] = ()  # cells of the wrong type, never shown raw
    closed: bool = False  # the table closed the game: its head is final

    @property
    def key_lost(self) -> bool:
        """Given up with its seal key lost: its draws can never be checked."""
        return self.status == "abandoned" and not self.server_seed and bool(self.commitment)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> GameSummary:
        ranking = row.get("ranking")
        return cls(
            id=int(row["id"]),
            created_at=row.get("created_at"),
            edition=row.get("edition"),
            players=tuple(p for p in row.get("players") or [] if isinstance(p, str)),
            status=row.get("status"),
            commitment=row.get("commitment"),
            server_seed=row.get("server_seed"),
            ranking=None
            if ranking is None
            else tuple(Place(r["place"], r["player"], r["score"]) for r in ranking),
            actions=int(row.get("actions") or 0),
            head=row.get("head"),
            damaged=tuple(row.get("damaged") or ()),
            closed=row.get("closed") is True,
        )


def bag_laid_out(seats: Sequence[str], counts: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """A recorded bag in the fair draw's order (``companion.draw.fair.canonical_bag``):
    black, the seats in order, ghost; any other cube after them, as recorded."""
    order = ["black", *seats, "ghost"]
    known = [k for k in order if k in counts]
    others = [k for k in counts if k not in order]
    return tuple((k, int(counts[k])) for k in (*known, *others))


def draws_from_log(
    records: Sequence[Mapping[str, Any]], undone: set[int]
) -> tuple[LoggedDraw, ...]:
    """A game's draws as its log records them (``undone``: the seq numbers of the actions a
    later undo took back): the audit of a game from its log alone."""
    seats: list[str] = []
    out = []
    for rec in records:
        body = rec["body"]
        if not isinstance(body, dict):
            continue
        if rec["kind"] == "new" and isinstance(body.get("setup"), dict):
            players = body["setup"].get("players")
            seats = [p for p in players if isinstance(p, str)] if isinstance(players, list) else []
        if rec["kind"] != "action":
            continue
        for d in body.get("draws") or []:
            try:
                out.append(
                    LoggedDraw(
                        nonce=int(d["nonce"]),
                        reason=str(d.get("reason", "attack")),
                        count=int(d.get("count", len(d["drawn"]))),
                        bag=bag_laid_out(seats, d["bag"]),
                        drawn=tuple(d["drawn"]),
                        undone=rec["seq"] in undone,
                    )
                )
            except (KeyError, TypeError, ValueError, AttributeError):
                continue  # a damaged record: the audit's Verify names it
    return tuple(out)


class Archive:
    """Every game of one database (see the module)."""

    def __init__(self, store: GameStore) -> None:
        self.store = store

    @property
    def data_folder(self) -> Path:
        """The folder of the database (exports go there when no USB stick is in)."""
        return self.store.path.parent

    def games(self) -> list[GameSummary]:
        """Every game of the database, oldest first."""
        return [GameSummary.from_row(row) for row in self.store.games()]

    def game_summary(self, game: int) -> GameSummary | None:
        return next((g for g in self.games() if g.id == game), None)

    def logged_draws(self, game: int) -> tuple[LoggedDraw, ...]:
        """A game's draws as its log records them, undone ones marked."""
        records = [r for r in self.store.records(game) if isinstance(r["body"], dict)]
        return draws_from_log(records, undone_actions(records))

    def history(self, game: int) -> GameHistory:
        """A game told step by step from its log by its kind (for its charts)."""
        from companion.history import game_history

        return game_history(self.store, game)

    def fairness(self) -> Fairness:
        """The cubes drawn in every game of the database against a fair draw."""
        from companion.history import fairness

        return fairness(self.store)

    def record(self) -> Record:
        """Wins and average scores by colour and seat over the finished games of the kinds
        that count in it."""
        from companion.history import record

        return record(self.store)

    def results_csv(self, game: int, out: IO[str]) -> int:
        """A finished game's results for spreadsheets (``companion.history.NoResults``:
        none to write, and why)."""
        from companion.history import results_csv

        return results_csv(self.store, game, out)

    def chain_head(self, game: int) -> str:
        """The newest hash of a game's log (what the table photographs)."""
        return self.store.chain_head(game)

    def verify(self, game: int) -> GameCheck:
        """Re-check a game's log record by record (as ``audit verify`` does)."""
        from companion.audit.check import verify_store

        return verify_store(self.store, game)[0]

    def export(self, game: int, out: IO[str]) -> int:
        """Write a game's log as JSON Lines; returns the records written."""
        from companion.audit.check import export_game

        return export_game(self.store, game, out)
