"""The table's games as the phones see them: read from the game database without
writing a byte, and rebuilt from the log's recorded draws, never from the seed.

The database is opened read-only. While the table's app has it open (its ``-wal`` and
``-shm`` files are there) the connection reads through them without writing to either
(``readonly_shm``); when nobody has it open it is read as ``immutable``, which makes no
file beside it, and opened again as soon as the files change. Nothing here reads the
seal key or the sealed seed: a running game is replayed through its kind's rules (its
phones part, ``GameKind.phone_face``, sets its table up again without the seed) with a
chance source that hands back, draw by draw, the cubes its log recorded (the way
``companion.history`` tells a game), every record checked against the hash chain and
every replayed action against what was recorded. The state is then the kind's table
script output (``replay --json``): the same object (for a game with a bag, the next
draw's odds included while the game runs), the server seed only once the log revealed
it. A game of a kind without a phones part is not replayed: it is one the phones cannot
show (``NotShown``).

A game is replayed once; each change of the log feeds it only the records that are new.
"""

from __future__ import annotations

import datetime
import json
import os
import sqlite3
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.kinds import GameKind, GameTable, kind_for
from companion.kinds.base import PhoneFace
from companion.store.db import APPLICATION_ID, SQLITE_HEADER, database_uri
from companion.verify_log import GENESIS, canonical, link_hash, record_bytes

ENDINGS = ("reveal", "end")  # the record that ends a game: with its seed, or without a bag
READ_BATCH = 2000  # records read at a time (a long evening is a few hundred)
KEPT_GAMES = 4  # games kept replayed (the newest, and a few older ones asked for)
BUSY_MS = 1000  # how long a read waits for the table's write to make room


