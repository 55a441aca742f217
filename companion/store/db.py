"""Opening the game database: durability settings, schema migrations, refusals.

The log is written in WAL mode with ``synchronous = FULL``: every commit waits until
the write-ahead log is on the storage device, so an action the table has seen survives a
power cut (with NORMAL, the last commits before a cut may be rolled back).

Writes, transactions and migrations go through sqlite-utils' ``Database``. Importing
sqlite-utils costs a tenth of a second (it brings click, dateutil and pluggy), and a
table resumed after a power cut only reads before its first frame: the store reads
through the plain connection, and the ``Database`` is made at the first write (or by
``LazyDatabase.load`` once the screen is up).

What is refused, and how nothing is changed meanwhile:

- another program's file is told from its first 100 bytes (SQLite's header and its
  application id), before SQLite opens it for writing; when those bytes cannot tell
  (an application id of 0), SQLite is asked through a read-only connection;
- a database missing a table or a column the companion uses (``TABLES``), holding a
  table of a schema newer than its version says (``user_version`` set back by hand), or
  damaged (``PRAGMA quick_check``), is refused when opened, in one line;
- a database opened without ``create`` (the commands that only read) is opened
  read-only (``mode=ro``; ``immutable`` when nobody has it open, so that not even
  SQLite's ``-wal`` and ``-shm`` files are made): it is opened again for writing only
  at its first write (resuming a game), and migrated then. Until then the tables an
  older schema lacks read as empty (temporary tables of this connection);
- the check that a database is new and the making of its schema happen in one
  ``BEGIN IMMEDIATE`` transaction: of two programs making the same new database at
  once, one makes it and the other finds it made.

Why one module of over 600 lines: durability, migrations and refusals are one promise
about one SQLite file (commit before show, nothing lost at a power cut), kept in one
place; the log, the seal, the locks, the copies and the tags are modules of their own.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.i18n import N_, Msg, Refusal

if TYPE_CHECKING:
    from sqlite_utils import Database

APPLICATION_ID = 0x436C6E6B  # "Clnk": marks a companion database
SCHEMA_VERSION = 3
BUSY_SECONDS = 5.0  # how long to wait for another program's write to end
SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_BYTES = 100

# The tables the companion reads and writes, the schema version that made each, and the
# columns it uses: a database without them (a table dropped or rebuilt by hand) is refused.
TABLES: dict[str, tuple[int, tuple[str, ...]]] = {
    "games": (
        1,
        (
            "id",
            "created_at",
            "edition",
            "players",
            "commitment",
            "sealed_seed",
            "status",
            "server_seed",
            "ranking",
        ),
    ),
    "log": (1, ("game", "seq", "kind", "body", "prev", "hash")),
    "tags": (2, ("uid", "kind", "edition", "name", "enrolled_at")),
    "in_progress": (3, ("game", "body")),
}
MIGRATIONS_TABLE = "_sqlite_migrations"  # sqlite-utils' record of the migrations applied


def one_line(text: str) -> str:
    """``text`` as one printable line: a line break or any other character that cannot
    be printed is written as its escape (``\\n``)."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


class StoreError(Refusal):
    """A database problem the table must hear about; nothing was written.
    ``localized()`` is the message in the table's language. Every text it names (a
    path, SQLite's words) is one printable line: the message is always one line."""

    def __init__(
        self,
        template: str | tuple[str, str] | Msg,
        /,
        *,
        during: str | None = None,
        **params: object,
    ) -> None:
        flat = {k: one_line(v) if type(v) is str else v for k, v in params.items()}
        super().__init__(template, during=during, **flat)


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
    on the table" (nothing, in a new database), or once the first frame is shown.

    A database opened read-only (not ``writable``) is opened again for writing when
    sqlite-utils is first needed (the first write); reads go on through ``reader``."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        *,
        pending: bool = False,
        writable: bool = True,
    ) -> None:
        self.conn = conn
        self.path = path
        self.pending = pending
        self.writable = writable
        self._db: Database | None = None

    def load(self) -> Database:
        """The Database (StoreError: the schema it was waiting for cannot be made, or
        the database cannot be opened for writing)."""
        if not self.writable:
            conn, _pending = _open_writable(self.path, create=False, later=False)
            self.conn.close()
            self.conn, self.writable, self._db = conn, True, None
        if self._db is None:
            self._db = utils_database(self.conn)
        if self.pending:
            try:
                with _immediate(self.conn):  # another program may have made it meanwhile
                    version = _version(self.conn)
                    if version < SCHEMA_VERSION:
                        _migrate(self.conn, self.path, version)
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


