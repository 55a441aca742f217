"""Checking and exporting game logs in a database.

``verify_log.py`` beside this file is the standalone, standard-library-only verifier of
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

from companion.audit.verify_log import Finding, canonical, check_records
from companion.i18n import N_, NN_, Msg
from companion.store import GameStore, StoreError
from companion.store.seal import load_key, unseal


@dataclass
class GameCheck:
    game: int
    ok: bool
    message: str | Msg | StoreError  # str(): English; i18n.localized(): the reader's
    records: int = 0
    draws_checked: int = 0


def _stored_records(store: GameStore, game: int) -> list[dict[str, Any]]:
    records = list(store.records(game))
    for rec in records:
        if not isinstance(rec["body"], dict):
            raise Finding(f"record {rec['seq']}: its stored bytes are not a record")
    return records


def verify_game(store: GameStore, game: int) -> GameCheck:
    try:
        row = store.game_row(game)
        records = _stored_records(store, game)
        summary = check_records(store.export_header(game), records)
        first = records[0]["body"]
        if first["commitment"] != row["commitment"]:
            raise Finding("the games table and the log disagree on the commitment")
        endings = [r for r in records if r["kind"] in ("reveal", "abandon")]
        ended = bool(endings)  # decks scored after the end may follow the reveal
        if ended != (row["status"] != "playing"):
            raise Finding(f"the log and the games table disagree: status {row['status']}")
        if ended and endings[0]["body"]["server_seed"] != row["server_seed"]:
            raise Finding("the games table and the log disagree on the revealed seed")
        seed = row["server_seed"]
        if seed is None:
            try:
                sealed = store.db.execute(
                    "SELECT sealed_seed FROM games WHERE id = ?", [game]
                ).fetchone()[0]
                seed = unseal(load_key(store.path, create=False), sealed, row["commitment"])
            except StoreError:
                seed = None
        replayed: str | Msg = ""
        if seed is not None:
            store.rebuild(game, seed, records)
            replayed = Msg(N_(", replayed through the rules"))
    except StoreError as e:
        return GameCheck(game, False, e)
    except Finding as e:
        return GameCheck(game, False, str(e))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        return GameCheck(game, False, f"a malformed record ({type(e).__name__}: {e})")
    if summary["revealed"]:
        detail = Msg(NN_("{n} draw recomputed", "{n} draws recomputed"), n=summary["draws_checked"])
    else:
        detail = Msg(
            NN_("{n} draw sealed until the game ends", "{n} draws sealed until the game ends"),
            n=summary["draws"],
        )
    message = Msg(
        NN_(
            "{n} record chained, {detail}{replayed}; head {head}",
            "{n} records chained, {detail}{replayed}; head {head}",
        ),
        n=summary["records"],
        detail=detail,
        replayed=replayed,
        head=summary["head"],
    )
    return GameCheck(
        game,
        True,
        message,
        summary["records"],
        summary["draws_checked"],
    )


def verify_store(
    store: GameStore, game: int | None = None, progress: Callable[[int, int], None] | None = None
) -> list[GameCheck]:
    ids = [game] if game is not None else [g["id"] for g in store.games()]
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
        if canonical(rec["body"]) != text:
            rec["body"] = text  # altered bytes, even of the same meaning: exported as found
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        count += 1
    return count