class Unavailable(Exception):
    """The database cannot be read now: ``code`` says why ("no_database",
    "not_a_database", "unreadable"); the message is for the log, one line."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class NoSuchGame(Exception):
    """No game of that number (or no game at all)."""


class NotShown(Exception):
    """A game of a kind the phones cannot show (its kind has no phones part): ``game``,
    its number, ``edition``, its edition."""

    def __init__(self, game: int, edition: str) -> None:
        super().__init__(f"game {game} ({edition}) is of a kind the phones cannot show")
        self.game = game
        self.edition = edition


# ------------------------------------------------------------------ the database
def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _side(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


class ReadOnlyDatabase:
    """The game database, read-only; opened when first read, opened again when the
    file was replaced or (read as ``immutable``) changed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn: sqlite3.Connection | None = None
        self.immutable = False
        self._opened: tuple[Any, ...] | None = None  # the signature it was opened with

    def signature(self) -> tuple[Any, ...]:
        """What changes whenever anything is committed: the file and its write-ahead
        log (size and time), and whether the table's app has them open. Two stat calls:
        cheap enough to look ten times a second."""
        return (
            _stat(self.path),
            _stat(_side(self.path, "-wal")),
            os.path.exists(_side(self.path, "-shm")),
        )

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn = None
        self._opened = None

    def connection(self) -> sqlite3.Connection:
        """The open connection (Unavailable when the database cannot be read)."""
        sig = self.signature()
        if self.conn is not None and self._opened is not None:
            replaced = sig[0] is None or self._opened[0] is None or sig[0][0] != self._opened[0][0]
            app_came = self.immutable and sig[1] is not None and sig[2]
            if replaced or (self.immutable and sig != self._opened) or app_came:
                self.close()
        if self.conn is None:
            self.conn = self._open()
            self._opened = sig
        return self.conn

    def _open(self) -> sqlite3.Connection:
        path = self.path
        try:
            with open(path, "rb") as f:
                head = f.read(100)
        except FileNotFoundError:
            raise Unavailable("no_database", f"no game database at {path}") from None
        except OSError as e:
            raise Unavailable("unreadable", f"cannot read {path}: {e.strerror}") from None
        if not head:
            raise Unavailable("no_database", f"{path} is empty: no game yet")
        if len(head) < 100 or not head.startswith(SQLITE_HEADER):
            raise Unavailable("not_a_database", f"{path} is not a game database")
        wal_mode = head[18:20] == b"\x02\x02"
        shared = _side(path, "-wal").exists() and _side(path, "-shm").exists()
        if wal_mode and shared:  # the app has it open: read its log, write nothing
            uri, self.immutable = database_uri(path, "ro") + "&readonly_shm=1", False
        elif wal_mode:  # nobody has it open: read the file as it is, make no file beside it
            uri, self.immutable = database_uri(path, "ro", immutable=True), True
        else:
            uri, self.immutable = database_uri(path, "ro"), False
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as e:
            raise Unavailable("unreadable", f"cannot open {path}: {e}") from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            conn.execute("PRAGMA query_only = 1")
            # asked of SQLite: the table's newest pages may still be in its log
            if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                raise Unavailable("not_a_database", f"{path} is not a companion database")
            tables = {
                row[0]
                for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if not {"games", "log"} <= tables:
                raise Unavailable("not_a_database", f"{path} has no game log")
        except sqlite3.Error as e:
            conn.close()
            raise Unavailable("unreadable", f"cannot read {path}: {e}") from None
        except Unavailable:
            conn.close()
            raise
        return conn

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read (Unavailable when the database cannot be read: it is opened
        again at the next read)."""
        conn = self.connection()
        try:
            return conn.execute(sql, list(args)).fetchall()
        except sqlite3.Error as e:
            self.close()
            raise Unavailable("unreadable", f"cannot read {self.path}: {e}") from None

    def data_version(self) -> int | None:
        """SQLite's count of the commits other connections made (PRAGMA data_version),
        asked through the open connection; None when there is none to ask (not open yet,
        or read as ``immutable``, which sees no commit: the files' signature does)."""
        if self.conn is None or self.immutable:
            return None
        try:
            value = self.conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            self.close()
            return None
        return int(value)

    def newest_game(self) -> int | None:
        rows = self.query("SELECT max(id) FROM games")
        value = rows[0][0] if rows else None
        return value if isinstance(value, int) else None

    def game_exists(self, game: int) -> bool:
        return bool(self.query("SELECT 1 FROM games WHERE id = ?", [game]))

    def records_after(self, game: int, seq: int) -> list[dict[str, Any]]:
        """The game's records after ``seq``, in order, body parsed (None: not JSON);
        ``text`` keeps the stored text, which the chain hashes."""
        rows = self.query(
            "SELECT seq, kind, CAST(body AS BLOB), prev, hash FROM log"
            " WHERE game = ? AND seq > ? ORDER BY seq LIMIT ?",
            [game, seq, READ_BATCH],
        )
        out = []
        for seq_, kind, raw, prev, digest in rows:
            text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
            try:
                body = json.loads(text)
            except (ValueError, RecursionError):
                body = None
            rec = {"seq": seq_, "kind": kind, "body": body, "prev": prev, "hash": digest}
            out.append({**rec, "text": text})
        return out

    def head(self, game: int) -> tuple[int, str] | None:
        """The game's newest record: (seq, hash)."""
        rows = self.query(
            "SELECT seq, hash FROM log WHERE game = ? ORDER BY seq DESC LIMIT 1", [game]
        )
        return (rows[0][0], rows[0][1]) if rows else None


# ------------------------------------------------------------------ one game, replayed
class _RecordedDraws:
    """The chance source of a replay: each draw hands back the cubes the log recorded
    for it, in order (the rules check them against the bag)."""

    def __init__(self) -> None:
        self.pending: list[list[str]] = []

    def load(self, draws: Any) -> None:
        self.pending = []
        for d in draws if isinstance(draws, list) else []:
            drawn = d.get("drawn") if isinstance(d, dict) else None
            if isinstance(drawn, list) and all(isinstance(c, str) for c in drawn):
                self.pending.append(list(drawn))
            else:
                self.pending.append([])

    def __call__(self, request: Any) -> Sequence[str]:
        if not self.pending:
            raise _NotAsRecorded("a draw the log does not hold")
        return self.pending.pop(0)


class _NotAsRecorded(Exception):
    pass


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class ReplayedGame:
    """One game rebuilt from its log, fed its records as they come."""

    def __init__(self, game: int) -> None:
        self.game = game
        self.seq = 0
        self.head = GENESIS
        self.kind: GameKind | None = None
        self.face: PhoneFace | None = None  # the kind's phones part
        self.unshown: str | None = None  # the edition of a game the phones cannot show
        self.table: GameTable | None = None
        self.chance = _RecordedDraws()
        self.status = "playing"  # "over", "abandoned"
        self.closed = False
        self.created_at = ""
        self.commitment = ""
        self.seed_origin: str | None = None
        self.actions = 0
        self.draws = 0
        self.damaged: int | None = None  # the first record that does not verify
        self.damaged_reason = ""
        self.ended_at: str | None = None  # when it ended (its record's, else when seen)
        self.last: tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None] | None = None
        self._standing: list[dict[str, Any]] = []  # actions not undone, newest last
        self._payload: dict[str, Any] | None = None

    # ------------------------------------------------------------ feeding
    def feed(self, records: list[dict[str, Any]], *, live: bool) -> bool:
        """Apply the records that follow; ``live``: they were committed while we
        watched (an ending among them dates the end). True if anything changed."""
        changed = False
        for rec in records:
            if self.damaged is not None or self.unshown is not None:
                break
            if rec["seq"] != self.seq + 1:
                continue  # already seen
            try:
                self._verify(rec)
                self._apply(rec, live)
            except Exception as e:  # any record the rules or the chain refuse stops the replay
                self.damaged = rec["seq"]
                self.damaged_reason = f"{type(e).__name__}: {e}"
            else:
                self.seq, self.head = rec["seq"], rec["hash"]
            changed = True
        if changed:
            self._payload = None
        return changed

    def _verify(self, rec: dict[str, Any]) -> None:
        body = rec["body"]
        if not isinstance(body, dict) or not isinstance(rec["kind"], str):
            raise _NotAsRecorded("damaged")
        text = canonical(body)
        if rec["text"] != text or rec["prev"] != self.head:
            raise _NotAsRecorded("not canonical, or not chained")
        digest = link_hash(self.head, record_bytes(self.game, rec["seq"], rec["kind"], text))
        if digest != rec["hash"]:
            raise _NotAsRecorded("the chain breaks")

    def _apply(self, rec: dict[str, Any], live: bool) -> None:
        kind_name, body = rec["kind"], rec["body"]
        if self.table is None:
            if kind_name != "new":
                raise _NotAsRecorded("no set-up")
            self._start(body)
            return
        kind = self.kind
        assert kind is not None and self.face is not None
        if self.closed:
            raise _NotAsRecorded("after the close")
        if kind_name == "action":
            self._action(kind, body)
        elif kind_name in ENDINGS:
            if not kind.is_over(self.table):
                raise _NotAsRecorded("an ending before the end")
            self.status = "over"
            if kind_name == "reveal":
                self._reveal(body.get("server_seed"))
            self._ended(body, live)
        elif kind_name == "abandon":
            self.status = "abandoned"
            self.table.abandoned = True
            self._reveal(body.get("server_seed"))
            self._ended(body, live)
        elif kind_name == "close":
            self.closed = True
            self.table.closed = True
        else:
            raise _NotAsRecorded("not a record of a game")

    def _start(self, body: dict[str, Any]) -> None:
        setup = body.get("setup")
        kind = kind_for(setup)
        if not isinstance(setup, dict):
            raise _NotAsRecorded("no set-up")
        commitment = body.get("commitment")
        if kind.has_bag and not isinstance(commitment, str):
            raise _NotAsRecorded("no commitment")
        face = kind.phone_face()
        if face is None:  # nothing more is read of it: the phones cannot show it
            edition = setup.get("edition")
            self.kind = kind
            self.unshown = edition if isinstance(edition, str) else kind.name
            return
        # the kind sets the game up again from its record, never from its seed (not
        # ours to read): a game with a bag is played with the log's own draws
        table = face.replay_table(body, self.chance)
        self.kind, self.face, self.table = kind, face, table
        self.commitment = commitment if isinstance(commitment, str) else ""
        created = body.get("created_at")
        self.created_at = created if isinstance(created, str) else ""
        origin = body.get("seed_origin")
        self.seed_origin = origin if isinstance(origin, str) else None

    def _action(self, kind: GameKind, body: dict[str, Any]) -> None:
        table = self.table
        assert table is not None
        action = body.get("action")
        if not isinstance(action, dict) or table.abandoned:
            raise _NotAsRecorded("not an action")
        self.chance.load(body.get("draws"))
        events, draws = kind.replay(table, action, True)
        if self.chance.pending or events != body.get("events") or draws != body.get("draws"):
            raise _NotAsRecorded("does not replay as recorded")
        self.actions += 1
        self.draws += len(draws)
        undone = None
        if action.get("do") == "undo":
            undone = self._standing.pop() if self._standing else None
        else:
            self._standing.append(action)
        self.last = (action, list(events), undone)

    def _ended(self, body: dict[str, Any], live: bool) -> None:
        """When the game ended: as its record says (``ended_at``); a log written before
        the records said it: when this process saw the record come (``live``), else
        unknown."""
        recorded = body.get("ended_at")
        if isinstance(recorded, str) and recorded:
            self.ended_at = recorded
        elif live and self.ended_at is None:
            self.ended_at = _now()

    def _reveal(self, seed: Any) -> None:
        face, table = self.face, self.table
        if face is not None and table is not None and (seed is None or isinstance(seed, str)):
            face.reveal(table, seed)

    # ------------------------------------------------------------ what it shows
    @property
    def ended(self) -> bool:
        return self.status in ("over", "abandoned")

    def state(self) -> dict[str, Any]:
        """The kind's table script output (``replay --json``) for the game so far."""
        if self.table is None or self.kind is None:
            raise NoSuchGame(self.game)
        out = self.kind.output(self.table)
        out["errors"] = []
        out["actions"] = self.actions
        return out

    def payload(self) -> dict[str, Any]:
        """What /api/state answers and the event stream pushes (made once per change,
        and again in another language: ``forget_words``)."""
        if self._payload is None:
            from companion.i18n import current_language
            from companion.web.view import page_view

            state = self.state()
            self._payload = {
                "game": self.game,
                "lang": current_language(),  # the language of "view" and the page's words
                "edition": self.table.edition if self.table is not None else "",
                "status": self.status,
                "closed": self.closed,
                "created_at": self.created_at,
                "damaged": self.damaged,
                "view": page_view(self, state),
                "state": state,
            }
        return self._payload

    def forget_words(self) -> None:
        """The table speaks another language: the payload is worded again when next asked."""
        self._payload = None


# ------------------------------------------------------------------ every game
class Games:
    """The database's games, replayed as they are asked for and kept up to date."""

    def __init__(self, path: Path) -> None:
        self.db = ReadOnlyDatabase(path)
        self.replayed: OrderedDict[int, ReplayedGame] = OrderedDict()

    def close(self) -> None:
        self.db.close()

    def forget_words(self) -> None:
        """The table speaks another language: every game is worded again when next asked."""
        for found in self.replayed.values():
            found.forget_words()

    def newest(self) -> int:
        game = self.db.newest_game()
        if game is None:
            raise NoSuchGame(None)
        return game

    def game(self, number: int | None) -> ReplayedGame:
        """The game ``number`` (None: the newest) brought up to date with its log.
        NoSuchGame, Unavailable. Records new to a game replayed before were committed
        while we watched: an ending among them dates the end of the game."""
        if number is None:
            number = self.newest()
        found = self.replayed.get(number)
        if found is not None:
            head = self.db.head(number)
            if head is None or head[0] < found.seq or not self._same_history(found):
                found = None  # the database was replaced: replay it afresh
        live = found is not None
        if found is None:
            if not self.db.game_exists(number):
                raise NoSuchGame(number)
            found = ReplayedGame(number)
        self.replayed[number] = found
        self.replayed.move_to_end(number)
        while len(self.replayed) > KEPT_GAMES:
            self.replayed.popitem(last=False)
        while found.damaged is None and found.unshown is None:
            batch = self.db.records_after(number, found.seq)
            if not batch:
                break
            found.feed(batch, live=live)
            if len(batch) < READ_BATCH:
                break
        if found.unshown is not None:
            raise NotShown(number, found.unshown)
        if found.table is None:
            raise NoSuchGame(number)
        return found

    def _same_history(self, found: ReplayedGame) -> bool:
        """Whether the log still holds the record we replayed last (a restored backup
        or another database put in its place does not)."""
        if found.seq == 0:
            return True
        rows = self.db.query(
            "SELECT hash FROM log WHERE game = ? AND seq = ?", [found.game, found.seq]
        )
        return bool(rows) and rows[0][0] == found.head