def _sqlite_words(text: str) -> str:
    """SQLite's message as one line (an integrity check's runs over many): its lines
    joined, the first few problems only."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line and line != "*** in database main ***"]
    shown = "; ".join(lines[:3])
    return shown + ("; ..." if len(lines) > 3 else "")


def _failure(path: Path, e: sqlite3.Error) -> StoreError:
    """A database that cannot be opened or written, said as what it is: a read-only or
    full disk is not a foreign file."""
    text = _sqlite_words(str(e))
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


def _foreign(path: Path) -> StoreError:
    return StoreError(
        N_("{path} is a database of another program, not a companion database"), path=str(path)
    )


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _check_identity(conn: sqlite3.Connection, path: Path) -> tuple[bool, int]:
    """Whether the database is new and empty, and its schema version; StoreError for a
    foreign or future one."""
    try:  # in one statement, so from one snapshot: never half of another's new schema
        app_id, version, tables = conn.execute(
            "SELECT (SELECT application_id FROM pragma_application_id),"
            " (SELECT user_version FROM pragma_user_version),"
            " (SELECT count(*) FROM main.sqlite_master)"
        ).fetchone()
    except sqlite3.DatabaseError as e:
        raise _failure(path, e) from None
    if tables == 0 and app_id == 0:
        return True, version
    if app_id != APPLICATION_ID:
        raise _foreign(path)
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
    return False, version


def _missing_table(path: Path, table: str) -> StoreError:
    return StoreError(
        N_("{path} is damaged: its {table} table is missing (restore a backup)"),
        path=str(path),
        table=table,
    )


def check_schema(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """The tables and columns the companion uses, as a database of schema ``version``
    has them; StoreError (one line) naming the first one missing."""
    present = {
        row[0] for row in conn.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")
    }
    # a version older than the tables the file holds (user_version set back by hand): the
    # stand-ins of the tables that version lacks would be read in their place, every game
    # hidden, and a new game written where nothing reads it
    made_by = {**{t: since for t, (since, _c) in TABLES.items()}, MIGRATIONS_TABLE: 1}
    for table, since in made_by.items():
        if since > version and table in present:
            raise StoreError(
                N_("{path} is damaged: its schema version is {version}, yet it holds the "
                   "{table} table of version {since} (restore a backup)"),
                path=str(path),
                version=version,
                table=table,
                since=since,
            )  # fmt: skip
    for table, (since, columns) in TABLES.items():
        if since > version:
            continue
        if table not in present:
            raise _missing_table(path, table)
        have = {row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")}
        for column in columns:
            if column not in have:
                raise StoreError(
                    N_("{path} is damaged: its {table} table has no {column} column "
                       "(restore a backup)"),
                    path=str(path),
                    table=table,
                    column=column,
                )  # fmt: skip


def _quick_check(conn: sqlite3.Connection, path: Path) -> None:
    rows = [str(row[0]) for row in conn.execute("PRAGMA quick_check(3)").fetchall()]
    if rows != ["ok"]:
        raise StoreError(
            N_("{path} is damaged: {problem}"),
            path=str(path),
            problem=_sqlite_words("\n".join(rows)),
        )


def _migrate(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Bring the schema to SCHEMA_VERSION (inside the caller's transaction)."""
    if version >= 1:
        present = conn.execute(
            "SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = ?",
            [MIGRATIONS_TABLE],
        ).fetchone()[0]
        if not present:  # sqlite-utils would make the first tables again
            raise _missing_table(path, MIGRATIONS_TABLE)
    migrations().apply(utils_database(conn))


