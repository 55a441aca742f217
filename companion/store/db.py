"""Opening the game database: durability settings, schema migrations, refusals.

The log is written in WAL mode with ``synchronous = FULL``: every commit waits until
the write-ahead log is on the storage device, so an action the table has seen survives a
power cut (with NORMAL, the last commits before a cut may be rolled back).

Writes, transactions and migrations go through sqlite-utils' ``Database``. Importing
sqlite-utils costs a tenth of a second (it brings click, dateutil and pluggy), and a
table resumed after a power cut only reads before its first frame: the store reads
through the plain connection, and the ``Database`` is made at the first write (or by
``LazyDatabase.load`` once the screen is up).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.i18n import N_, Refusal

if TYPE_CHECKING:
    from sqlite_utils import Database

APPLICATION_ID = 0x436C6E6B  # "Clnk": marks a companion database
SCHEMA_VERSION = 3


class StoreError(Refusal):
    """A database problem the table must hear about; nothing was written.
    ``localized()`` is the message in the table's language."""


def m001_game_log(db: Database) -> None:
    db.execute(
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            created_at TEXT NOT NULL,
            edition TEXT NOT NULL,
            players TEXT NOT NULL,
            commitment TEXT NOT NULL,
            sealed_seed TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'playing',
            server_seed TEXT,
            ranking TEXT
        )"""
    )
    db.execute(
        """CREATE TABLE log (
            game INTEGER NOT NULL REFERENCES games(id),
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL,
            prev TEXT NOT NULL,
            hash TEXT NOT NULL,
            PRIMARY KEY (game, seq)
        )"""
    )
    for verb in ("UPDATE", "DELETE"):
        db.execute(
            f"""CREATE TRIGGER log_no_{verb.lower()} BEFORE {verb} ON log
            BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END"""
        )
    db.execute(
        """CREATE VIEW draws AS
        SELECT log.game AS game, log.seq AS seq,
               json_extract(d.value, '$.nonce') AS nonce,
               json_extract(d.value, '$.reason') AS reason,
               json_extract(d.value, '$.count') AS count,
               json_extract(d.value, '$.bag') AS bag,
               json_extract(d.value, '$.drawn') AS drawn
        FROM log, json_each(log.body, '$.draws') AS d
        WHERE log.kind = 'action'"""
    )
    db.execute(
        """CREATE VIEW actions AS
        SELECT game, seq, json_extract(body, '$.action.do') AS action,
               json_extract(body, '$.action') AS detail
        FROM log WHERE kind = 'action'"""
    )
    db.execute("PRAGMA user_version = 1")


def m002_tags(db: Database) -> None:
    db.execute(
        """CREATE TABLE tags (
            uid TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            edition TEXT,
            name TEXT NOT NULL,
            enrolled_at TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX tags_by_component ON tags (kind, edition, name)")
    db.execute("PRAGMA user_version = 2")


def m003_table_in_progress(db: Database) -> None:
    # What the table is doing that is not yet an action: the cards revealed so far in a
    # refill, the opening row being scanned, whose deck is being scored. Rewritten at each
    # scan, so a power cut loses none of it; the log stays the only record of the game.
    db.execute(
        """CREATE TABLE in_progress (
            game INTEGER PRIMARY KEY REFERENCES games(id),
            body TEXT NOT NULL
        )"""
    )
    db.execute("PRAGMA user_version = 3")


MIGRATIONS = (m001_game_log, m002_tags, m003_table_in_progress)  # in order


def migrations() -> Any:
    """The schema's migrations, as sqlite-utils applies them (by their names)."""
    from sqlite_utils.migrations import Migrations

    steps = Migrations("clank-companion")
    for step in MIGRATIONS:
        steps()(step)
    return steps


def utils_database(conn: sqlite3.Connection) -> Database:
    from sqlite_utils import Database

    return Database(conn, execute_plugins=False)  # no plugins: none to scan for


class LazyDatabase:
    """sqlite-utils' ``Database`` over an open connection, made when first used; the
    connection itself is there at once, for reading (``reader``).

    A database made just now (``pending``) gets its schema when sqlite-utils is first
    needed: at the first write, at the first read of anything but "which game was left
    on the table" (nothing, in a new database), or once the first frame is shown."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, pending: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.pending = pending
        self._db: Database | None = None

    def load(self) -> Database:
        """The Database (StoreError: the schema it was waiting for cannot be made)."""
        if self._db is None:
            self._db = utils_database(self.conn)
        if self.pending:
            try:
                migrations().apply(self._db)
            except sqlite3.Error as e:
                raise _failure(self.path, e) from None
            self.pending = False
        return self._db

    def reader(self) -> sqlite3.Connection:
        """The connection to read from, the schema made first if it is pending."""
        if self.pending:
            self.load()
        return self.conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self.load(), name)


def _failure(path: Path, e: sqlite3.Error) -> StoreError:
    """A database that cannot be opened or written, said as what it is: a read-only or
    full disk is not a foreign file."""
    text = str(e)
    if "readonly" in text or "read-only" in text:
        return StoreError(
            N_("{path} cannot be written (a read-only disk or folder): nothing was changed"),
            path=str(path),
        )
    if "full" in text:
        return StoreError(
            N_("the disk holding {path} is full: nothing was changed (free some space)"),
            path=str(path),
        )
    if "unable to open" in text or "disk I/O" in text:
        return StoreError(
            N_("cannot open {path}: {problem} (check the disk and its permissions)"),
            path=str(path),
            problem=text,
        )
    if "malformed" in text or "corrupt" in text:
        return StoreError(
            N_("{path} is damaged ({problem}): restore a backup"), path=str(path), problem=text
        )
    return StoreError(
        N_("{path} is not a companion database ({problem})"), path=str(path), problem=text
    )


def _check_identity(conn: sqlite3.Connection, path: Path) -> bool:
    """True for a new, empty database; raises StoreError for a foreign or future one."""
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as e:
        raise _failure(path, e) from None
    if tables == 0 and app_id == 0:
        return True
    if app_id != APPLICATION_ID:
        raise StoreError(
            N_("{path} is a database of another program, not a companion database"), path=str(path)
        )
    if version > SCHEMA_VERSION:
        raise StoreError(
            N_(
                "{path} was written by a newer version of the companion "
                "(schema {version}, this one knows {known}); update the companion"
            ),
            path=str(path),
            version=version,
            known=SCHEMA_VERSION,
        )
    return False


def open_database(path: Path | str, *, create: bool = True, later: bool = False) -> LazyDatabase:
    """Open and migrate the game database; with ``create`` (for commands that write) a
    missing one is made, else it is refused (a command that only reads creates nothing).
    ``later``: a database made now gets its schema when first used (see LazyDatabase)."""
    if "\x00" in str(path):
        raise StoreError(
            N_("{path} is not a usable file name (it holds a NUL character)"),
            path=str(path).replace("\x00", "\\0"),
        )
    if str(path).strip() in ("", ":memory:") or str(path).startswith("file:"):
        raise StoreError(
            N_("{path} is not a file name: the game database must be a file"), path=str(path)
        )
    path = Path(path)
    try:
        if not create and (not path.exists() or (path.is_file() and path.stat().st_size == 0)):
            raise StoreError(N_("no game database at {database}"), database=str(path))
        if path.exists() and path.is_file() and 0 < path.stat().st_size < 100:
            raise StoreError(
                N_("{path} is damaged (cut short to {size} bytes): restore a backup"),
                path=str(path),
                size=path.stat().st_size,
            )
        if path.is_dir():
            raise StoreError(N_("{path} is a folder, not a database file"), path=str(path))
        for folder in path.parents:
            if folder.exists() and not folder.is_dir():
                raise StoreError(
                    N_("{folder} is a file, not a folder: {path} cannot be made there"),
                    folder=str(folder),
                    path=str(path),
                )
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as e:
        problem = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise StoreError(
            N_("cannot open {path}: {problem}"), path=str(path), problem=problem
        ) from None
    except UnicodeError:
        raise StoreError(
            N_("{path} is not a usable file name (it is not valid text)"),
            path=str(path).encode("utf-8", "replace").decode("utf-8"),
        ) from None
    try:
        new = _check_identity(conn, path)
        conn.execute("PRAGMA busy_timeout = 5000")  # another program opening it meanwhile
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        if not new:
            problem = conn.execute("PRAGMA quick_check").fetchone()[0]
            if problem != "ok":
                raise StoreError(
                    N_("{path} is damaged: {problem}"), path=str(path), problem=problem
                )
        if new:  # the file is marked at once: a disk that cannot be written says so now
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db = LazyDatabase(conn, path, pending=new and later)
        if (new and not later) or (
            not new and conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION
        ):
            migrations().apply(db.load())
    except StoreError:
        conn.close()
        raise
    except sqlite3.DatabaseError as e:
        conn.close()
        raise _failure(path, e) from None
    return db
