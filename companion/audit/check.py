"""Checking and exporting game logs in a database.

``companion/verify_log.py`` is the standalone, standard-library-only verifier of
an exported game; the database check below runs the same checks on the stored records,
plus what only the database can show: the stored bytes are the canonical ones, the
games table agrees with the log, and the whole game replays through the rules exactly
as recorded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from companion.i18n import N_, NN_, Msg
from companion.session import Session
from companion.store import GameStore, StoreError
from companion.store.seal import load_key, unseal
from companion.verify_log import (
    EXIT_FAILED,
    EXIT_NOT_PROVABLY_FAIR,
    EXIT_OK,
    EXIT_SEALED,
    Finding,
    canonical,
    check_records,
)


@dataclass
class GameCheck:
    game: int
    ok: bool  # the log holds together (False: FAILED, the message says where)
    message: str | Msg | StoreError  # str(): English; i18n.localized(): the reader's
    records: int = 0
    draws_checked: int = 0
    # the verdict, as the standalone verifier's exit status: 0 every draw recomputed and
    # equal, the seed revealed; 1 failed; 3 not provably fair (seed given, or lost); 4 not
    # yet (the game runs, its seed sealed)
    status: int = EXIT_OK
    final: bool = False  # the table closed the game: its head is final

    @property
    def verdict(self) -> str:
        """The verdict in English capitals, as the verifiers print it."""
        return VERDICTS[self.status]


VERDICTS = {
    EXIT_OK: N_("OK"),
    EXIT_FAILED: N_("FAILED"),
    EXIT_NOT_PROVABLY_FAIR: N_("NOT PROVABLY FAIR"),
    EXIT_SEALED: N_("NOT YET"),
}


def worst(checks: list[GameCheck]) -> int:
    """The exit status of a check of several games: a failure first, then a game that
    cannot prove itself fair, then one still sealed."""
    for status in (EXIT_FAILED, EXIT_NOT_PROVABLY_FAIR, EXIT_SEALED):
        if any(c.status == status for c in checks):
            return status
    return EXIT_OK


def _stored_records(store: GameStore, game: int) -> list[dict[str, Any]]:
    """The game's records; the stored bytes of each body must be its canonical text (the
    standalone verifier, given the export of such a record, fails the same way)."""
    records = list(store.records(game))
    for rec in records:
        text = rec.pop("_text")
        if not isinstance(rec["body"], dict) or canonical(rec["body"]) != text:
            raise Finding(f"record {rec['seq']}: its body is not a canonical record")
    return records


def _check_games_row(store: GameStore, game: int, row: dict[str, Any]) -> str | None:
    """What the games table keeps beside the log must be what the log says: its damaged
    cells, and the sealed seed (which must open, with the key, to the game's seed).
    Returns the seed (revealed, or unsealed with the key), None when it cannot be had,
    "" for a game without a dragon bag (replayed with no seed)."""
    if row["damaged"]:
        raise Finding(f"the games table's {', '.join(row['damaged'])} cannot be read")
    sealed = store.read.execute("SELECT sealed_seed FROM games WHERE id = ?", [game]).fetchone()[0]
    if row["commitment"] == "":  # a game without a dragon bag: nothing sealed
        if sealed != "" or row["server_seed"] is not None:
            raise Finding("the games table holds a seed for a game without a dragon bag")
        return ""
    if row["status"] == "abandoned" and row["server_seed"] is None:
        return None  # given up with its key lost: nothing can open it
    try:
        key = load_key(store.path, create=False)
    except StoreError:
        return row["server_seed"]  # no key here: a running game cannot be replayed
    try:
        unsealed = unseal(key, sealed, row["commitment"])
    except StoreError:
        raise Finding("the games table's sealed seed does not open to the game's seed") from None
    if row["server_seed"] is not None and unsealed != row["server_seed"]:
        raise Finding("the games table's sealed seed is not the revealed seed")
    return unsealed


def verify_game(store: GameStore, game: int) -> GameCheck:
    try:
        in_games = store.read.execute("SELECT 1 FROM games WHERE id = ?", [game]).fetchone()
        in_log = store.read.execute("SELECT 1 FROM log WHERE game = ?", [game]).fetchone()
        if in_log and not in_games:
            raise Finding(f"the log holds game {game}, but the games table does not")
        row = store.game_row(game)
        records = _stored_records(store, game)
        # the header is the games table's row: the record checks compare it with the log
        summary = check_records(store.export_header(game), records)
        seed = _check_games_row(store, game, row)
        replayed: str | Msg = ""
        if seed is not None:
            table, _last = Session(store).rebuild(game, seed or None, records)
            over = table.finished and not table.abandoned
            ranking = table.snapshot()["ranking"] if over else None
            if (ranking or None) != row["ranking"]:
                raise Finding("the games table's ranking is not the one the log gives")
            replayed = Msg(N_(", replayed through the rules"))
        elif row["ranking"] is not None and row["status"] != "over":
            raise Finding("the games table ranks a game that is not over")
    except StoreError as e:
        return GameCheck(game, False, e, status=EXIT_FAILED)
    except Finding as e:
        return GameCheck(game, False, str(e), status=EXIT_FAILED)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
        return GameCheck(
            game, False, f"a malformed record ({type(e).__name__}: {e})", status=EXIT_FAILED
        )
    status = EXIT_OK
    if summary["no_bag"]:
        detail = Msg(N_("no dragon bag, so no draw"))
    elif summary["seed_lost"]:
        status = EXIT_NOT_PROVABLY_FAIR
        detail = Msg(
            NN_(
                "{n} draw never to be recomputed (the seal key was lost)",
                "{n} draws never to be recomputed (the seal key was lost)",
            ),
            n=summary["draws"],
        )
    elif not summary["revealed"]:
        # still running: with the key here the game was replayed and its draws
        # recomputed with the sealed seed, but nobody else can recompute one before the
        # seed is revealed: NOT YET, whoever drew the seed, as the standalone verifier says
        status = EXIT_SEALED
        detail = Msg(
            NN_("{n} draw sealed until the game ends", "{n} draws sealed until the game ends"),
            n=summary["draws"],
        )
    elif summary["seed_given"]:
        status = EXIT_NOT_PROVABLY_FAIR
        detail = Msg(
            N_(
                "seed chosen outside the companion: draws reproducible, not provably fair "
                "({n} recomputed)"
            ),
            n=summary["draws_checked"],
        )
    else:
        detail = Msg(NN_("{n} draw recomputed", "{n} draws recomputed"), n=summary["draws_checked"])
    if summary["closed"]:
        final = Msg(N_(" (final: the game was closed)"))
    elif summary["over"]:
        final = Msg(N_(" (not final: the game was not closed, deck scans may follow)"))
    else:
        final = Msg(N_(" (so far)"))
    message = Msg(
        NN_(
            "{n} record chained, {detail}{replayed}; head {head}{final}",
            "{n} records chained, {detail}{replayed}; head {head}{final}",
        ),
        n=summary["records"],
        detail=detail,
        replayed=replayed,
        head=summary["head"],
        final=final,
    )
    return GameCheck(
        game,
        True,
        message,
        summary["records"],
        summary["draws_checked"],
        status,
        summary["closed"],
    )


def audited_games(store: GameStore) -> list[int]:
    """The games an audit of the whole store checks: those of the games table, and any
    whose log has left it (checked, and failed, too)."""
    logged = [r[0] for r in store.read.execute("SELECT DISTINCT game FROM log").fetchall()]
    return sorted({g["id"] for g in store.games()} | set(logged))


def verify_store(
    store: GameStore, game: int | None = None, progress: Callable[[int, int], None] | None = None
) -> list[GameCheck]:
    ids = [game] if game is not None else audited_games(store)
    results = []
    for i, gid in enumerate(ids, start=1):
        results.append(verify_game(store, gid))
        if progress is not None:
            progress(i, len(ids))
    return results


def export_game(store: GameStore, game: int, out: IO[str]) -> int:
    """Write one game as JSON Lines (header, then records); returns the records written."""
    out.write(json.dumps(store.export_header(game), ensure_ascii=False) + "\n")
    count = 0
    for rec in store.records(game):
        text = rec.pop("_text")
        if not isinstance(rec["body"], dict) or canonical(rec["body"]) != text:
            # altered bytes, even of the same meaning: exported as found (a string), which
            # the standalone verifier refuses as the database check does
            rec["body"] = text
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        count += 1
    return count