@contextlib.contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """A write transaction taken at once: no other program writes until it ends (one
    waits, up to the busy timeout, for another's to end)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def database_uri(path: Path, mode: str, *, immutable: bool = False) -> str:
    """The SQLite URI of a database file (``mode``: ro, rw or rwc), its name escaped:
    '%', '?' and '#' are letters of a file name, not of the URI."""
    uri = f"file:{urllib.parse.quote(os.fsencode(path.absolute()))}?mode={mode}"
    return uri + ("&immutable=1" if immutable else "")


def _header(path: Path) -> bytes:
    """The file's first bytes (b"": no file, or an empty one)."""
    try:
        with open(path, "rb") as f:  # a regular file: checked before
            return f.read(HEADER_BYTES)
    except FileNotFoundError:
        return b""


def _first_look(path: Path, head: bytes) -> bool:
    """Refuse what the file's first bytes show is no companion database, before SQLite
    opens it (a connection for writing would change another program's database: its
    journal, the files beside it). An application id of 0 is an empty database (one
    page: a database made just now, by another program of ours too) or another
    program's (a table takes a page of its own). True if SQLite must tell: the
    write-ahead log beside the file may hold a newer first page, or the header's page
    count is not kept (SQLite before 3.7.0)."""
    if not head:
        return False
    if len(head) < HEADER_BYTES:
        raise StoreError(
            N_("{path} is damaged (cut short to {size} bytes): restore a backup"),
            path=str(path),
            size=len(head),
        )
    if not head.startswith(SQLITE_HEADER):
        raise StoreError(
            N_("{path} is not a companion database ({problem})"),
            path=str(path),
            problem="file is not a database",
        )
    app_id = int.from_bytes(head[68:72], "big")
    if app_id == APPLICATION_ID:
        return False
    if _side_file(path, "-wal").exists():
        return True
    if app_id != 0:
        raise _foreign(path)
    if head[24:28] != head[92:96]:  # the page count at 28 is not the file's
        return True
    if int.from_bytes(head[28:32], "big") > 1:
        raise _foreign(path)
    return False


