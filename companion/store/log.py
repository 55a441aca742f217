"""The append-only, hash-chained game log: games, their records, the seal key they
depend on. What the records mean (the rules, the draws) is the session's business
(``companion/session.py``): the store keeps records, it never plays a game."""

from __future__ import annotations

import contextlib
import datetime
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.i18n import N_
from companion.store import lock
from companion.store.db import LazyDatabase, StoreError, open_database
from companion.store.records import (
    AbandonBody,
    ActionBody,
    Body,
    CloseBody,
    EndBody,
    RecordKind,
    RevealBody,
)
from companion.store.seal import SealError, key_path, load_key
from companion.verify_log import FORMAT, GENESIS, VERSION, canonical, link_hash, record_bytes

SQLITE_INTEGERS = range(-(2**63), 2**63)  # what an INTEGER column holds


def _sql_failure(e: sqlite3.Error) -> StoreError:
    text = str(e)
    if "full" in text:
        return StoreError(N_("the disk is full: the action was not recorded (free some space)"))
    if "readonly" in text or "read-only" in text:
        return StoreError(N_("the database cannot be written: the action was not recorded"))
    if "UNIQUE" in text:
        return StoreError(
            N_(
                "another program wrote to this game meanwhile: the action was not recorded "
                "(close the other program, then resume the game)"
            )
        )
    return StoreError(N_("the action was not recorded: {problem}"), problem=text)


