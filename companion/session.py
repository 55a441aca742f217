"""Playing games that are recorded: the store, the rules and the fair draw together.

The store keeps records and knows nothing of what they mean; the rules play a game and
know nothing of where it is kept. A session starts a game (its seed drawn, sealed and
committed, its set-up recorded before anything is shown), resumes one after a power cut
by replaying its log through the rules (every record must come out exactly as recorded),
and rebuilds one for the audit. Clank! games and Tschak! games (no dragon bag, so no
seed) are kept in the same log.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeAlias

from companion.draw import new_server_seed
from companion.msg import N_
from companion.rules import RuleError, make_setup
from companion.store.db import StoreError
from companion.store.log import GameStore, chained, now_text, undone_actions
from companion.store.seal import load_key, seal, unseal
from companion.table import Table, draw_record, is_tschak
from companion.verify_log import DRAWN, GIVEN, VERSION

if TYPE_CHECKING:  # imported when a Tschak! game is played: Clank! never loads its rules
    from companion.tschak_table import TschakTable

AnyTable: TypeAlias = "Table | TschakTable"


class Session:
    """Games of one store, played through the rules."""

    def __init__(self, store: GameStore) -> None:
        self.store = store

    # ---------------------------------------------------------------- starting
    def start(self, options: dict[str, Any]) -> AnyTable:
        """A new game from a ``new`` line's options, recorded before it is shown.
        RuleError or TschakError for options the rules refuse (nothing is written)."""
        if is_tschak(options):
            return self._start_tschak(options)
        seed = options.get("server_seed")
        # where the seed came from is part of the log: only a seed the companion drew
        # itself makes the draws provably fair; one given by a script (tests, examples)
        # makes them reproducible, and whoever chose it could have chosen the draws
        origin = GIVEN if seed is not None else DRAWN
        if seed is None:
            seed = new_server_seed()
        table = Table.from_options({**options, "server_seed": seed})  # checks the seed
        key = self.store.key_for_new_game()
        setup = table.setup
        body = {
            "format": VERSION,
            "setup": setup.as_dict(),
            "seats": list(setup.players),
            "commitment": table.commitment,
            "client_seed": setup.client_seed,
            "seed_origin": origin,
            "created_at": now_text(),
        }
        table.log = self.store.create_game(
            setup.edition,
            list(setup.players),
            table.commitment,
            seal(key, seed, table.commitment),
            body,
        )
        return table

    def _start_tschak(self, options: dict[str, Any]) -> TschakTable:
        from companion.tschak_table import TschakTable

        table = TschakTable(options)
        setup = table.setup
        body = {
            "format": VERSION,
            "setup": setup,
            "seats": setup["players"],
            "commitment": "",  # no dragon bag: nothing to commit to
            "client_seed": "",
            "created_at": now_text(),
        }
        table.log = self.store.create_game(setup["edition"], setup["players"], "", "", body)
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
        if is_tschak(setup):
            return _rebuild_tschak(game, setup, first, rows)
        try:
            table = Table(make_setup(setup), seed)
        except (RuleError, KeyError, TypeError) as e:
            raise StoreError(
                N_("game {game}: cannot set it up again ({problem})"), game=game, problem=str(e)
            ) from None
        if table.commitment != first["body"].get("commitment"):
            raise StoreError(
                N_("game {game}: the seed does not match the recorded commitment"), game=game
            )
        last = first
        for rec in rows:
            last = rec
            _check_kind(game, rec, table, table.game.state.game_over, "reveal")
            if rec["kind"] == "abandon":
                table.abandoned = True
            if rec["kind"] == "close":
                table.closed = True
            if rec["kind"] != "action":
                continue
            body = rec["body"]
            mark = len(table.game.draws)
            keep = needed is None or rec["seq"] in needed
            try:
                events = table.game.apply(body["action"], keep_before=keep)
            except (RuleError, KeyError, TypeError) as e:
                problem = e.message if isinstance(e, RuleError) else str(e)
                raise _refused(game, rec, problem) from None
            draws = [draw_record(d) for d in table.game.draws[mark:]]
            if events != body.get("events") or draws != body.get("draws"):
                raise _not_as_recorded(game, rec)
        return table, last


def _rebuild_tschak(
    game: int, setup: dict[str, Any], first: dict[str, Any], rows: Any
) -> tuple[TschakTable, dict[str, Any]]:
    from companion.tschak import TschakError
    from companion.tschak_table import TschakTable

    try:
        table = TschakTable(setup)
    except TschakError as e:
        raise StoreError(
            N_("game {game}: cannot set it up again ({problem})"), game=game, problem=str(e)
        ) from None
    if first["body"].get("commitment") != "":
        raise StoreError(
            N_("game {game}: the seed does not match the recorded commitment"), game=game
        )
    last = first
    for rec in rows:
        last = rec
        _check_kind(game, rec, table, table.game.game_over, "end")
        if rec["kind"] == "abandon":
            table.abandoned = True
        if rec["kind"] == "close":
            table.closed = True
        if rec["kind"] != "action":
            continue
        body = rec["body"]
        try:
            events = table.apply(body["action"])  # no log attached while replaying
        except (TschakError, KeyError, TypeError) as e:
            raise _refused(game, rec, str(e)) from None
        if _json(events) != body.get("events") or body.get("draws") != []:
            raise _not_as_recorded(game, rec)
    return table, last


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


def _json(value: Any) -> Any:
    """``value`` as the log reads it back (tuples become lists)."""
    return json.loads(json.dumps(value))