def _side_file(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _connect(uri: str, path: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        # another program opening it meanwhile
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
    except sqlite3.Error as e:
        raise StoreError(
            N_("cannot open {path}: {problem}"), path=str(path), problem=_sqlite_words(str(e))
        ) from None
    return conn


def _connect_read_only(path: Path, head: bytes, *, immutable: bool = True) -> sqlite3.Connection:
    """A read-only connection. A database in WAL mode (bytes 18 and 19 of its header)
    whose log is not there is open nowhere: read as ``immutable`` (unless told not to),
    so that SQLite makes no ``-wal`` or ``-shm`` file beside it (it would leave them
    behind)."""
    wal_mode = head[18:20] == b"\x02\x02"
    immutable = immutable and wal_mode and not _side_file(path, "-wal").exists()
    return _connect(database_uri(path, "ro", immutable=immutable), path)


def _write_ahead(conn: sqlite3.Connection) -> None:
    """WAL mode. Turning a new database to it takes the file for a moment, and SQLite
    says "locked" at once (no busy timeout) to the second of two programs turning it at
    the same moment: that one tries again, for as long as the busy timeout."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _open_writable(path: Path, *, create: bool, later: bool) -> tuple[sqlite3.Connection, bool]:
    """A connection for writing, the database checked, made or migrated; and whether
    its schema is still to be made (``later``, for a new database)."""
    conn = _connect(database_uri(path, "rwc" if create else "rw"), path)
    try:
        new, version = _check_identity(conn, path)
        _write_ahead(conn)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        if not new:
            _quick_check(conn, path)
        with _immediate(conn):  # what another program made meanwhile is seen, not made again
            new, version = _check_identity(conn, path)
            if not new:
                check_schema(conn, path, version)
            if new:  # the file is marked at once: a disk that cannot be written says so now
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            if (new and not later) or (not new and version < SCHEMA_VERSION):
                _migrate(conn, path, version)
    except StoreError:
        conn.close()
        raise
    except sqlite3.DatabaseError as e:
        conn.close()
        raise _failure(path, e) from None
    return conn, new and later


def _open_read_only(path: Path, head: bytes) -> sqlite3.Connection:
    """A read-only connection to a companion database, checked; the tables an older
    schema lacks stand in as empty temporary tables (the file is never migrated here).

    Read as ``immutable``, the file is read without the locks that keep out another
    program's checkpoint: if the check fails and that program has opened the database
    meanwhile (its log is there now), it is read again with them."""
    try:
        return _checked_read_only(path, head, immutable=True)
    except StoreError:
        if not _side_file(path, "-wal").exists():
            raise
    return _checked_read_only(path, head, immutable=False)


def _checked_read_only(path: Path, head: bytes, *, immutable: bool) -> sqlite3.Connection:
    conn = _connect_read_only(path, head, immutable=immutable)
    try:
        # one snapshot: the version and the tables are read as one program's commit left
        # them (never a version read before another program made the schema it names)
        conn.execute("BEGIN")
        new, version = _check_identity(conn, path)
        if new:  # an empty database: no other program's, but no companion's either
            raise StoreError(
                N_("{path} is an empty database, not a companion database"), path=str(path)
            )
        _quick_check(conn, path)
        check_schema(conn, path, version)
        conn.execute("COMMIT")
        for table, (since, columns) in TABLES.items():
            if since > version:
                conn.execute(f"CREATE TEMP TABLE {table} ({', '.join(columns)})")
    except StoreError:
        conn.close()
        raise
    except sqlite3.DatabaseError as e:
        conn.close()
        raise _failure(path, e) from None
    return conn


def _checked_path(path: Path | str, *, create: bool) -> Path:
    """The database's path, refused (StoreError) if it cannot be one: not a file name,
    a folder, a pipe or a device, a missing file when ``create`` is not given."""
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
    if not create and (not path.exists() or (path.is_file() and path.stat().st_size == 0)):
        raise StoreError(N_("no game database at {database}"), database=str(path))
    if path.is_dir():
        raise StoreError(N_("{path} is a folder, not a database file"), path=str(path))
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        raise StoreError(
            N_("{path} is not a regular file (a pipe or a device): not a game database"),
            path=str(path),
        )
    for folder in path.parents:
        if folder.exists() and not folder.is_dir():
            raise StoreError(
                N_("{folder} is a file, not a folder: {path} cannot be made there"),
                folder=str(folder),
                path=str(path),
            )
    return path


def open_database(path: Path | str, *, create: bool = True, later: bool = False) -> LazyDatabase:
    """Open and migrate the game database; with ``create`` (for commands that write) a
    missing one is made, else it is refused and the database is opened read-only (a
    command that only reads creates and changes nothing; it is opened again for writing
    at its first write). ``later``: a database made now gets its schema when first used
    (see LazyDatabase)."""
    shown = path
    try:
        path = _checked_path(path, create=create)
        head = _header(path)
        if _first_look(path, head):  # SQLite, read-only, tells whose it is
            conn = _connect_read_only(path, head)
            try:
                new, _version_ = _check_identity(conn, path)
            finally:
                conn.close()
            if new and not create:
                raise StoreError(
                    N_("{path} is an empty database, not a companion database"), path=str(path)
                )
        if not create:
            return LazyDatabase(_open_read_only(path, head), path, writable=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        conn, pending = _open_writable(path, create=True, later=later)
    except OSError as e:
        raise StoreError(
            N_("cannot open {path}: {problem}"), path=str(shown), problem=e.strerror or str(e)
        ) from None
    except UnicodeError:
        raise StoreError(
            N_("{path} is not a usable file name (it is not valid text)"),
            path=str(shown).encode("utf-8", "replace").decode("utf-8"),
        ) from None
    return LazyDatabase(conn, path, pending=pending)