class GameStore:
    """A database of games."""

    def __init__(
        self, path: Path | str, *, create: bool = True, later_schema: bool = False
    ) -> None:
        """``create=False``: a missing database is refused (commands that only read).
        ``later_schema``: a database made now gets its schema at its first use rather
        than at once (the touchscreen's first frame does without sqlite-utils)."""
        self.path = Path(path)
        # writes through sqlite-utils (made at the first), reads through the connection
        self.db: LazyDatabase = open_database(self.path, create=create, later=later_schema)
        self._held: set[int] = set()  # games open here for writing (see store.lock)

    @property
    def read(self) -> sqlite3.Connection:
        """The connection reads go through (a new database gets its schema first)."""
        return self.db.reader()

    def close(self) -> None:
        for game in list(self._held):
            self.release(game)
        try:
            if self.db.pending:  # a database made and not used yet: its schema all the same
                self.db.load()
        finally:
            self.db.conn.close()

    def hold(self, game: int) -> None:
        """Open ``game`` for writing here; GameBusy while another program has it."""
        if game not in self._held:
            lock.acquire(self.path, game)
            self._held.add(game)

    def release(self, game: int) -> None:
        """This store writes to ``game`` no more: another program may open it."""
        if game in self._held:
            self._held.discard(game)
            lock.release(self.path, game)

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- writing
    def _append(self, game: int, seq: int, prev: str, kind: str, body: Any) -> str:
        text = canonical(body)
        digest = link_hash(prev, record_bytes(game, seq, kind, text))
        self.db.execute(
            "INSERT INTO log (game, seq, kind, body, prev, hash) VALUES (?, ?, ?, ?, ?, ?)",
            [game, seq, kind, text, prev, digest],
        )
        return digest

    def create_game(
        self,
        edition: str,
        players: list[str],
        commitment: str,
        sealed_seed: str,
        body: dict[str, Any],
    ) -> GameLog:
        """A new game: its row and its "new" record (``body``), in one transaction.
        The game is held for writing here; its log is returned, ready for the actions.
        A game without a dragon bag has no seed: ``commitment`` and ``sealed_seed`` "".
        The game's date is the body's ``created_at`` (the chain covers it), else now."""
        now = body.get("created_at") or now_text()
        try:
            with self.db.atomic():
                cursor = self.db.execute(
                    "INSERT INTO games (created_at, edition, players, commitment, sealed_seed)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [now, edition, json.dumps(players), commitment, sealed_seed],
                )
                game = int(cursor.lastrowid or 0)
                head = self._append(game, 1, GENESIS, "new", body)
        except sqlite3.Error as e:
            raise _sql_failure(e) from None
        self.hold(game)
        return GameLog(self, game, 2, head)

    def key_for_new_game(self) -> bytes:
        """The seal key, made if missing. A damaged key is never used: it is put aside
        and replaced only when no running game depends on it."""
        running = self.last_unfinished()
        if running is not None and not key_path(self.path).exists():
            raise SealError(
                N_(
                    "the seal key {path} is missing and game {game} depends on it: put the "
                    "key back (or abandon that game) before a new one"
                ),
                path=str(key_path(self.path)),
                game=running,
            )
        try:
            return load_key(self.path, create=True)
        except SealError:
            if running is not None:
                raise SealError(
                    N_(
                        "the seal key {path} is damaged and game {game} depends on it: "
                        "abandon that game (or put the right key back) before a new one"
                    ),
                    path=str(key_path(self.path)),
                    game=running,
                ) from None
            damaged = key_path(self.path)
            with contextlib.suppress(FileNotFoundError):  # another program moved it already
                damaged.replace(damaged.with_name(damaged.name + ".damaged"))
            return load_key(self.path, create=True)

    # ---------------------------------------------------------------- reading
    def games(self) -> list[dict[str, Any]]:
        rows = self.read.execute(
            """SELECT g.id, g.created_at, g.edition, g.players, g.status, g.commitment,
                      g.server_seed, g.ranking,
                      (SELECT count(*) FROM log WHERE game = g.id AND kind = 'action') AS actions,
                      (SELECT hash FROM log WHERE game = g.id ORDER BY seq DESC LIMIT 1) AS head,
                      EXISTS (SELECT 1 FROM log WHERE game = g.id AND kind = 'close') AS closed
               FROM games g ORDER BY g.id"""
        ).fetchall()
        keys = [
            "id",
            "created_at",
            "edition",
            "players",
            "status",
            "commitment",
            "server_seed",
            "ranking",
            "actions",
            "head",
            "closed",
        ]
        out = []
        for row in rows:
            item = dict(zip(keys, row, strict=True))
            damaged_text = [
                key
                for key in ("created_at", "edition", "status", "commitment", "server_seed", "head")
                if item[key] is not None and not isinstance(item[key], str)
            ]
            for key in damaged_text:
                item[key] = None  # a cell of the wrong type (bytes): named, never shown raw
            players = _json_or(row[3], list, None)
            if players is not None and not all(isinstance(p, str) for p in players):
                players = None
            ranking = _json_or(row[7], list, None) if row[7] is not None else None
            if ranking is not None and not all(_a_place(r) for r in ranking):
                ranking = None
            item["closed"] = bool(item["closed"])
            item["players"] = players or []
            item["ranking"] = ranking
            item["damaged"] = damaged_text + [
                key
                for key, raw, value in (("players", row[3], players), ("ranking", row[7], ranking))
                if raw is not None and value is None
            ]
            out.append(item)
        return out

    def chain_head(self, game: int) -> str:
        """The newest hash of a game's log ("" for a game with no record)."""
        row = self.read.execute(
            "SELECT hash FROM log WHERE game = ? ORDER BY seq DESC LIMIT 1", [game]
        ).fetchone()
        return row[0] if row and isinstance(row[0], str) else ""

    def game_row(self, game: int) -> dict[str, Any]:
        for item in self.games():
            if item["id"] == game:
                return item
        raise StoreError(N_("no game {game} in {path}"), game=game, path=str(self.path))

    def last_unfinished(self) -> int | None:
        if self.db.pending:
            return None  # a database made just now holds no game
        row = self.read.execute("SELECT max(id) FROM games WHERE status = 'playing'").fetchone()
        return row[0] if row else None

    def last_game(self) -> int | None:
        if self.db.pending:
            return None
        row = self.read.execute("SELECT max(id) FROM games").fetchone()
        return row[0] if row else None

    def in_progress(self, game: int) -> dict[str, Any]:
        """The table's work in progress on a game (see ``save_in_progress``); a damaged
        row reads as nothing in progress (it must never stop the app at start)."""
        try:
            row = self.read.execute(
                "SELECT CAST(body AS BLOB) FROM in_progress WHERE game = ?", [game]
            ).fetchone()
        except sqlite3.DatabaseError:
            return {}
        if row is None or not isinstance(row[0], bytes):
            return {}
        body = _json_or(row[0], dict, {})
        return body if isinstance(body, dict) else {}

    def save_in_progress(self, game: int, body: dict[str, Any]) -> None:
        """Scans not yet turned into an action; kept across power cuts."""
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        try:
            self.db.execute(
                "INSERT INTO in_progress (game, body) VALUES (?, ?) "
                "ON CONFLICT(game) DO UPDATE SET body = excluded.body",
                [game, text],
            )
        except sqlite3.Error as e:
            raise _sql_failure(e) from None

    def records(self, game: int) -> Iterator[dict[str, Any]]:
        """The game's records in order, body parsed; "_text" keeps the stored bytes, which
        the chain hashes. A body that is not text or not JSON comes as its stored text
        (the verifiers name it); a database too damaged to read is a StoreError."""
        try:
            rows = self.read.execute(
                "SELECT game, seq, kind, CAST(body AS BLOB), prev, hash FROM log "
                "WHERE game = ? ORDER BY seq",
                [game],
            ).fetchall()
        except sqlite3.DatabaseError as e:
            raise StoreError(
                N_("{path} is damaged ({problem}): restore a backup"),
                path=str(self.path),
                problem=str(e),
            ) from None
        for g, seq, kind, raw, prev, digest in rows:
            body: str = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
            try:
                parsed = json.loads(raw.decode("utf-8")) if isinstance(raw, bytes) else None
            except (ValueError, RecursionError):
                parsed = None
            yield {
                "game": g,
                "seq": seq,
                "kind": kind,
                "body": body if parsed is None else parsed,  # damaged: the verifiers name it
                "prev": prev,
                "hash": digest,
                "_text": body,
            }

    def export_header(self, game: int) -> dict[str, Any]:
        row = self.game_row(game)
        keep = ["id", "created_at", "edition", "players", "status", "commitment", "server_seed"]
        return {"format": FORMAT, "version": VERSION, "game": {k: row[k] for k in keep}}

    # --------------------------------------------------------------- resuming
    def _game_row_of(self, game: int, columns: str) -> tuple[Any, ...]:
        """The ``columns`` of ``game``'s row; StoreError when there is no such game (a
        number beyond SQLite's 64-bit integers names none: SQLite would not take it)."""
        row = None
        if game in SQLITE_INTEGERS:
            row = self.read.execute(f"SELECT {columns} FROM games WHERE id = ?", [game]).fetchone()
        if row is None:
            raise StoreError(N_("no game {game} in {path}"), game=game, path=str(self.path))
        return tuple(row)

    def resumable(self, game: int) -> dict[str, str | None]:
        """What resuming ``game`` needs from its row: edition, commitment, sealed seed,
        status and the revealed seed (None while sealed). StoreError for a missing game,
        a damaged row, or a game abandoned without its seed."""
        row = self._game_row_of(game, "commitment, sealed_seed, status, server_seed, edition")
        commitment, sealed, status, revealed, edition = row
        if not all(isinstance(v, str) for v in (commitment, sealed, status, edition)) or not (
            revealed is None or isinstance(revealed, str)
        ):
            raise StoreError(
                N_("game {game}: its row in the games table is damaged (see audit verify)"),
                game=game,
            )
        if status == "abandoned" and not revealed and commitment:
            raise StoreError(
                N_("game {game} was abandoned without its seed: there is nothing to resume"),
                game=game,
            )
        return {
            "edition": edition,
            "commitment": commitment,
            "sealed_seed": sealed,
            "status": status,
            "server_seed": revealed,
        }

    def log_after(self, game: int, last: dict[str, Any]) -> GameLog:
        """The log of ``game``, writing after its record ``last`` (held here already)."""
        return GameLog(self, game, last["seq"] + 1, last["hash"])

    def abandon_unresumable(self, game: int, reason: str) -> None:
        """Give up a running game whose seed cannot be unsealed (its key is lost or
        damaged). The log stays verifiable up to this record; its draws can never be
        recomputed, and the audit says so."""
        row = self._game_row_of(game, "status")
        if row[0] != "playing":
            raise StoreError(N_("game {game} is not running"), game=game)
        self.hold(game)
        try:
            last = self.read.execute(
                "SELECT seq, hash FROM log WHERE game = ? ORDER BY seq DESC LIMIT 1", [game]
            ).fetchone()
            if last is None:
                raise StoreError(
                    N_("game {game}: its log does not start with the game's set-up"), game=game
                )
            GameLog(self, game, last[0] + 1, last[1]).abandon(None, reason)
        finally:
            self.release(game)


