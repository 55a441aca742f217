"""Playing games that are recorded: the store, the rules and the fair draw together.

The store keeps records and knows nothing of what they mean; the rules play a game and
know nothing of where it is kept. A session starts a game (its seed drawn, sealed and
committed, its set-up recorded before anything is shown), resumes one after a power cut
by replaying its log through the rules (every record must come out exactly as recorded),
and rebuilds one for the audit. What a game is, is its kind's business (``companion.kinds``):
a kind with a dragon bag has its server seed drawn (``companion.start``, as the table
script's), sealed and committed here; every
kind's games are kept in the same log.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from companion.draw import new_server_seed
from companion.kinds import GameTable, kind_for
from companion.msg import N_, Refusal
from companion.start import start_table
from companion.store.db import StoreError
from companion.store.log import GameStore, chained, now_text, undone_actions
from companion.store.seal import load_key, seal, unseal
from companion.verify_log import VERSION

AnyTable: TypeAlias = GameTable


class Session:
    """Games of one store, played through the rules of their kind."""

    def __init__(self, store: GameStore) -> None:
        self.store = store

    # ---------------------------------------------------------------- starting
    def start(self, options: dict[str, Any]) -> AnyTable:
        """A new game from a ``new`` line's options, recorded before it is shown.
        The kind's refusal (RuleError, TschakError...) for options it refuses, SeedError
        for a given seed that is not one: nothing is written (``companion.start``)."""
        # the seed given (checked), or drawn here: a test makes the companion draw the
        # seed it wants by putting its own ``new_server_seed`` in this module
        started = start_table(options, lambda: new_server_seed())
        kind, table = started.kind, started.table
        extra: dict[str, Any] = {}
        if started.seed_origin is not None:
            extra["seed_origin"] = started.seed_origin
        record = kind.setup_record(table)
        commitment = record["commitment"]
        sealed = ""
        if kind.has_bag:
            sealed = seal(self.store.key_for_new_game(), started.server_seed, commitment)
        body = {"format": VERSION, **record, **extra, "created_at": now_text()}
        table.log = self.store.create_game(
            table.edition, list(record["seats"]), commitment, sealed, body
        )
        return table

    # ---------------------------------------------------------------- resuming
    def resume(self, game: int) -> AnyTable:
        """Rebuild a running (or finished) game from its log and carry on writing to it.

        GameBusy while another program has the game open; SealError when the seal key
        cannot open a running game's seed (see ``GameStore.abandon_unresumable``)."""
        row = self.store.resumable(game)
        self.store.hold(game)
        try:
            seed = row["server_seed"]
            if seed is None and row["commitment"]:  # a game with a bag, still sealed
                key = load_key(self.store.path, create=False)
                seed = unseal(key, row["sealed_seed"] or "", row["commitment"] or "")
            table, last = self.rebuild(game, seed)
        except BaseException:
            self.store.release(game)
            raise
        table.log = self.store.log_after(game, last)
        if row["status"] == "abandoned":
            table.abandoned = True
        return table

    def rebuild(
        self, game: int, seed: str | None, records: list[dict[str, Any]] | None = None
    ) -> tuple[AnyTable, dict[str, Any]]:
        """Replay a game's log with its seed (None for a game without a bag); every
        record must come out as recorded.

        Given ``records`` (a check of the whole log), the states that no recorded undo
        needs are not kept: the result is for reading, not for playing on.
        """
        needed = undone_actions(records) if records is not None else None
        rows = chained(game, iter(records) if records is not None else self.store.records(game))
        first = next(rows, None)
        if first is None or first["kind"] != "new" or not isinstance(first["body"], dict):
            raise StoreError(
                N_("game {game}: its log does not start with the game's set-up"), game=game
            )
        setup = first["body"].get("setup")
        kind = kind_for(setup)
        refused: tuple[type[Exception], ...] = (*kind.errors, KeyError, TypeError)
        try:  # a set-up that is not an object is the kind's to refuse, in its words
            table = kind.rebuild_table(first["body"], seed if kind.has_bag else None)
        except refused as e:
            raise StoreError(
                N_("game {game}: cannot set it up again ({problem})"),
                game=game,
                problem=str(e),
            ) from None
        if kind.commitment(table) != first["body"].get("commitment"):
            raise StoreError(
                N_("game {game}: the seed does not match the recorded commitment"), game=game
            )
        last = first
        for rec in rows:
            last = rec
            _check_kind(game, rec, table, kind.is_over(table), kind.ending)
            if rec["kind"] == "abandon":
                table.abandoned = True
            if rec["kind"] == "close":
                table.closed = True
            if rec["kind"] != "action":
                continue
            body = rec["body"]
            keep = needed is None or rec["seq"] in needed
            try:
                events, draws = kind.replay(table, body["action"], keep)
            except refused as e:
                raise _refused(game, rec, _problem(e)) from None
            if events != body.get("events") or draws != body.get("draws"):
                raise _not_as_recorded(game, rec)
        return table, last


def _problem(error: Exception) -> object:
    """What a refused action says, for a record's message: a refusal's own message (the
    table's language when shown), else the error's English text."""
    return error.message if isinstance(error, Refusal) else str(error)


def _check_kind(game: int, rec: dict[str, Any], table: AnyTable, over: bool, ending: str) -> None:
    """A record the game's replay can take at this point: an action while the game
    stands, its ending (``ending``: "reveal" with a bag, "end" without) once it is over,
    an abandon, the close of a game over; nothing after the close."""
    kind = rec["kind"]
    abandoned = table.abandoned
    if table.closed:
        raise StoreError(
            N_("game {game} record {record}: written after the game was closed"),
            game=game,
            record=rec["seq"],
        )
    if kind == "close" and (not over or abandoned):
        raise StoreError(
            N_("game {game} record {record}: a close before the game is over"),
            game=game,
            record=rec["seq"],
        )
    if kind == ending and not over:
        raise StoreError(
            N_("game {game} record {record}: a reveal before the game is over"),
            game=game,
            record=rec["seq"],
        )
    if kind not in ("action", ending, "abandon", "close"):
        raise StoreError(
            N_("game {game} record {record}: not a record of a game"), game=game, record=rec["seq"]
        )
    if kind == "action" and not isinstance(rec["body"], dict):
        raise StoreError(N_("game {game} record {record}: damaged"), game=game, record=rec["seq"])
    if kind == "action" and abandoned:
        raise StoreError(
            N_("game {game} record {record}: an action after abandoning"),
            game=game,
            record=rec["seq"],
        )


def _refused(game: int, rec: dict[str, Any], problem: object) -> StoreError:
    return StoreError(
        N_("game {game} record {record}: refused on replay ({problem})"),
        game=game,
        record=rec["seq"],
        problem=problem,
    )


def _not_as_recorded(game: int, rec: dict[str, Any]) -> StoreError:
    return StoreError(
        N_("game {game} record {record}: does not replay as recorded"),
        game=game,
        record=rec["seq"],
    )
