"""Copies of the game database taken while a game is being played.

SQLite's online backup copies a consistent snapshot page by page, even while the app is
writing (WAL); a plain file copy could catch a half-written page. The seal key beside the
database is copied first, then the database: a copy cut short at any moment leaves no
``games-*.db`` without its key (a running game could not be resumed from it). Copies in
progress are written as ``.partial`` files, renamed when whole; the leftovers of a copy
that was cut short are removed by the next one.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

from companion.i18n import N_
from companion.store.db import StoreError, database_uri, open_database
from companion.store.seal import SealError, fsync_folder, key_path, read_key_file

PREFIX = "games-"


def _problem(e: BaseException) -> str:
    return getattr(e, "strerror", None) or str(e)


def _check_source(database: Path) -> None:
    """Only a companion database is backed up: the right program, its tables whole
    (see ``open_database``, which opens it read-only here)."""
    if not database.exists():
        raise StoreError(N_("no game database at {database}"), database=str(database))
    open_database(database, create=False).conn.close()


def _prepare_folder(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise StoreError(
            N_("{path} is a file: give --to a folder for the copies"), path=str(folder)
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(
            N_("cannot make the folder {path} ({problem})"), path=str(folder), problem=_problem(e)
        ) from None
    for stale in folder.glob(f"{PREFIX}*.partial"):  # a copy cut short earlier
        stale.unlink(missing_ok=True)
    for key in folder.glob(f"{PREFIX}*.db.key"):  # its key copied, the database not yet
        if not key.with_name(key.name.removesuffix(".key")).exists():
            key.unlink(missing_ok=True)


def _key_of(database: Path) -> bytes | None:
    """The bytes of the database's key, whole or damaged, to be copied as they are (None:
    it has none). A key that is no regular file (a pipe, a link to a device) is refused
    unread, never waited for nor copied on and on: nothing is backed up then."""
    key = key_path(database)
    if not key.exists():
        return None
    try:
        return read_key_file(key)
    except SealError as e:
        raise StoreError(N_("{problem}: nothing was backed up"), problem=e.localized()) from None


def _write_key(target: Path, data: bytes) -> None:
    partial = target.with_name(target.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    partial.chmod(0o600)
    partial.replace(target)


def backup(database: Path, folder: Path, *, keep: int = 7, now: float | None = None) -> Path:
    """Write ``folder/games-YYYYmmdd-HHMMSS.db`` (and its key) and keep the newest ``keep``."""
    if keep < 1:
        raise StoreError(N_("keep at least one backup"))
    _check_source(database)
    key_data = _key_of(database)
    _prepare_folder(folder)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    target = folder / f"{PREFIX}{stamp}.db"
    partial = target.with_suffix(".db.partial")
    key_copy = key_path(target)
    try:
        if key_data is not None:
            _write_key(key_copy, key_data)
        source = sqlite3.connect(database_uri(database.resolve(), "ro"), uri=True)
        try:
            dest = sqlite3.connect(partial)
            try:
                source.backup(dest)
            finally:
                dest.close()
        finally:
            source.close()
        partial.replace(target)  # a copy cut short never looks like a good one
        fsync_folder(folder)
    except (OSError, sqlite3.Error) as e:
        for leftover in (partial, key_copy.with_name(key_copy.name + ".partial"), key_copy):
            with contextlib.suppress(OSError):
                leftover.unlink()
        raise StoreError(
            N_("the backup to {path} failed ({problem}); the earlier copies are kept"),
            path=str(folder),
            problem=_problem(e),
        ) from None
    live = database.resolve()
    copies = [p for p in sorted(folder.glob(f"{PREFIX}*.db")) if p.resolve() != live]
    for old in copies[:-keep]:  # never the database being backed up, whatever its name
        old.unlink()
        key_path(old).unlink(missing_ok=True)
    return target