def now_text() -> str:
    """The date and time a game is made, as the games table and its "new" record keep it."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def chained(game: int, records: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The records, each checked against the chain as it comes: a game is never resumed,
    nor written to, after a record that does not verify."""
    prev, expected = GENESIS, 1
    for rec in records:
        body = rec["body"]
        text = canonical(body) if isinstance(body, dict) else None
        try:
            ok = (
                rec["seq"] == expected
                and rec["prev"] == prev
                and text is not None
                and rec.get("_text", text) == text
                and isinstance(rec["kind"], str)
                and link_hash(prev, record_bytes(game, expected, rec["kind"], text)) == rec["hash"]
            )
        except (TypeError, ValueError):  # a hash that is not hexadecimal
            ok = False
        if not ok:
            raise StoreError(
                N_(
                    "game {game} record {record}: the log does not verify there "
                    "(see audit verify); the game is not resumed"
                ),
                game=game,
                record=expected,
            )
        yield rec
        prev, expected = rec["hash"], expected + 1


def _a_place(entry: Any) -> bool:
    """One line of a ranking as the games table keeps it."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("player"), str)
        and all(isinstance(entry.get(k), int) for k in ("place", "score"))
    )


def _json_or(text: Any, kind: type, default: Any) -> Any:
    """``text`` parsed as JSON if it is a ``kind``, else ``default`` (a damaged cell)."""
    try:
        value = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
    except (TypeError, ValueError, RecursionError):
        return default
    return value if isinstance(value, kind) else default


def undone_actions(records: list[dict[str, Any]]) -> set[int]:
    """The seq numbers of the action records that a later undo record takes back."""
    stack: list[int] = []
    undone: set[int] = set()
    for rec in records:
        body = rec["body"]
        if rec["kind"] != "action" or not isinstance(body, dict):
            continue
        action = body.get("action")
        if isinstance(action, dict) and action.get("do") == "undo":
            if stack:
                undone.add(stack.pop())
        else:
            stack.append(rec["seq"])
    return undone


class GameLog:
    """One game's end of the log: appends records, chained, each in its own transaction."""

    def __init__(self, store: GameStore, game: int, seq: int, head: str) -> None:
        self.store = store
        self.game = game
        self.seq = seq
        self.head = head

    def _commit(
        self,
        records: list[tuple[RecordKind, Body]],
        update: tuple[str, list[Any]] | None,
        work: dict[str, Any] | None = None,
    ) -> None:
        seq, head = self.seq, self.head
        try:
            with self.store.db.atomic():
                for kind, body in records:
                    head = self.store._append(self.game, seq, head, kind, body)
                    seq += 1
                if update is not None:
                    self.store.db.execute(*update)
                if work is not None:  # the table's work in progress, as the action leaves it
                    self.store.save_in_progress(self.game, work)
        except sqlite3.Error as e:
            raise _sql_failure(e) from None
        self.seq, self.head = seq, head

    def record(
        self,
        action: dict[str, Any],
        events: list[dict[str, Any]],
        draws: list[dict[str, Any]],
        ending: dict[str, Any] | None,
        work: dict[str, Any] | None = None,
    ) -> None:
        """Commit one action, with its events and draws (and the game's end, when it
        ends it); ``work``, where given, is the table's work in progress after it
        (``GameStore.save_in_progress``), committed in the same transaction: a power cut
        keeps both or neither."""
        body: ActionBody = {"action": action, "events": events, "draws": draws}
        records: list[tuple[RecordKind, Body]] = [("action", body)]
        update = None
        # the record that ends the game says when (BG Stats' length of the play, read
        # back from the log by whoever shows it later)
        ended_at = now_text()
        if ending is not None and "reason" not in ending:  # a deck scored after the end
            update = (
                "UPDATE games SET ranking = ? WHERE id = ?",
                [json.dumps(ending["ranking"]), self.game],
            )
        elif ending is not None and "server_seed" not in ending:  # over, with no seed
            end: EndBody = {"reason": ending["reason"], "ended_at": ended_at}
            records.append(("end", end))
            update = (
                "UPDATE games SET status = 'over', ranking = ? WHERE id = ?",
                [json.dumps(ending["ranking"]), self.game],
            )
        elif ending is not None:
            reveal: RevealBody = {
                "server_seed": ending["server_seed"],
                "reason": ending["reason"],
                "ended_at": ended_at,
            }
            records.append(("reveal", reveal))
            update = (
                "UPDATE games SET status = 'over', server_seed = ?, ranking = ? WHERE id = ?",
                [ending["server_seed"], json.dumps(ending["ranking"]), self.game],
            )
        self._commit(records, update, work)

    def close(self, reason: str) -> None:
        """The table closed the scored game: nothing more is written to its log, and
        this record's hash is the final chain head, the one to photograph."""
        close: CloseBody = {"reason": reason}
        self._commit([("close", close)], None)

    def abandon(self, server_seed: str | None, reason: str) -> None:
        """The game is given up; ``server_seed`` None: it was lost with its key. The
        record says when (``ended_at``), as the record that ends a game does."""
        body: AbandonBody = {"server_seed": server_seed, "reason": reason, "ended_at": now_text()}
        self._commit(
            [("abandon", body)],
            (
                "UPDATE games SET status = 'abandoned', server_seed = ? WHERE id = ?",
                [server_seed, self.game],
            ),
        )
